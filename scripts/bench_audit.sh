#!/usr/bin/env bash
# Audit benchmark (not a test): client memory and speed of `op: audit` over a bucket of
# 100k keys and one of 5M keys on the embedded target (its own process), side by side
# in one run. Options: --small N, --large N, --listers N.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p keystorm
exec python3 scripts/bench_audit.py "$@"
