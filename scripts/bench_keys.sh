#!/usr/bin/env bash
# Key file benchmark (not a test): `keystorm list --keys FILE.keys` of a bucket of 100k
# keys and one of 5M on the embedded target (its own process), side by side in one run:
# client peak RSS, the key file's bytes per key, listing speed. Options: --small N,
# --large N, --concurrency N.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p keystorm
exec python3 scripts/bench_keys.py "$@"
