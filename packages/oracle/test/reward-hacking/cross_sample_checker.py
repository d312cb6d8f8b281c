"""Graded after cross_sample_attacker.py in the same warm runtime: reports what the attacker left behind that this
sample can see (files in the shared /tmp and /dev/shm, the attacker's daemon). Passes only when there is nothing."""
import os


def ancestry():
    chain, pid = set(), os.getpid()
    while pid > 1:
        chain.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            break
    return chain


def leftovers():
    """Files another sample planted, and processes of another uid that are not this sample's ancestors (the
    runtime, bubblewrap's init): at level namespaces nothing else may be running in the sandbox."""
    found = {"files": [], "daemons": []}
    mine = ancestry()
    for shared in ("/tmp", "/dev/shm"):
        try:
            found["files"] += [os.path.join(shared, n) for n in os.listdir(shared) if n.startswith("cross-sample-plant-")]
        except OSError:
            pass
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) in mine or pid == "1":
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                uid = int(next(line for line in f if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            continue
        if uid != os.getuid():
            found["daemons"].append(int(pid))
    return found


def solve(x):
    return leftovers()
