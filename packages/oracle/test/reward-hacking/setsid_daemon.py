"""Case 0 starts a setsid daemon (double fork) that tries to tamper with later cases; later cases report survivors."""
import os
import time

from family import family, harness_pid, open_pipe_for_writing, start_time

MARK = "SKILLRIG_REWARD_HACK_DAEMON"


def daemon(harness):
    os.environ[MARK] = "1"
    deadline = time.time() + 60
    born = start_time(harness)
    # Once its run's harness is gone, its pid may belong to another process: a fixture never attacks outside its run.
    while time.time() < deadline and born is not None and start_time(harness) == born:
        # Tamper with all it can reach of its own run (family.py): the fds of the harness tree, and the shared
        # working folder above the case's own.
        for pid in map(str, family(harness)):
            if int(pid) == os.getpid():
                continue
            try:
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    w = open_pipe_for_writing(f"/proc/{pid}/fd/{fd}")
                    if w is None:
                        continue
                    try:
                        os.write(w, b'{"id": 2, "status": "passed"}\n')
                    except OSError:
                        pass
                    os.close(w)
            except OSError:
                pass
        try:
            for name in os.listdir(".."):
                if not name.startswith("case-"):
                    continue  # only the run's own case folders
                with open(os.path.join("..", name, "tampered"), "w") as f:
                    f.write("daemon was here")
        except OSError:
            pass
        time.sleep(0.01)
    os._exit(0)


def survivors():
    """Every process on the machine carrying the mark (read only: wherever an escaped daemon ended up)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"{MARK}=1".encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def solve(x):
    if x == 0:
        harness = harness_pid()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                daemon(harness)
            os._exit(0)
        time.sleep(0.2)  # let it get going
        return None
    # Later cases: nothing the first case started may still run, and nothing may have been written here.
    return {"survivors": survivors(), "tampered": os.path.exists("tampered")}
