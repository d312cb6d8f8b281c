"""Reads receipt.txt and prints an itemised receipt (buggy: only knows the "x2" form, sums floats, no receipt.json)."""
import sys


def main():
    total = 0.0
    with open("receipt.txt", encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if not line:
                continue
            name, qty, price = line.split()  # "BANANA*1 3.2" has two fields: ValueError
            qty = int(qty.lstrip("x"))
            amount = qty * float(price)
            total += amount
            print(f"{name} {qty} x {float(price):.2f} = {amount:.2f}")
    print(f"TOTAL {total:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
