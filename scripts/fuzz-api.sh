#!/usr/bin/env bash
# Fuzzes the HTTP API of `keystorm serve` with schemathesis, driven by the API's own
# OpenAPI document: a bounded number of examples per operation, a fixed seed, every
# check schemathesis has. Passes only with no response >= 500, no response outside the
# document (status, content type, body schema) and no panic in the server's log.
#
# The server and schemathesis run in a network namespace of their own that has nothing
# but a loopback interface, so whatever endpoint a fuzzed `POST /api/runs` names, no
# request leaves the machine (nor reaches another server on its loopback). The server
# gets a temporary workloads folder with one tiny workload (the only workload a fuzzed
# run can start: 20 PUTs and 20 GETs of 1 KiB on the embedded target), a temporary
# results folder holding one finished run, a random token, small caps on the copies of
# agents' shard folders, and a cap on the size of any file it writes. Everything is
# removed at the end.
#
# The agent routes are fuzzed first, with an agent registered and a run split over it
# (its target is nowhere: the stand-in agent never runs it), so that the fuzzer's calls
# get past "unknown agent" and "unknown run" to what an agent sends; that run is then
# ended, and the per-run routes and the whole API are fuzzed as before.
#
# Environment: KEYSTORM_FUZZ_EXAMPLES (per operation and phase, default 100),
# KEYSTORM_FUZZ_SEED (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

examples=${KEYSTORM_FUZZ_EXAMPLES:-100}
seed=${KEYSTORM_FUZZ_SEED:-1}
venv=target/fuzz-venv
requirements=scripts/fuzz-requirements.txt

# --- inside the namespace: serve, fuzz, check the log -------------------------------
if [ "${1:-}" = "--inside" ]; then
  isolated=$2
  bin=$root/target/debug/keystorm
  st=$root/$venv/bin/schemathesis
  py=$root/$venv/bin/python
  if [ "$isolated" = yes ]; then
    ip link set lo up
  fi

  tmp=$(mktemp -d "${TMPDIR:-/tmp}/keystorm-fuzz.XXXXXX")
  server=
  cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
    rm -rf "$tmp"
  }
  trap cleanup EXIT
  mkdir -p "$tmp/workloads" "$tmp/results" "$tmp/out"
  cat >"$tmp/workloads/fuzz-tiny.yaml" <<'EOF'
# The only workload a fuzzed run can start: a few kilobytes on the embedded target.
name: fuzz-tiny
target: { endpoint: embedded }
buckets: { names: [fuzz-tiny] }
objects: { size: 1KiB }
before:
  - { name: fill, op: put, workers: 2, until_objects: 20 }
rounds:
  count: 1
  phases:
    - { name: read, op: get, workers: 2, operations: 20 }
