"""summarize_logs(lines, last_n_errors) (buggy: trusts every line, and errors[-0:] keeps them all)."""


def summarize_logs(lines, last_n_errors):
    by_level = {}
    by_service = {}
    errors = []
    for line in lines:
        timestamp, level, service, message = [p.strip() for p in line.split("|")]  # ValueError on a malformed line
        by_level[level] = by_level.get(level, 0) + 1
        by_service[service] = by_service.get(service, 0) + 1
        if level == "ERROR":
            errors.append(f"{timestamp} {service}: {message}")
    return {
        "total": len(lines),
        "malformed": 0,
        "by_level": by_level,
        "by_service": by_service,
        "last_errors": errors[-last_n_errors:],
    }
