"""summarize_logs(lines, last_n_errors): counts log lines by level and service and keeps the latest errors.

Lines look like "2026-02-07 13:20:11 | ERROR | auth | invalid token" (timestamp | level | service | message).
Lines that do not have these four parts are counted as malformed and otherwise ignored.
"""
from collections import Counter


def summarize_logs(lines, last_n_errors):
    by_level = Counter()
    by_service = Counter()
    errors = []
    malformed = 0
    for line in lines:
        parts = [part.strip() for part in line.split("|", 3)]
        if len(parts) != 4 or not all(parts[:3]):
            malformed += 1
            continue
        timestamp, level, service, message = parts
        level = level.upper()
        by_level[level] += 1
        by_service[service] += 1
        if level == "ERROR":
            errors.append(f"{timestamp} {service}: {message}")
    return {
        "total": len(lines) - malformed,
        "malformed": malformed,
        "by_level": dict(sorted(by_level.items())),
        "by_service": dict(sorted(by_service.items())),
        "last_errors": errors[-last_n_errors:] if last_n_errors > 0 else [],
    }
