#!/usr/bin/env bash
# Client benchmark (not a test): both S3 clients side by side in one run against the
# embedded target running as its own process on loopback, then client memory after
# filling 100k vs 2M keys. Prints a table; pass --quick for a short run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p keystorm
exec python3 scripts/bench_clients.py "$@"
