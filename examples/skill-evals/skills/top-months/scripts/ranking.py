"""Rank months by revenue: highest first, a tie broken by the earlier month (YYYY-MM sorts as text)."""


def top_months(rows, n):
    """rows: (month, revenue) pairs; returns the n best months, highest revenue first, ties by earlier month."""
    ranked = sorted(rows, key=lambda row: (-float(row[1]), row[0]))
    return [month for month, _ in ranked[: max(0, n)]]
