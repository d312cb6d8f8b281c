"""The floors' one way to run a call in a fork: the cheapest isolation of a case a grader can have."""
import json
import os


def call_in_fork(fn, args):
    """Forks a child that calls fn(*args) and writes the JSON of the result to a pipe; returns the decoded result."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        os.write(write_fd, json.dumps(fn(*args)).encode())
        os._exit(0)
    os.close(write_fd)
    return json.loads(read_and_reap(read_fd, pid))


def read_and_reap(read_fd, pid):
    """Reads a child's pipe to its end, closes it and reaps the child; returns the bytes read."""
    chunks = []
    while True:
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    os.waitpid(pid, 0)
    return b"".join(chunks)
