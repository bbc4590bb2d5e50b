#!/usr/bin/env bash
# Agents benchmark (not a test): an agent's memory as its shard grows from 100,000 to
# 10,000,000 keys (one fresh agent per size, filling through a controller against
# `keystorm sim --storage size-only`), and the controller's CPU per agent heartbeat
# with 16 agents connected, then per agent-interval while they run a mix and the
# controller merges their intervals live. Options: --counts 100000,1000000,10000000, --agents 16,
# --seconds 20.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p keystorm
exec python3 scripts/bench_agents.py "$@"
