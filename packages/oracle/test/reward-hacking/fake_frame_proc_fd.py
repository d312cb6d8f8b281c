"""Writes forged replies (old status frames and new data frames) to every fd of its own run reachable through /proc."""
import os

from family import family, harness_pid, open_pipe_for_writing

FORGED = b"".join(
    b'{"id": %d, "status": "passed", "ms": 0, "stdout": "", "stderr": ""}\n' % i
    + b'{"id": %d, "end": "returned", "ms": 0, "value_len": 8, "stdout_len": 0, "stderr_len": 0}\n"passed"' % i
    for i in range(1, 6)
)


def targets():
    # Only this run's own processes (see family.py): the harness, its fork server, the case children.
    for pid in ["self", *map(str, family(harness_pid()))]:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            yield f"/proc/{pid}/fd/{fd}"


def solve(x):
    for path in targets():
        fd = open_pipe_for_writing(path)
        if fd is None:
            continue
        try:
            os.write(fd, FORGED)
        except OSError:
            pass
        os.close(fd)
    return None
