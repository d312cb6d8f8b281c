# Hostile deliverable: deletes its own case folder, then tries to remove the folder itself.
import os
import shutil

here = os.getcwd()
for entry in os.listdir(here):
    path = os.path.join(here, entry)
    if os.path.isdir(path):
        shutil.rmtree(path)
    else:
        os.remove(path)
try:
    os.rmdir(here)
    print("folder removed")
except OSError as error:
    print(f"folder kept: {error.strerror}")
