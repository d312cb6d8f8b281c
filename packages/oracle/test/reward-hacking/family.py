"""Helpers of the fixtures: the processes of this run's own harness tree, and nothing else.

The fixtures attack only their own family (the harness, its fork server, its case children), found from the
process's ancestry, so that at the weak levels, where the host's processes are visible and may share a uid, a
test never touches anything outside its own run.
"""
import os
import stat


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def start_time(pid):
    """The process's start time (field 22 of /proc/<pid>/stat), or None: a pid that was reused has another one."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def harness_pid():
    """The case child's parent is the fork server; its parent is the harness."""
    return parent_of(os.getppid())


def family(root):
    """`root` and every process below it; nothing when the root is unknown (0) or init (1)."""
    if root <= 1:
        return []
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            children.setdefault(parent_of(int(name)), []).append(int(name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def open_pipe_for_writing(path):
    """Opens `path` for writing only if it is a pipe (the protocol's kind of fd); None otherwise. A fixture never
    writes into a file: reopening a read-only fd through /proc for writing would overwrite the file itself."""
    try:
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return None
        return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return None
