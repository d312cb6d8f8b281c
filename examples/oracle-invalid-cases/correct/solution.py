def add(a, b):
    """Adds two numbers."""
    return a + b
