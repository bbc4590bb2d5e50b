"""What the benchmark scripts share: the release binary, the keys they sign with, the
embedded target started as a process of its own (so keystorm's CPU time is the
client's alone), a labelled run whose results they read back, and the client's
memory in its two figures (peak RSS, and its anonymous part)."""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time

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


def anon_mib(manifest):
    """The anonymous part of a run's peak RSS in MiB (`peak_rss_anon_kib`, the highest
    RssAnon keystorm sampled), or None from a build that does not record it. Peak RSS
    (`peak_rss_kib`, VmHWM) also counts the page-cache pages of files the process maps,
    a key file that a phase picks from among them; the anonymous part is what the
    process itself holds."""
    kib = manifest.get("peak_rss_anon_kib")
    return None if kib is None else kib / 1024


def mib_cell(value, width):
    """A figure in MiB right-aligned in `width`, or a dash where there is none."""
    return f"{'—':>{width}}" if value is None else f"{value:>{width}.1f}"


class AnonPeak(threading.Thread):
    """The peak anonymous resident memory (RssAnon of /proc/PID/status) of a process
    that has no manifest to say it (`keystorm list`), sampled every 20 ms from another
    thread until the process ends; `join()` once it was waited for, then read
    `peak_mib` (None if never sampled). A peak shorter than 20 ms can be missed."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.path = f"/proc/{pid}/status"
        self.peak_kib = None

    def run(self):
        while True:
            try:
                with open(self.path) as f:
                    text = f.read()
            except OSError:
                return  # waited for: gone
            kib = next((int(line.split()[1]) for line in text.splitlines()
                        if line.startswith("RssAnon:")), None)
            if kib is None:
                return  # ended: a zombie has no memory lines
            self.peak_kib = max(self.peak_kib or 0, kib)
            time.sleep(0.02)

    @property
    def peak_mib(self):
        return None if self.peak_kib is None else self.peak_kib / 1024
