#!/usr/bin/env bash
# Simulator memory benchmark (not a test): `keystorm sim` in each storage mode, filled
# with 300,000 PUTs of 1 KiB by keystorm; prints the sim's resident memory before and
# after, per object. Options: --objects N, --size 1KiB, --bin PATH (another keystorm
# binary, e.g. an older build, to compare).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p keystorm
exec python3 scripts/bench_sim_memory.py "$@"
