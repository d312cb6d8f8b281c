"""Hostile: writes 40 files of 8 MiB (320 MiB), each moved as soon as it is written into a folder of its case folder
that it keeps closed to everyone (chmod 000, opened only for the instant of the move), so a count that only lists the
folders it may open sees at most one file. Must end `output_limit` naming the disk cap, like neighbour_disk_filler.py.
Returns what it wrote if nothing stops it."""
import os

CHUNK = b"\xa5" * (1 << 20)


def solve(x):
    os.mkdir("hidden", 0)
    written = 0
    for n in range(40):
        name = f"fill-{n}.bin"
        with open(name, "wb") as out:
            for _ in range(8):
                out.write(CHUNK)
                written += len(CHUNK)
            out.flush()
            os.fsync(out.fileno())
        os.chmod("hidden", 0o700)
        os.rename(name, os.path.join("hidden", name))
        os.chmod("hidden", 0)
    return written
