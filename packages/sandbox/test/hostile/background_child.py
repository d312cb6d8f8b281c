# Hostile deliverable: leaves a detached grandchild (double fork + setsid) running after it exits.
import os
import sys
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        # Keep the marker (argv[1]) in the command line so the test can find us.
        os.execvp(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", sys.argv[1]])
    os._exit(0)
time.sleep(0.2)
print("parent done")
