"""Reports what Python received and returns values JSON and Python disagree about, for value-fidelity.test.ts."""
import math


def any_int(x, y, z):
    """HumanEval/92's reference solution."""
    if isinstance(x, int) and isinstance(y, int) and isinstance(z, int):
        if (x + y == z) or (x + z == y) or (y + z == x):
            return True
        return False
    return False


def probe(kind, x):
    if kind == "type":
        return [type(x).__name__, x]
    if kind == "plus one":
        return x + 1
    if kind == "plus one as float":
        return float(x) + 1
    if kind == "power of ten":
        return 10**x
    if kind == "nan":
        return math.nan
    if kind == "inf":
        return math.inf
    if kind == "tuple":
        return (x, (x, [x]))
    if kind == "int keys":
        return {1: x, "two": {3: [x]}}
    if kind == "echo":
        return x
    if kind == "set":
        return {x}
    raise ValueError(kind)
