# Hostile deliverable: writes to every path named in argv (outside its own folder) and reports each attempt.
import json
import sys

outcomes = {}
for target in sys.argv[2:]:  # argv[1] is the test's marker
    try:
        with open(target, "w") as f:
            f.write("escaped")
        outcomes[target] = "written"
    except OSError as error:
        outcomes[target] = f"refused: {error.strerror}"
print(json.dumps(outcomes))
