"""The floor for a forked script or cli case: an interpreter that is already up runs a file as `__main__` in a fork
per case, with the case's argv and stdin, in a fresh folder, and nothing else.

    python3 fork_main.py <file> <cases> <stdin> <expected_stdout> [argv...]

Once, before the timed loop (what a sample host pays per sample, not per case): the interpreter starts, the file is
read and compiled. Per case, timed: a fresh folder holding a copy of the file, a fork that changes into it, gets the
case's stdin and argv, and executes the compiled file as `__main__` (as runpy.run_path would, without reading it
again); the parent feeds stdin, reads stdout to its end, reaps the child, compares stdout and removes the folder.
No sandbox, no uid, no limits, no protocol, no snapshot of the folder: every piece skillrig adds is left out.
Prints {"cases", "passed", "loop_seconds"} as JSON.
"""
import json
import os
import shutil
import sys
import tempfile
import time

from fork_call import read_and_reap

path, cases, stdin_text, expected = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
argv = [os.path.basename(path), *sys.argv[5:]]
with open(path, encoding="utf-8") as handle:
    source = handle.read()
code = compile(source, os.path.basename(path), "exec")
stdin_bytes = stdin_text.encode()
root = tempfile.mkdtemp(prefix="fork-main-")


def run_case(index):
    """One case in a fork; returns the stdout it wrote."""
    folder = os.path.join(root, f"case-{index}")
    os.mkdir(folder)
    shutil.copyfile(path, os.path.join(folder, os.path.basename(path)))
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        code_ = 0
        try:
            os.chdir(folder)
            os.dup2(in_read, 0)
            os.dup2(out_write, 1)
            for fd in (in_read, in_write, out_read, out_write):
                os.close(fd)
            sys.argv = argv
            namespace = {"__name__": "__main__", "__file__": os.path.join(folder, argv[0]), "__builtins__": __builtins__}
            try:
                exec(code, namespace)
            except SystemExit as stop:
                code_ = stop.code if isinstance(stop.code, int) else 1
            sys.stdout.flush()
        finally:
            os._exit(code_)
    os.close(in_read)
    os.close(out_write)
    os.write(in_write, stdin_bytes)
    os.close(in_write)
    stdout = read_and_reap(out_read, pid)
    shutil.rmtree(folder)
    return stdout.decode()


started = time.perf_counter()
passed = sum(run_case(i) == expected for i in range(cases))
elapsed = time.perf_counter() - started
shutil.rmtree(root, ignore_errors=True)
json.dump({"cases": cases, "passed": passed, "loop_seconds": elapsed}, sys.stdout)
