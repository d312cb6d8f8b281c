"""Floods stdout, stderr and every pipe it can open with far more than any cap."""
import os

from family import open_pipe_for_writing

CHUNK = b"{" * (1 << 20)


def solve(x):
    fds = [1, 2]
    for fd in os.listdir("/proc/self/fd"):
        w = open_pipe_for_writing(f"/proc/self/fd/{fd}")
        if w is not None:
            fds.append(w)
    for _ in range(64):
        for fd in fds:
            try:
                os.write(fd, CHUNK)
            except OSError:
                pass
    return None
