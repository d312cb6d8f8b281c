"""Hostile script: like neighbour_disk_filler.py, as a script in its case folder: 40 files of 8 MiB (320 MiB).
Prints what it wrote if nothing stops it (the expected stdout)."""
import os

CHUNK = b"\xa5" * (1 << 20)
written = 0
for n in range(40):
    with open(f"fill-{n}.bin", "wb") as out:
        for _ in range(8):
            out.write(CHUNK)
            written += len(CHUNK)
        out.flush()
        os.fsync(out.fileno())
print(written)
