# Hostile deliverable: prints 1 GB to stdout.
import sys

line = ("y" * 1023 + "\n").encode()
block = line * 1024  # 1 MB
for _ in range(1024):
    sys.stdout.buffer.write(block)
