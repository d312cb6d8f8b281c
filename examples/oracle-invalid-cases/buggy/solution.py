def add(a, b):
    """Adds two numbers (buggy: subtracts)."""
    return a - b
