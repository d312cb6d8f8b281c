"""greet.py --name NAME [--shout]: prints a greeting."""
import argparse

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--name", required=True)
parser.add_argument("--shout", action="store_true")
args = parser.parse_args()
text = f"hello {args.name}"
print(text.upper() if args.shout else text)
