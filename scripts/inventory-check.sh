#!/usr/bin/env bash
# A million-key Parquet inventory read back by another Parquet implementation: pyarrow
# (pinned in scripts/inventory-requirements.txt, installed into target/inventory-venv)
# checks that `keystorm list --keys FILE.parquet` of a bucket of 1,000,000 objects on
# the embedded target holds every key once with its size and ETag, and that a --head
# inventory's metadata map reads back (server/app/tests/inventory_pyarrow.rs runs the
# listings, scripts/check_inventory.py reads the files). Fails when a key is missing,
# repeated or wrong. The files live in a temporary folder, removed afterwards.
#
# The same test runs inside scripts/test.sh's `cargo test`; this runs it alone.
# Arguments go to `cargo test` in place of the default `-p keystorm --features
# keystorm/pyarrow-tests`. Environment: KEYSTORM_INVENTORY_KEYS (objects in the big
# bucket, default 1000000).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
venv=target/inventory-venv

# shellcheck source=lib/pinned-venv.sh
. scripts/lib/pinned-venv.sh
pinned_venv "$venv" scripts/inventory-requirements.txt python
"$venv/bin/python" -c 'import pyarrow.parquet' || {
  echo "error: pyarrow does not import in $venv" >&2
  exit 1
}

[ $# -gt 0 ] || set -- -p keystorm --features keystorm/pyarrow-tests
KEYSTORM_PYARROW_PYTHON="$root/$venv/bin/python" \
  exec cargo test --locked "$@" --test inventory_pyarrow -- --nocapture
