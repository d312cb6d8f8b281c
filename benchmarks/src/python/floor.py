"""The floor: the same calls in one Python process with no runner, no isolation, no protocol.

Imports the deliverable once, then times only the loop that calls fn(*input) for every case and
compares with `expected`. Prints {"cases", "passed", "loop_seconds"} as JSON.
"""
import importlib.util
import json
import sys
import time

module_path, function_name, task_path = sys.argv[1], sys.argv[2], sys.argv[3]
spec = importlib.util.spec_from_file_location("deliverable", module_path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
fn = getattr(module, function_name)
with open(task_path, encoding="utf-8") as handle:
    tests = json.load(handle)["tests"]

started = time.perf_counter()
passed = 0
for case in tests:
    if fn(*case["input"]) == case["expected"]:
        passed += 1
elapsed = time.perf_counter() - started
json.dump({"cases": len(tests), "passed": passed, "loop_seconds": elapsed}, sys.stdout)
