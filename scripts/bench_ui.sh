#!/usr/bin/env bash
# Benchmark (not a test): run-detail render time of a 50-round run in Chromium, and API
# p99 latency while a max-rate run saturates the client. Release build, loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/web-build.sh
cargo build --release --locked -p keystorm
exec node web/bench/ui-bench.mjs
