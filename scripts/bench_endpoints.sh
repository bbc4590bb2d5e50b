#!/usr/bin/env bash
# Endpoint benchmark (not a test): client CPU per request driving one endpoint against
# eight (per worker and round robin) of one `keystorm sim --ports` target, side by side
# in one run. Options: --ops N, --workers N, --repeats N.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p keystorm
exec python3 scripts/bench_endpoints.py "$@"
