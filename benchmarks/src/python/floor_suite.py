"""The floor grader: a whole suite graded with a fork per case and nothing else, to bound what any grader that
isolates each case in a process can reach on this machine.

    python3 floor_suite.py <tasks_dir> <samples.jsonl> <workers>

`workers` processes share the samples (sample i goes to worker i % workers). Per sample, the worker forks a process
that executes the sample's source once (as an import would) and then forks a child per case: the child calls the
function and writes the JSON of its result to a pipe; the sample's process compares it with the expected value.
No sandbox, no uid, no protocol, no runner, no limits, no report: every piece skillrig adds is left out, and the
expected values are in the process (the floor does not care about trust). Prints
{"samples", "samples_passed", "cases", "seconds"} (seconds: from the start of this script to the last result).
"""
import json
import os
import sys
import time

from fork_call import call_in_fork

started = time.perf_counter()
tasks_dir, samples_file, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])

tasks = {}
for name in os.listdir(tasks_dir):
    if name.endswith(".json"):
        with open(os.path.join(tasks_dir, name), encoding="utf-8") as handle:
            task = json.load(handle)
        tasks[task["task_id"]] = task
with open(samples_file, encoding="utf-8") as handle:
    samples = [json.loads(line) for line in handle if line.strip()]


def grade_sample(sample):
    """In a forked process: the sample's source executed once, then a fork per case. Returns the cases passed."""
    task = tasks[sample["task_id"]]
    namespace = {"__name__": "solution"}
    exec(compile(sample["solution"], "solution.py", "exec"), namespace)
    fn = namespace[task["entrypoint"]]
    passed = 0
    for case in task["tests"]:
        if call_in_fork(fn, case["input"]) == case["expected"]:
            passed += 1
    return passed


def worker(index):
    """Grades samples index, index + workers, ...; writes "samples_passed cases" to its pipe."""
    samples_passed = cases = 0
    for sample in samples[index::workers]:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            os.write(write_fd, str(grade_sample(sample)).encode())
            os._exit(0)
        os.close(write_fd)
        passed = int(os.read(read_fd, 64) or b"0")
        os.close(read_fd)
        os.waitpid(pid, 0)
        total = len(tasks[sample["task_id"]]["tests"])
        cases += total
        samples_passed += passed == total
    return samples_passed, cases


pipes = []
for index in range(workers):
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        os.write(write_fd, ("%d %d" % worker(index)).encode())
        os._exit(0)
    os.close(write_fd)
    pipes.append((pid, read_fd))
samples_passed = cases = 0
for pid, read_fd in pipes:
    passed, total = (int(x) for x in os.read(read_fd, 64).split())
    os.close(read_fd)
    os.waitpid(pid, 0)
    samples_passed += passed
    cases += total
json.dump(
    {"samples": len(samples), "samples_passed": samples_passed, "cases": cases, "seconds": time.perf_counter() - started},
    sys.stdout,
)
