# Hostile deliverable: forks children that each take (and touch) just under the per-process memory limit,
# so only a limit on the whole tree can stop it.
import os
import time

per_child = 100 * 1024 * 1024
for _ in range(12):
    if os.fork() == 0:
        block = bytearray(per_child)
        block[::4096] = b"m" * len(block[::4096])
        time.sleep(60)
        os._exit(0)
print("forked", flush=True)
time.sleep(60)
