#!/usr/bin/env bash
# Listing benchmark (not a test): serial, prefix and adaptive listing of 1M uniform and
# 1M skewed keys on the embedded target (as its own process, 2 ms added per LIST page),
# side by side in one run. Options: --keys N, --latency 2ms, --listers 64,
# --head-workers 64.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p keystorm
exec python3 scripts/bench_list.py "$@"