EOF
  # A finished run, so the per-run routes are fuzzed against real result files.
  "$bin" run "$tmp/workloads/fuzz-tiny.yaml" --results "$tmp/results" --progress quiet \
    >"$tmp/out/seed-run.txt" 2>&1 || { cat "$tmp/out/seed-run.txt" >&2; exit 1; }
  run_id=$(ls "$tmp/results")

  KEYSTORM_FUZZ_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  export KEYSTORM_FUZZ_TOKEN
  : >"$tmp/out/serve.out"
  (
    # No file the server writes may pass 64 MiB.
    ulimit -f 65536
    exec env -u KEYSTORM_DEFAULT_ENDPOINT KEYSTORM_TOKEN="$KEYSTORM_FUZZ_TOKEN" "$bin" serve \
      --port 0 --workloads "$tmp/workloads" --results "$tmp/results" \
      --max-shard-file-size 128B --max-run-copy-size 1KiB
  ) >"$tmp/out/serve.out" 2>"$tmp/out/serve.log" &
  server=$!
  url=
  for _ in $(seq 300); do
    url=$(sed -n 's/.*serving \(http:[^ ]*\).*/\1/p' "$tmp/out/serve.out" | head -n1)
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "error: keystorm serve did not start:" >&2
    cat "$tmp/out/serve.out" "$tmp/out/serve.log" >&2
    exit 1
  fi

  # A stand-in agent and a run split over it, for the agent routes (`agent_seed start`),
  # and the end of that run once they were fuzzed (`agent_seed end AGENT RUN`).
  agent_seed() {
    "$py" - "$url" "$("$bin" --version | awk '{print $NF}')" "$@" <<'EOF'
import json, os, sys, time, urllib.request

url, version, step = sys.argv[1:4]
token = os.environ["KEYSTORM_FUZZ_TOKEN"]

def call(method, path, body=None, key=None):
    headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    if key:
        headers["X-Keystorm-Agent-Key"] = key
    request = urllib.request.Request(
        url + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers=headers)
    with urllib.request.urlopen(request) as response:
        text = response.read()
        return json.loads(text) if text else None

if step == "start":
    registered = call("POST", "/api/agents/register",
                      {"name": "fuzz-agent", "host": "fuzz", "version": version, "cores": 1})
    agent, key = registered["agent_id"], registered["agent_key"]
    call("POST", f"/api/agents/{agent}/heartbeat", {"sent_ms": 1}, key)
    run = call("POST", "/api/runs", {"workload": "fuzz-tiny", "agents": 1,
                                     "endpoint": "http://127.0.0.1:9"})["run_id"]
    # The key goes to a file only this script reads, never on a command line.
    with open(os.environ["KEYSTORM_FUZZ_AGENT_KEY_FILE"], "w") as f:
        f.write(key)
    print(agent, run)
else:
    agent, run = sys.argv[4:6]
    with open(os.environ["KEYSTORM_FUZZ_AGENT_KEY_FILE"]) as f:
        key = f.read()
    call("POST", f"/api/agents/{agent}/done", {"run_id": run}, key)
    for _ in range(300):
        if call("GET", "/api/agents")["run"]["state"] not in ("running", "stopping", "merging"):
            break
        time.sleep(0.1)
    else:
        sys.exit("the stand-in agent's run did not end")
EOF
  }
  KEYSTORM_FUZZ_AGENT_KEY_FILE="$tmp/agent-key"
  export KEYSTORM_FUZZ_AGENT_KEY_FILE
  read -r agent_id fleet_run < <(agent_seed start)
  # The stand-in agent's own calls carry its key (from the environment, as the token).
  KEYSTORM_FUZZ_AGENT_KEY=$(cat "$KEYSTORM_FUZZ_AGENT_KEY_FILE")
  export KEYSTORM_FUZZ_AGENT_KEY

  # The agent routes with the stand-in agent and its run, then the finished run (its
  # routes without DELETE, which would remove it), then the whole API. Without a
  # private network, no run is started at all.
  cp "$root/scripts/fuzz-api.toml" "$tmp/api.toml"
  cp "$root/scripts/fuzz-api.toml" "$tmp/seeded.toml"
  cp "$root/scripts/fuzz-api.toml" "$tmp/agents.toml"
  cat >>"$tmp/seeded.toml" <<EOF

[[operations]]
include-path-regex = '^/api/runs/\{id\}'
parameters = { "path.id" = "$run_id" }
EOF
  sed -i 's|^headers = { Authorization = "Bearer ${KEYSTORM_FUZZ_TOKEN}" }$|headers = { Authorization = "Bearer ${KEYSTORM_FUZZ_TOKEN}", X-Keystorm-Agent-Key = "${KEYSTORM_FUZZ_AGENT_KEY}" }|' \
    "$tmp/agents.toml"
  grep -q X-Keystorm-Agent-Key "$tmp/agents.toml" || {
    echo "error: scripts/fuzz-api.toml has no headers line to add the agent's key to" >&2
    exit 1
  }
  cat >>"$tmp/agents.toml" <<EOF

