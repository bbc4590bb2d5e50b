#!/usr/bin/env bash
# Timing benchmark (not a test): open-loop send times and the embedded target's injected
# delays, asked against delivered. Pass --baseline BIN to measure another keystorm
# binary side by side in the same run; --quick for short phases.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p keystorm
exec python3 scripts/bench_timing.py "$@"
