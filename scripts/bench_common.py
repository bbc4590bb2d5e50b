"""What the benchmark scripts share: the release binary, the keys they sign with, and
the embedded target started as a process of its own (so keystorm's CPU time is the
client's alone)."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "keystorm")
ENV = dict(os.environ, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench-secret")


def start_sim(*args):
    """`keystorm sim --port 0 ARGS...`; returns the process and its endpoint."""
    p = subprocess.Popen([BIN, "sim", "--port", "0", *args], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline().strip()
    prefix = "keystorm sim listening on "
    if not line.startswith(prefix):
        p.kill()
        sys.exit(f"sim did not start: {line!r}")
    return p, line[len(prefix):]
