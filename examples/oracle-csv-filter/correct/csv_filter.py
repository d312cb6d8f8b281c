"""Keep the rows of a CSV file whose column equals a value: --in data.csv --out out.csv --col status --eq DONE"""
import argparse
import csv
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--in", dest="src", required=True)
    parser.add_argument("--out", dest="dst", required=True)
    parser.add_argument("--col", required=True)
    parser.add_argument("--eq", required=True)
    args = parser.parse_args(argv)

    with open(args.src, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames or []
        if args.col not in fields:
            print(f"error: column {args.col!r} not found in {args.src} (columns: {', '.join(fields)})", file=sys.stderr)
            return 2
        rows = list(reader)
    kept = [row for row in rows if row[args.col] == args.eq]

    with open(args.dst, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(kept)
    print(f"kept {len(kept)} of {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
