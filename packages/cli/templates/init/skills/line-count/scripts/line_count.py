"""Counts the lines and words of a text file and prints the result JSON (line-count skill)."""
import argparse
import json


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("text")
    parser.add_argument("--skip-blank", choices=["true", "false"], default="true")
    args = parser.parse_args()

    with open(args.text, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if args.skip_blank == "true":
        lines = [line for line in lines if line.strip()]
    print(json.dumps({
        "lines": len(lines),
        "words": sum(len(line.split()) for line in lines),
        "longest_line": max(lines, key=len, default=""),
    }))


if __name__ == "__main__":
    main()
