#!/usr/bin/env bash
# Builds keystorm (web UI included, release) and serves it with the demo workload
# running on the embedded S3 target. Open the printed address in a browser; Ctrl-C
# stops the run cleanly and exits. KEYSTORM_PORT picks the port (default 7878).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed; install Rust (https://rustup.rs) first" >&2
  exit 1
fi

scripts/web-build.sh
cargo build --release --locked -p keystorm
port="${KEYSTORM_PORT:-7878}"
echo "keystorm: open http://127.0.0.1:${port}/runs (the demo run is starting)"
exec target/release/keystorm serve --port "$port" --start demo "$@"
