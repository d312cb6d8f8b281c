"""Hostile script: the CPU hog of neighbour_cpu_hog.py as a script (spinning threads and processes on every core,
some detached). Must end `timeout`, and correct scripts graded beside it must pass."""
import os
import threading

CORES = range(os.cpu_count() or 2)


def _spin():
    while True:
        pass


def _fork():
    try:
        return os.fork()
    except OSError:
        return -1  # out of its process budget


try:
    os.sched_setaffinity(0, CORES)
except OSError:
    pass
for n in range(40):
    if _fork() == 0:
        try:
            os.setsid()
            os.sched_setaffinity(0, CORES)
            if n % 3 == 0 and os.fork() != 0:
                os._exit(0)
        except OSError:
            pass
        finally:
            _spin()
for _ in range(3):
    try:
        threading.Thread(target=_spin, daemon=True).start()
    except RuntimeError:
        pass  # out of its process budget: the spinning processes are enough
_spin()
