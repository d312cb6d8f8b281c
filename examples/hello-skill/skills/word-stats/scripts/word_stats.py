"""Counts the words of a text file; writes a Markdown report and prints the result JSON (word-stats skill)."""
import argparse
import collections
import json
import re


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("text")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--min-length", type=int, default=1)
    parser.add_argument("--report", required=True)
    args = parser.parse_args()

    with open(args.text, encoding="utf-8") as f:
        words = [w for w in re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", f.read().lower()) if len(w) >= args.min_length]
    counts = collections.Counter(words)
    # Ties broken alphabetically so the result does not depend on the text's order.
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: args.top]

    lines = ["# Word statistics", "", f"{len(words)} words, {len(counts)} distinct.", "", "| word | count |", "| --- | --- |"]
    lines += [f"| {w} | {c} |" for w, c in top]
    with open(args.report, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")

    print(json.dumps({
        "report_path": args.report,
        "total_words": len(words),
        "unique_words": len(counts),
        "top_words": [{"word": w, "count": c} for w, c in top],
    }))


if __name__ == "__main__":
    main()
