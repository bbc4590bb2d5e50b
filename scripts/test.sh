#!/usr/bin/env bash
# The whole test suite: formatting, lints, the Rust tests against real servers on
# loopback (the embedded S3 target, started by the tests themselves, and a throwaway
# single-node Ceph cluster with two RGW gateways from scripts/ceph-up.sh, stopped again
# when this script exits; its rgw.env, exported as KEYSTORM_RGW_ENV, also says how to
# kill and restart gateway 2),
# (among them a million-key Parquet inventory read back with pyarrow, installed pinned),
# the HTTP API fuzzed with schemathesis (scripts/fuzz-api.sh), the Kubernetes manifests
# against the API schemas (scripts/validate-deploy.sh), the web UI's unit tests,
# and the end-to-end tests in Debian's Chromium against the real binary.
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

# The tests against a real Ceph RGW, those that cut hosts off in network namespaces
# (they need root and iproute2) and those that read inventories with pyarrow are
# compiled in with these features.
rgw_features="keystorm-sim/rgw-tests,keystorm-engine/rgw-tests,keystorm/rgw-tests,keystorm/netns-tests,keystorm/pyarrow-tests"

# What the tests run besides keystorm: `ip` (network namespaces), `openssl` (the
# self-signed pair `keystorm serve` suggests).
missing=()
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
      { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; }
  else
    echo "error: the tests need ${missing[*]}; install them (apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi
if [ "$(id -u)" != 0 ]; then
  echo "error: the partition tests make network namespaces, which needs root" >&2
  exit 1
fi

step "cargo clippy (warnings are errors)"
cargo clippy --locked --workspace --all-targets --features "$rgw_features" -- -D warnings

step "Ceph RGW on loopback (scripts/ceph-up.sh)"
export KEYSTORM_CEPH_DIR="${KEYSTORM_CEPH_DIR:-${TMPDIR:-/tmp}/keystorm-ceph}"
trap 'scripts/ceph-down.sh' EXIT
mkdir -p target
scripts/ceph-up.sh 2>&1 | tee target/ceph-up.log
# A shell mistake in the script (a stray backtick, an unset command) must not pass quietly.
if grep -q "command not found" target/ceph-up.log; then
  echo "error: scripts/ceph-up.sh ran into a shell error (see target/ceph-up.log)" >&2
  exit 1
fi
export KEYSTORM_RGW_ENV="$KEYSTORM_CEPH_DIR/rgw.env"
set -a
# shellcheck source=/dev/null
. "$KEYSTORM_RGW_ENV"
set +a

step "pyarrow for reading inventories back (target/inventory-venv)"
# shellcheck source=lib/pinned-venv.sh
. scripts/lib/pinned-venv.sh
pinned_venv target/inventory-venv scripts/inventory-requirements.txt python
export KEYSTORM_PYARROW_PYTHON="$PWD/target/inventory-venv/bin/python"

step "cargo test"
# Every test binary runs, so a failure does not hide the results of the others.
set +e
cargo test --locked --no-fail-fast --workspace --features "$rgw_features" 2>&1 | tee target/test-output.txt
tested=${PIPESTATUS[0]}
set -e

# One closing line over all test binaries.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^failed/) f += $(i-1); if ($i ~ /^ignored/) g += $(i-1) } }
     END { printf "\nrust: %d passed, %d failed\n", p, f; if (f > 0) exit 1 }' target/test-output.txt
if [ "$tested" != 0 ]; then
  echo "error: cargo test failed (see above)" >&2
  exit 1
fi

# The cluster is only for the Rust tests: free its CPU and memory for the web steps.
scripts/ceph-down.sh
trap - EXIT

step "HTTP API fuzzing (schemathesis against keystorm serve)"
scripts/fuzz-api.sh

step "deployment manifests (kubernetes-validate, strict)"
scripts/validate-deploy.sh

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
