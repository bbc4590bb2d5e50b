#!/usr/bin/env bash
# The client benchmark (not a test): one table of keystorm's client CPU per operation
# (both S3 clients), the open loop, listing, big objects, key-file picks, verify, client
# RSS and sim memory, printed and written as JSON. --quick for a short run, --baseline
# REV to measure another revision side by side. How to read it: docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
case " $* " in
  *" -h "* | *" --help "*) ;;
  *) cargo build --release --locked -p keystorm ;;
esac
exec python3 scripts/bench_table.py "$@"
