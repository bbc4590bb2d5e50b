#!/usr/bin/env bash
# Validates the Kubernetes manifests in deploy/kubernetes/ against the Kubernetes API
# schemas (kubernetes-validate, strict: unknown fields are errors; no cluster needed),
# checks that each Indexed Job runs as many shards as it has completions, that the
# controller serves HTTPS from a mounted Secret and the agents dial it over https with
# a CA file, and that the workloads the manifests carry are workloads keystorm accepts.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/deploy-venv
requirements=scripts/deploy-requirements.txt
# shellcheck source=lib/pinned-venv.sh
. scripts/lib/pinned-venv.sh
pinned_venv "$venv" "$requirements" kubernetes-validate

manifests=(deploy/kubernetes/*.yaml)
"$venv/bin/kubernetes-validate" --strict --quiet "${manifests[@]}"

cargo build --locked --quiet -p keystorm
tmp=$(mktemp -d "${TMPDIR:-/tmp}/keystorm-deploy.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$venv/bin/python" - "$tmp" "${manifests[@]}" <<'PY'
import re, sys, yaml
out, files = sys.argv[1], sys.argv[2:]
problems, workloads, commands = [], 0, []
for path in files:
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    for doc in docs:
        kind, name = doc.get("kind"), doc.get("metadata", {}).get("name")
        if kind == "ConfigMap":
            for key, text in (doc.get("data") or {}).items():
                if key.endswith((".yaml", ".yml")):
                    workloads += 1
                    with open(f"{out}/{name}-{key}", "w") as w:
                        w.write(text)
        if kind == "Job" and doc["spec"].get("completionMode") == "Indexed":
            spec = doc["spec"]
            for c in spec["template"]["spec"]["containers"]:
                args = c.get("args", [])
                shard = args[args.index("--shard") + 1] if "--shard" in args else None
                m = re.fullmatch(r"\$\(JOB_COMPLETION_INDEX\)/(\d+)", shard or "")
                if not m:
                    problems.append(f"{path}: job {name}: --shard is not $(JOB_COMPLETION_INDEX)/N")
                elif not int(m.group(1)) == spec["completions"] == spec["parallelism"]:
                    problems.append(
                        f"{path}: job {name}: --shard .../{m.group(1)} but completions "
                        f"{spec['completions']} and parallelism {spec['parallelism']}")
        if kind in ("StatefulSet", "Deployment"):
            for c in doc["spec"]["template"]["spec"]["containers"]:
                args = c.get("args", [])
                if args[:1] == ["agent"]:
                    controller = args[args.index("--controller") + 1]
                    if controller != "https://keystorm:7878":
                        problems.append(f"{path}: {kind} {name}: agents dial {controller}, the controller's Service is https://keystorm:7878")
                    if "--ca-file" not in args:
                        problems.append(f"{path}: {kind} {name}: agents need --ca-file to trust the controller's certificate")
                    if "--name" not in args:
                        problems.append(f"{path}: {kind} {name}: agents need stable names (--name $(POD_NAME)) to take their shard back")
                    commands.append(args)
                elif args[:1] == ["serve"]:
                    if "--tls-cert" not in args or "--tls-key" not in args:
                        problems.append(f"{path}: {kind} {name}: the controller binds beyond loopback: it serves --tls-cert/--tls-key")
                    mounted = {m["mountPath"] for m in c.get("volumeMounts", [])}
                    for flag in ("--tls-cert", "--tls-key"):
                        if flag in args and not any(args[args.index(flag) + 1].startswith(m + "/") for m in mounted):
                            problems.append(f"{path}: {kind} {name}: {flag} {args[args.index(flag) + 1]} is on no mounted volume")
                    commands.append(args)
if problems:
    sys.exit("\n".join(problems))
with open(f"{out}/commands.txt", "w") as w:
    for args in commands:
        w.write("\t".join(args) + "\n")
print(f"validate-deploy: {len(files)} manifest file(s) valid (strict); {workloads} workload(s) extracted")
PY
for w in "$tmp"/*.yaml; do
  target/debug/keystorm validate "$w"
done
# The agents' and the controller's command lines parse (`--help` after them: clap
# checks every flag before it, then prints help instead of running).
while IFS=$'\t' read -r -a args; do
  target/debug/keystorm "${args[@]}" --help >/dev/null ||
    { echo "validate-deploy: a manifest's command does not parse: keystorm ${args[*]}" >&2; exit 1; }
done <"$tmp/commands.txt"
