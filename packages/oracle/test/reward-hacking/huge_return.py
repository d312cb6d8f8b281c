"""Returns a value whose JSON text is far past the cap."""


def solve(x):
    return "passed" * 1_000_000
