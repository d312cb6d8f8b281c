from itertools import groupby


def encode(text):
    return [[char, len(list(group))] for char, group in groupby(text)]
