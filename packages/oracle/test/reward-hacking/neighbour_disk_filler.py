"""Hostile: fills the disk with files each well under the file-size limit (8 MiB), 40 of them (320 MiB), in its
case folder and its TMPDIR. RLIMIT_FSIZE caps each file, not their number. Must end `output_limit` naming the disk
cap, with the host's disk use bounded by it. Returns what it wrote if nothing stops it (the expected value, so on
a runner without a disk cap it passes)."""
import os

CHUNK = b"\xa5" * (1 << 20)


def solve(x):
    written = 0
    for n in range(40):
        folder = os.environ.get("TMPDIR", ".") if n % 2 else "."
        with open(os.path.join(folder, f"fill-{x}-{n}.bin"), "wb") as out:
            for _ in range(8):
                out.write(CHUNK)
                written += len(CHUNK)
            out.flush()
            os.fsync(out.fileno())
    return written
