# A stand-in for the function plugin's harness: JSON lines in, JSON lines out, one request at a time.
import json
import os
import sys
import time

for line in sys.stdin:
    request = json.loads(line)
    op = request["op"]
    if op == "echo":
        reply = {"echo": request["value"]}
    elif op == "detach":
        # A grandchild in its own session, as a case that leaves work behind would create.
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", request["marker"]])
            os._exit(0)
        time.sleep(0.1)
        reply = {"detached": True}
    elif op == "allocate":
        try:
            block = bytearray(request["bytes"])
            reply = {"allocated": len(block)}
        except MemoryError:
            reply = {"error": "MemoryError"}
    else:
        reply = {"error": f"unknown op {op}"}
    print(json.dumps(reply), flush=True)
