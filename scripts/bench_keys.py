#!/usr/bin/env python3
"""Client memory and file size of key files at two bucket sizes, in one run.

Starts `keystorm sim` as its own process (size-only storage), fills one bucket with a
small and one with a large number of keys (keystorm's random 16-character names under
a prefix, 6-byte objects), then lists each into a key file with `keystorm list --keys
FILE.keys` in a process of its own, and reports that process's peak RSS, the key file's
bytes per key and the listing's keys/s. The writer sorts through runs of bounded size
on disk, so its peak RSS should stop growing once a run is full.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench_common import BIN, ENV, start_sim


def fill(endpoint, bucket, keys, results):
    text = f"""name: keys-{bucket}
target: {{ endpoint: "{endpoint}" }}
buckets: {{ names: [{bucket}], create: true }}
keyspace: {{ seed: 5, prefix: "k/" }}
objects: {{ size: 6B }}
before:
  - {{ name: fill, op: put, concurrency: 64, until_objects: {keys} }}
"""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        out = subprocess.run([BIN, "run", path, "--progress", "quiet", "--results", results],
                             env=ENV, capture_output=True, text=True)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        sys.exit(f"fill {bucket} failed:\n{out.stderr}")


def list_keys(endpoint, bucket, path, concurrency):
    """`keystorm list --keys PATH --json` in a process of its own; its report and usage."""
    p = subprocess.Popen(
        [BIN, "list", bucket, "--endpoint", endpoint, "--prefix", "k/", "--mode", "prefix",
         "--concurrency", str(concurrency), "--keys", path, "--json"],
        env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"list {bucket} failed:\n{err}")
    return json.loads(out), usage


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", type=int, default=100_000, help="keys of the small bucket")
    ap.add_argument("--large", type=int, default=5_000_000, help="keys of the large bucket")
    ap.add_argument("--concurrency", type=int, default=32, help="listers")
    args = ap.parse_args()

    sim, endpoint = start_sim("--storage", "size-only", "--access-key", "bench",
                              "--secret-key", "bench-secret")
    rows = []
    try:
        with tempfile.TemporaryDirectory() as work:
            results = os.path.join(work, "results")
            sizes = [("keys-small", args.small), ("keys-large", args.large)]
            for bucket, keys in sizes:
                print(f"filling {bucket}: {keys:,} keys", file=sys.stderr)
                fill(endpoint, bucket, keys, results)
            for bucket, keys in sizes:
                print(f"listing {bucket} into a key file", file=sys.stderr)
                report, usage = list_keys(endpoint, bucket, os.path.join(work, f"{bucket}.keys"),
                                          args.concurrency)
                k = report["key_file"]
                if k["keys"] != keys:
                    sys.exit(f"{bucket}: {k['keys']} keys in the file, {keys} listed")
                rows.append((keys, usage.ru_maxrss / 1024, k, report))
    finally:
        sim.terminate()
        sim.wait()

    print(f"\nKey file benchmark: prefix listing with {args.concurrency} listers into "
          f"FILE.keys, size-only target on loopback, {os.cpu_count()} cores shared\n")
    print(f"{'keys':>11} {'peak RSS MiB':>13} {'file MiB':>9} {'bytes/key':>10} "
          f"{'listed keys/s':>14} {'client CPU µs/1000 keys':>24}")
    for keys, rss, k, r in rows:
        print(f"{keys:>11,} {rss:>13.1f} {k['bytes'] / 2**20:>9.1f} {k['bytes_per_key']:>10.2f} "
              f"{r['keys_per_sec']:>14,.0f} {r['client_cpu_us_per_1000_keys']:>24,.0f}")
    small, large = rows
    print(f"\npeak RSS at {large[0]:,} keys / at {small[0]:,} keys: {large[1] / small[1]:.2f}×")


if __name__ == "__main__":
    main()
