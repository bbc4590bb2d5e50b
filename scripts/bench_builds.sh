#!/usr/bin/env bash
# Build benchmark (not a test): client CPU per request of this checkout against an
# earlier commit, side by side in one run. The earlier commit is built in a worktree of
# its own under target/bench-builds/. Usage: scripts/bench_builds.sh REV [--ops N]
# [--workers N] [--repeats N].
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:?usage: scripts/bench_builds.sh REV [options]}"
shift
commit="$(git rev-parse --verify "$rev^{commit}")"
tree="target/bench-builds/$commit"
if [ ! -x "$tree/target/release/keystorm" ]; then
  [ -d "$tree" ] || git worktree add --detach "$tree" "$commit"
  (cd "$tree" && cargo build --release --locked -p keystorm)
fi
cargo build --release --locked -p keystorm
exec python3 scripts/bench_builds.py --before "$tree/target/release/keystorm" "$@"
