"""Hostile: a CPU hog that undoes its own pinning. Each call puts itself back on every core, starts spinning threads,
and forks spinning processes (each in a session of its own, so the scheduler's per-session groups do not hold them
together, some detached by a double fork) and never returns. Graded beside correct samples, it must get `timeout`
and they must pass: a case's verdict counts its own CPU, never the machine's."""
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


def _unpin():
    try:
        os.sched_setaffinity(0, CORES)
    except OSError:
        pass


def solve(x):
    _unpin()
    for n in range(40):
        if _fork() == 0:
            try:
                os.setsid()
                _unpin()
                if n % 3 == 0 and os.fork() != 0:
                    os._exit(0)  # the grandchild spins on, re-parented away from the case
            finally:
                _spin()
    for _ in range(3):
        try:
            threading.Thread(target=_spin, daemon=True).start()
        except RuntimeError:
            pass  # out of its process budget: the spinning processes are enough
    _spin()
