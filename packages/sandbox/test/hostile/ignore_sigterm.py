# Hostile deliverable: ignores the polite signals and sleeps past any deadline.
import signal
import time

for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, signal.SIG_IGN)
print("ignoring SIGTERM", flush=True)
while True:
    time.sleep(1)
