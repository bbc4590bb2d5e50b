#!/usr/bin/env bash
# Repeatability benchmark (not a test): how often `keystorm compare` calls a change
# where there is none (A/A pairs: one workload run twice at once against one target)
# and how often it finds one that is there (A/B pairs: against a target and one 2 ms
# slower per GET). Options: --pairs N (A/A pairs, default 20), --ab N (default 5),
# --sequential (A/A runs one after the other instead of at once), --seconds S.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p keystorm
exec python3 scripts/bench_repeatability.py "$@"
