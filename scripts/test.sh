#!/usr/bin/env bash
# The whole test suite: formatting, lints, the Rust tests against real servers on
# loopback (the embedded S3 target, started by the tests themselves), the web UI's unit
# tests, and the end-to-end tests in Debian's Chromium against the real binary.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed; install Rust (https://rustup.rs) first" >&2
  exit 1
fi

step() { printf '\n==> %s\n' "$*"; }

step "web UI: npm packages and build"
scripts/web-build.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --locked --workspace --all-targets -- -D warnings

step "cargo test"
mkdir -p target
cargo test --locked --workspace 2>&1 | tee target/test-output.txt

# One closing line over all test binaries.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^failed/) f += $(i-1); if ($i ~ /^ignored/) g += $(i-1) } }
     END { printf "\nrust: %d passed, %d failed\n", p, f; if (f > 0) exit 1 }' target/test-output.txt

step "web UI: typecheck and unit tests (vitest)"
npm run typecheck
npm test

step "web UI: end-to-end (Playwright in Chromium)"
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium ||
      { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }
  else
    echo "error: /usr/bin/chromium is missing; install it (apt-get install chromium)" >&2
    exit 1
  fi
fi
cargo build --locked -p keystorm
npm run e2e
