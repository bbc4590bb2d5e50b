#!/usr/bin/env python3
"""Resident memory of `keystorm sim` per stored object, measured from outside.

Starts `keystorm sim` in each storage mode (memory, size-only), reads its VmRSS from
/proc, fills one bucket with N objects of one size using `keystorm run`, reads VmRSS
again, and prints the growth per object and, for memory mode, the growth beyond the
object's bytes. The fill runs in a process of its own, so only the sim's memory is read.
"""

import argparse
import os
import subprocess
import sys
import tempfile

from bench_common import BIN, ENV

PREFIX = "keystorm sim listening on "


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    sys.exit(f"no VmRSS for process {pid}")


def size_bytes(text):
    units = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "kb": 1000, "mb": 1000 ** 2}
    t = text.strip().lower()
    number = t.rstrip("abcdefghijklmnopqrstuvwxyz")
    return int(float(number) * units[t[len(number):].strip()])


def measure(binary, storage, objects, size, results):
    sim = subprocess.Popen([binary, "sim", "--port", "0", "--storage", storage],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = sim.stdout.readline().strip()
    if not line.startswith(PREFIX):
        sim.kill()
        sys.exit(f"sim did not start: {line!r}")
    endpoint = line[len(PREFIX):]
    try:
        before = rss_kib(sim.pid)
        workload = f"""name: sim-memory-{storage}
target: {{ endpoint: "{endpoint}" }}
buckets: {{ names: [mem] }}
objects: {{ size: {size} }}
before:
  - {{ name: fill, op: put, workers: 32, until_objects: {objects} }}
"""
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(workload)
            path = f.name
        try:
            out = subprocess.run([binary, "run", path, "--progress", "quiet", "--results", results],
                                 env=ENV, capture_output=True, text=True)
        finally:
            os.unlink(path)
        if out.returncode != 0:
            sys.exit(f"fill against the {storage} sim failed:\n{out.stderr}")
        after = rss_kib(sim.pid)
    finally:
        sim.kill()
        sim.wait()
    return before, after


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objects", type=int, default=300_000)
    ap.add_argument("--size", default="1KiB")
    ap.add_argument("--bin", default=BIN, help="keystorm binary to measure")
    args = ap.parse_args()
    payload = size_bytes(args.size)
    print(f"keystorm sim, {args.objects} PUTs of {args.size} ({args.bin})")
    print(f"{'storage':10} {'RSS before':>12} {'RSS after':>12} {'B/object':>10} {'beyond payload':>15}")
    # The fill runs' result folders are of no use here: removed at the end.
    with tempfile.TemporaryDirectory(prefix="keystorm-bench-") as results:
        for storage in ("memory", "size-only"):
            before, after = measure(args.bin, storage, args.objects, args.size, results)
            per = (after - before) * 1024 / args.objects
            beyond = per - payload if storage == "memory" else per
            print(f"{storage:10} {before / 1024:>9.1f} MiB {after / 1024:>9.1f} MiB {per:>10.0f} {beyond:>15.0f}")


if __name__ == "__main__":
    main()