[[operations]]
include-path-regex = '^/api/agents/\{id\}/parts/'
parameters = { "path.id" = "$agent_id", "path.run" = "$fleet_run" }

[[operations]]
include-path-regex = '^/api/agents/\{id\}/[a-z]+$'
parameters = { "path.id" = "$agent_id" }
EOF
  exclude=()
  if [ "$isolated" != yes ]; then
    exclude=(--exclude-operation-id start_run)
  fi
  status=0
  for phase in agents seeded api; do
    case $phase in
      agents) select=(--include-path-regex '^/api/agents/\{id\}/') ;;
      seeded) select=(--include-path-regex '^/api/runs/\{id\}' --exclude-method DELETE) ;;
      *) select=("${exclude[@]}") ;;
    esac
    (cd "$tmp" && "$st" --config-file "$tmp/$phase.toml" run "$url/api/openapi.json" \
      --checks all --max-examples "$examples" --seed "$seed" \
      --generation-database none --no-color --wait-for-schema 30 \
      --report ndjson --report-ndjson-path "$tmp/out/$phase.ndjson" \
      "${select[@]}") >"$tmp/out/$phase.txt" 2>&1 || status=1
    if [ "$phase" = agents ]; then
      agent_seed end "$agent_id" "$fleet_run" || status=1
    fi
  done

  kill "$server"
  wait "$server" || true
  server=
  # Kept for a look afterwards (target/ is not tracked); the token is in none of them.
  rm -rf "$root/target/fuzz-api"
  cp -r "$tmp/out" "$root/target/fuzz-api"

  # Requests made and responses >= 500, from schemathesis's event log.
  read -r requests server_errors < <("$py" - "$tmp/out/agents.ndjson" "$tmp/out/seeded.ndjson" \
    "$tmp/out/api.ndjson" <<'EOF'
import json, sys

requests = errors = 0
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            event = json.loads(line)
            finished = event.get("ScenarioFinished")
            if not finished:
                continue
            for interaction in (finished["recorder"].get("interactions") or {}).values():
                requests += 1
                response = interaction.get("response") or {}
                if (response.get("status_code") or 0) >= 500:
                    errors += 1
print(requests, errors)
EOF
  )
  panics=$(grep -c panicked "$tmp/out/serve.log" || true)
  version=$("$st" --version | awk '{print $NF}')

  if [ "$status" != 0 ] || [ "$panics" != 0 ] || [ "$server_errors" != 0 ]; then
    for phase in agents seeded api; do
      echo "--- schemathesis, $phase phase" >&2
      cat "$tmp/out/$phase.txt" >&2
    done
    echo "--- keystorm serve log" >&2
    cat "$tmp/out/serve.log" >&2
    status=1
  fi
  network="private loopback"
  [ "$isolated" = yes ] || network="host loopback, POST /api/runs left out"
  verdict=passed
  [ "$status" = 0 ] || verdict=FAILED
  echo "fuzz-api: $verdict: schemathesis $version, $requests requests ($examples examples per operation, seed $seed, $network): $server_errors responses >= 500, $panics panics, schemathesis checks $( [ "$status" = 0 ] && echo clean || echo failed)"
  exit "$status"
fi

# --- outside: tools, binary, then the namespace --------------------------------------
# shellcheck source=lib/pinned-venv.sh
. scripts/lib/pinned-venv.sh
pinned_venv "$venv" "$requirements" schemathesis

cargo build --locked -q -p keystorm

# A network namespace with only loopback in it: as root directly, otherwise inside a
# user namespace. Where neither can be made, fuzz on the host's loopback without
# starting runs.
if [ "$(id -u)" = 0 ]; then
  netns=(unshare --net)
else
  netns=(unshare --net --map-root-user)
fi
if command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1 &&
  "${netns[@]}" true 2>/dev/null; then
  exec "${netns[@]}" "$0" --inside yes
fi
echo "warning: no network namespace could be made; POST /api/runs is left out" >&2
exec "$0" --inside no
