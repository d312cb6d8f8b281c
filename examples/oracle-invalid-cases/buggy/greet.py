"""greet.py --name NAME [--shout]: prints a greeting (buggy: ignores --shout)."""
import argparse

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--name", required=True)
parser.add_argument("--shout", action="store_true")
args = parser.parse_args()
print(f"hello {args.name}")
