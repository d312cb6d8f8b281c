#!/usr/bin/env bash
# Installs the system packages skillrig's sandbox and tests use, from Debian's packages, when missing.
# bubblewrap: the namespace sandbox for deliverable code (see docs/sandbox.md).
# redis-server: the broker of the jobs server's redis backend; its tests start their own on a loopback port (docs/server.md).
# Safe to run again: it installs only what is missing, and only when it can (root with apt-get).
set -euo pipefail
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
if [ "${SKILLRIG_WITH_BROWSER:-}" = 1 ]; then command -v chromium >/dev/null 2>&1 || need+=(chromium); fi
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup-system: installing ${need[*]}" >&2
  (apt-get update -qq || true) >/dev/null 2>&1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "setup-system: missing ${need[*]}; install them with your package manager (skillrig falls back to weaker isolation and says so)" >&2
fi
