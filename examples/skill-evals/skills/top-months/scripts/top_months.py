"""Print the top months of a sales CSV (columns month, revenue); --json writes them as a JSON list."""
import argparse
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ranking import top_months  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("csv_file")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--json", dest="json_file")
    args = parser.parse_args()
    with open(args.csv_file, newline="", encoding="utf-8") as handle:
        rows = [(r["month"].strip(), float(r["revenue"].replace(",", ""))) for r in csv.DictReader(handle)]
    revenue = dict(rows)
    best = top_months(rows, args.top)
    for rank, month in enumerate(best, 1):
        print(f"{rank}. {month}  {revenue[month]:,.2f}")
    if args.json_file:
        with open(args.json_file, "w", encoding="utf-8") as out:
            json.dump([{"month": m, "revenue": revenue[m]} for m in best], out, indent=2)
            out.write("\n")


if __name__ == "__main__":
    main()
