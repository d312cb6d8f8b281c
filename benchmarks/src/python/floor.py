"""The floors: the same calls in one Python process with no runner and no protocol.

Imports the deliverable once, then times only the loop over the cases, comparing each result with `expected`:
- mode "call": fn(*input) is called in this process: no isolation at all; nothing can be faster.
- mode "fork": a child is forked per case; it calls fn(*input) and writes the JSON of the result to a pipe, the
  parent reads it, reaps the child and compares, one case at a time. This is the cheapest way to give every case
  its own copy of the module state, so it bounds what a fork-per-case runner can reach on this machine.
Prints {"cases", "passed", "loop_seconds"} as JSON.
"""
import importlib.util
import json
import sys
import time

from fork_call import call_in_fork

module_path, function_name, task_path, mode = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
spec = importlib.util.spec_from_file_location("deliverable", module_path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
fn = getattr(module, function_name)
with open(task_path, encoding="utf-8") as handle:
    tests = json.load(handle)["tests"]


call = (lambda args: call_in_fork(fn, args)) if mode == "fork" else (lambda args: fn(*args))
started = time.perf_counter()
passed = 0
for case in tests:
    if call(case["input"]) == case["expected"]:
        passed += 1
elapsed = time.perf_counter() - started
json.dump({"cases": len(tests), "passed": passed, "loop_seconds": elapsed}, sys.stdout)
