#!/usr/bin/env bash
# Key file benchmark (not a test): `keystorm list --keys FILE.keys` of a bucket of 100k
# keys and one of 5M on the embedded target (its own process), side by side in one run:
# client peak RSS, the key file's bytes per key, listing speed; then GETs picked from
# each key file beside GETs of the keyspace: peak RSS, GETs/s, client CPU per GET.
# Picks without S3: `cargo bench -p keystorm-engine --bench key_picks`. Options:
# --small N, --large N, --listers N, --gets N, --workers N.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p keystorm
exec python3 scripts/bench_keys.py "$@"
