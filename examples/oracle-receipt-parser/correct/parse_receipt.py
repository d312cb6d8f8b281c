"""Reads receipt.txt from the working folder and prints an itemised receipt with its total.

Each non-blank line is an item: NAME, a quantity written "x2" or "*2", then the unit price, e.g.
    苹果 x2  7.50
    BANANA*1 3.2
It prints one line per item ("NAME QTY x PRICE = AMOUNT") and a TOTAL line, and writes receipt.json.
"""
import json
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

LINE = re.compile(r"^\s*(?P<name>.+?)\s*(?:x|\*)\s*(?P<qty>\d+)\s+(?P<price>\d+(?:\.\d+)?)\s*$")
CENT = Decimal("0.01")


def parse(text):
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        match = LINE.match(line)
        if not match:
            raise ValueError(f"line {number} is not an item: {line!r}")
        qty = int(match["qty"])
        price = Decimal(match["price"])
        items.append({"name": match["name"], "qty": qty, "price": price, "amount": (price * qty).quantize(CENT, ROUND_HALF_UP)})
    return items


def main():
    try:
        with open("receipt.txt", encoding="utf-8") as f:
            items = parse(f.read())
    except FileNotFoundError:
        print("error: receipt.txt not found in the working folder", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    total = sum((item["amount"] for item in items), Decimal("0")).quantize(CENT)
    for item in items:
        print(f"{item['name']} {item['qty']} x {item['price'].quantize(CENT)} = {item['amount']}")
    print(f"TOTAL {total}")
    with open("receipt.json", "w", encoding="utf-8") as f:
        json.dump(
            {"items": [{"name": i["name"], "qty": i["qty"], "amount": float(i["amount"])} for i in items], "total": float(total)},
            f,
            ensure_ascii=False,
            indent=2,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
