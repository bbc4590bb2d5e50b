#!/usr/bin/env bash
# The whole test suite: formatting, lints, and every test against real servers on
# loopback (the embedded S3 target, started by the tests themselves).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed; install Rust (https://rustup.rs) first" >&2
  exit 1
fi

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --locked --workspace --all-targets -- -D warnings

step "cargo test"
cargo test --locked --workspace 2>&1 | tee target/test-output.txt

# One closing line over all test binaries.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^failed/) f += $(i-1); if ($i ~ /^ignored/) g += $(i-1) } }
     END { printf "\nrust: %d passed, %d failed\n", p, f; if (f > 0) exit 1 }' target/test-output.txt
