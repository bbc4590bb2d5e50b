#!/usr/bin/env bash
# Installs the web UI's npm packages (from package-lock.json) when they are missing or
# stale, and builds the UI into web/dist and the offline report into web/dist-report,
# which the keystorm binary embeds.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v npm >/dev/null 2>&1; then
  echo "error: npm is not installed; install Node.js 20 or newer (with npm) first" >&2
  exit 1
fi
# npm ci only when the lock file changed since the last install.
stamp=node_modules/.keystorm-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  npm ci --no-audit --no-fund
  cp package-lock.json "$stamp"
fi
npm run build
