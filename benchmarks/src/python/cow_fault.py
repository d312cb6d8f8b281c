"""What one copy-on-write page fault costs on this machine: the cost that bounds every fork-per-case design.

The parent maps and touches 64 MiB, then forks a child that writes one byte into each of `pages` pages (each write
is one copy-on-write fault, the same fault a forked Python case takes for every object it touches); a second child
forks and exits without writing. Prints {"fault_us": ..., "fork_exit_ms": ...}: the difference per page, in
microseconds, and the fork+exit cost alone.

    python3 cow_fault.py [pages]
"""
import json
import mmap
import os
import sys
import time

PAGE = mmap.PAGESIZE
pages = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
# Private: a child's write is a real copy-on-write fault (a shared mapping would take a plain fault instead).
region = mmap.mmap(-1, 64 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for offset in range(0, len(region), PAGE):
    region[offset] = 1


def forked(touch):
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        for i in range(touch):
            region[i * PAGE] = 2
        os._exit(0)
    os.waitpid(pid, 0)
    return time.perf_counter() - started


rounds = 5
bare = min(forked(0) for _ in range(rounds))
touched = min(forked(pages) for _ in range(rounds))
json.dump({"fault_us": (touched - bare) / pages * 1e6, "fork_exit_ms": bare * 1000}, sys.stdout)
