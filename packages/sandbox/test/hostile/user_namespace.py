# Hostile deliverable: tries to make a user namespace of its own, where it would be "root" and could mount an
# uncapped tmpfs; by the unshare system call, by clone with CLONE_NEWUSER (util-linux's unshare -Ur) and by
# os.unshare where Python has it. Prints what each attempt got, as JSON.
import ctypes
import json
import os
import subprocess
import sys

CLONE_NEWUSER = 0x10000000
libc = ctypes.CDLL(None, use_errno=True)
results = {}
rc = libc.unshare(CLONE_NEWUSER)
results["unshare syscall"] = "created" if rc == 0 else os.strerror(ctypes.get_errno())
try:
    p = subprocess.run(["unshare", "-Ur", "sh", "-c", "mount -t tmpfs none /tmp && echo mounted"], capture_output=True, text=True)
    results["unshare -Ur"] = "created" if p.returncode == 0 else p.stderr.strip()
except OSError as e:
    results["unshare -Ur"] = str(e)
if hasattr(os, "unshare"):
    try:
        os.unshare(os.CLONE_NEWUSER)
        results["os.unshare"] = "created"
    except OSError as e:
        results["os.unshare"] = e.strerror
print(json.dumps(results))
