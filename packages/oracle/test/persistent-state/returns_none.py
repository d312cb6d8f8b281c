# Solves nothing: every call returns None. It may pass only through a poisoned harness.
def solve(x):
    return None
