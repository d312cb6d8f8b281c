"""Keep the rows of a CSV file whose column equals a value (buggy: splits on commas by hand, matches substrings)."""
import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--in", dest="src", required=True)
    parser.add_argument("--out", dest="dst", required=True)
    parser.add_argument("--col", required=True)
    parser.add_argument("--eq", required=True)
    args = parser.parse_args(argv)

    with open(args.src, encoding="utf-8") as f:
        lines = f.read().splitlines()
    header = lines[0].split(",")
    col = header.index(args.col)  # ValueError (a traceback) when the column is missing
    rows = [line.split(",") for line in lines[1:]]
    kept = [row for row in rows if args.eq in row[col]]  # substring: "UNDONE" matches "DONE"

    with open(args.dst, "w", encoding="utf-8") as f:
        f.write(",".join(header) + "\n")
        for row in kept:
            f.write(",".join(row) + "\n")
    print(f"kept {len(kept)} of {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
