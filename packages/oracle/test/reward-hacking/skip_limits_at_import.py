"""At import: replaces resource.setrlimit (and prlimit) with functions that do nothing, so that a case child forked from
this import would set no CPU or memory limit of its own; then each case burns 3 s of CPU before answering right. With
a CPU limit of 1 s per case, a right answer after 3 s of CPU must still be a timeout."""
import resource
import time

resource.setrlimit = lambda *args, **kwargs: None
resource.prlimit = lambda *args, **kwargs: (resource.RLIM_INFINITY, resource.RLIM_INFINITY)


def solve(x):
    end = time.process_time() + 3
    while time.process_time() < end:
        pass
    return x
