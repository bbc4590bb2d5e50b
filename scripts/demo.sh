#!/usr/bin/env bash
# Builds keystorm (release) and runs the demo workload on the embedded S3 target.
# Extra arguments go to `keystorm run`, e.g. --endpoint http://127.0.0.1:9000
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed; install Rust (https://rustup.rs) first" >&2
  exit 1
fi

cargo build --release --locked -p keystorm
exec target/release/keystorm run workloads/demo.yaml "$@"
