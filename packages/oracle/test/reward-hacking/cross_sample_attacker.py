"""A sample that attacks the other samples graded beside it (the warm runtime serves many samples in one sandbox).

Each case reports what it could do to anything outside its own process family: signal it, read another sample's
files or folders, write into another sample's working folder. The test expects all of it to be empty, and the victim
samples graded at the same time to pass. It also leaves files in the shared /tmp and /dev/shm and a setsid daemon
that keeps trying for a while; a later sample (cross_sample_checker.py) must find none of them.
Only ever run at level namespaces: there, everything it can see is inside the sandbox of its own test.
"""
import os
import signal
import time

MARK = "SKILLRIG_CROSS_SAMPLE_DAEMON"


def ancestry():
    """This process and its ancestors (to spare them: the case must live to report)."""
    chain, pid = set(), os.getpid()
    while pid > 1:
        chain.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            break
    return chain


def uid_of(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return int(next(line for line in f if line.startswith("Uid:")).split()[1])
    except (OSError, StopIteration, ValueError):
        return None


def others():
    """Processes of another uid (another sample, the runtime), not its own sample's nor its ancestors."""
    mine, me = ancestry(), os.getuid()
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in mine and int(p) != 1 and uid_of(p) not in (me, None)]


def attack():
    found = {"signalled": [], "read": [], "wrote": [], "listed": []}
    for pid in others():
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.kill(pid, sig)
                found["signalled"].append(pid)
            except OSError:
                pass
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                f.read()
            found["read"].append(f"/proc/{pid}/environ")
        except OSError:
            pass
    # The runtime's folders: <root>/samples/<pair>/ and <root>/work/<pair>/, found from this case's own folder.
    cwd = os.getcwd()  # <root>/work/<pair>/cases/case-...
    pair_dir = os.path.dirname(os.path.dirname(cwd))
    work_root = os.path.dirname(pair_dir)
    root = os.path.dirname(work_root)
    for tree in (os.path.join(root, "samples"), work_root):
        try:
            names = os.listdir(tree)
        except OSError:
            continue
        for name in names:
            path = os.path.join(tree, name)
            if path == pair_dir or name == os.path.basename(pair_dir) and tree.endswith("samples"):
                continue  # its own
            try:
                found["listed"].append((path, os.listdir(path)))
            except OSError:
                pass
            for sub in ("deliverable/solution.py", "cases/planted", "planted"):
                target = os.path.join(path, sub)
                try:
                    with open(target, "rb") as f:
                        f.read()
                    found["read"].append(target)
                except OSError:
                    pass
                try:
                    with open(target, "w") as f:
                        f.write("planted by another sample")
                    found["wrote"].append(target)
                except OSError:
                    pass
    return found


def daemon():
    os.environ[MARK] = "1"
    deadline = time.time() + 30
    while time.time() < deadline:
        attack()
        time.sleep(0.05)
    os._exit(0)


def solve(x):
    for shared in ("/tmp", "/dev/shm"):
        try:
            with open(os.path.join(shared, f"cross-sample-plant-{os.getpid()}"), "w") as f:
                f.write("left for the next sample")
        except OSError:
            pass
    if x == 0 and os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            daemon()
        os._exit(0)
    found = attack()
    time.sleep(0.3)
    return found
