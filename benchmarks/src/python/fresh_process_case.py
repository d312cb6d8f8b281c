"""The fresh-process baseline: what common grading harnesses do for each test case.

Start a new interpreter, import the deliverable from its file, read one case from stdin,
call fn(*input), print the JSON of the result. The caller compares it with `expected`.
"""
import importlib.util
import json
import sys

module_path, function_name = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("deliverable", module_path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
case = json.load(sys.stdin)
result = getattr(module, function_name)(*case["input"])
json.dump({"result": result}, sys.stdout)
