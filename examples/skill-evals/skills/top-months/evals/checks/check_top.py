"""Exit 0 when top_months.json (in the current folder: the run's outputs) ranks the eval's CSV correctly."""
import csv
import json
import os
import sys

csv_file = os.path.join(os.environ["SKILLRIG_EVALS_DIR"], "files", "sales_2025.csv")
with open(csv_file, newline="", encoding="utf-8") as handle:
    rows = [(r["month"], float(r["revenue"].replace(",", ""))) for r in csv.DictReader(handle)]
expected = [m for m, _ in sorted(rows, key=lambda r: (-r[1], r[0]))[:3]]
try:
    with open("top_months.json", encoding="utf-8") as handle:
        got = [entry["month"] for entry in json.load(handle)]
except (OSError, ValueError, TypeError, KeyError) as error:
    sys.exit(f"top_months.json is not a list of {{month, revenue}}: {error}")
if got != expected:
    sys.exit(f"ranked {got}, expected {expected}")
print(f"ranked {got}")
