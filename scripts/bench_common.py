"""What the benchmark scripts share: the release binary, the keys they sign with, the
embedded target started as a process of its own (so keystorm's CPU time is the
client's alone), and a labelled run whose results they read back."""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "keystorm")
# Keys no workload name, bucket or prefix of these scripts holds: keystorm refuses a
# workload that shows a key's value outside `credentials`.
ACCESS_KEY, SECRET_KEY = "ks-access-0417", "ks-secret-0417"
ENV = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY)
# `keystorm sim` arguments for a target that checks the signatures made with them.
SIM_KEYS = ("--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY)


def start_sim(*args, bin=BIN, quiet=False):
    """`keystorm sim --port 0 ARGS...` (of the binary `bin`); returns the process and its
    endpoint. `quiet`: what the sim says on stderr is kept from the terminal (and shown
    only if it does not start)."""
    err = tempfile.TemporaryFile("w+") if quiet else None
    p = subprocess.Popen([bin, "sim", "--port", "0", *args], stdout=subprocess.PIPE, stderr=err, text=True)
    line = p.stdout.readline().strip()
    prefix = "keystorm sim listening on "
    if not line.startswith(prefix):
        p.kill()
        p.wait()
        said = err.seek(0) == 0 and err.read().strip() if err else ""
        sys.exit(f"sim did not start: {line!r} {said}".strip())
    return p, line[len(prefix):]


def run(workload_text, results, label, bin=BIN):
    """Runs the workload with `bin`, labelled `bench=label`; its manifest and summary."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(workload_text)
        path = f.name
    try:
        out = subprocess.run(
            [bin, "run", path, "--progress", "quiet", "--results", results, "--label", f"bench={label}"],
            env=ENV, capture_output=True, text=True,
        )
    finally:
        os.unlink(path)
    if out.returncode != 0:
        sys.exit(f"bench run {label} failed:\n{out.stderr}")
    for d in sorted(os.listdir(results)):
        manifest_path = os.path.join(results, d, "manifest.json")
        if not os.path.isfile(manifest_path):
            continue
        manifest = json.load(open(manifest_path))
        if manifest["labels"].get("bench") == label:
            return manifest, json.load(open(os.path.join(results, d, "summary.json")))
    sys.exit(f"no results for {label}")
