#!/usr/bin/env python3
"""Client memory and file size of key files at two bucket sizes, in one run.

Starts `keystorm sim` as its own process (size-only storage), fills one bucket with a
small and one with a large number of keys (keystorm's random 16-character names under
a prefix, 6-byte objects), then lists each into a key file with `keystorm list --keys
FILE.keys` in a process of its own, and reports that process's peak RSS and its
anonymous part (sampled), the key file's bytes per key and the listing's keys/s. The
writer sorts through runs of bounded size on disk, so its memory should stop growing
once a run is full.

Then it reads from each key file: a workload whose `get` phase picks uniformly from the
file (`keys: {file}`) for a fixed number of GETs, beside the same GETs of keystorm's own
keyspace (`existing`), each in a process of its own; it reports peak RSS and its
anonymous part (the run's `peak_rss_kib` and `peak_rss_anon_kib`), GETs/s and the client
CPU per GET. A run maps the key file it picks from, so its peak RSS also counts the
file's pages that its picks touched (the page cache's, shared and reclaimable): that
grows with the file. A reader holds one block per worker, so the anonymous part should
match between the two files, and picking from the file should cost little next to the
request.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench_common import BIN, ENV, SIM_KEYS, AnonPeak, anon_mib, mib_cell, run, start_sim


def fill(endpoint, bucket, keys, results, bin=BIN):
    text = f"""name: keys-{bucket}
target: {{ endpoint: "{endpoint}" }}
buckets: {{ names: [{bucket}], create: true }}
keyspace: {{ seed: 5, prefix: "k/" }}
objects: {{ size: 6B }}
before:
  - {{ name: fill, op: put, workers: 64, until_objects: {keys} }}
"""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        out = subprocess.run([bin, "run", path, "--progress", "quiet", "--results", results],
                             env=ENV, capture_output=True, text=True)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        sys.exit(f"fill {bucket} failed:\n{out.stderr}")


def list_keys(endpoint, bucket, path, listers, bin=BIN):
    """`keystorm list --keys PATH --json` in a process of its own; its report, usage and
    peak anonymous memory in MiB."""
    p = subprocess.Popen(
        [bin, "list", bucket, "--endpoint", endpoint, "--prefix", "k/", "--mode", "prefix",
         "--listers", str(listers), "--keys", path, "--json"],
        env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    anon = AnonPeak(p.pid)
    anon.start()
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    anon.join()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"list {bucket} failed:\n{err}")
    return json.loads(out), usage, anon.peak_mib


def read(endpoint, bucket, keys, source, gets, workers, results, bin=BIN):
    """A `get` phase of `gets` GETs: from `source` (a key file) or the keyspace."""
    if source:
        phase = f"keys: {{ file: {json.dumps(source)} }}"
        keyspace = ""
    else:
        phase = ""
        keyspace = f'keyspace: {{ seed: 5, prefix: "k/", existing: {keys} }}\n'
    text = f"""name: read-{bucket}
target: {{ endpoint: "{endpoint}" }}
buckets: {{ names: [{bucket}] }}
{keyspace}objects: {{ size: 6B }}
before:
  - {{ name: read, op: get, workers: {workers}, operations: {gets}, {phase} }}
"""
    label = f"{bucket}-{'file' if source else 'keyspace'}"
    manifest, summary = run(text, results, label, bin=bin)
    row = next(r for r in summary["rows"] if r["op"] == "get")
    return manifest["peak_rss_kib"] / 1024, anon_mib(manifest), row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", type=int, default=100_000, help="keys of the small bucket")
    ap.add_argument("--large", type=int, default=5_000_000, help="keys of the large bucket")
    ap.add_argument("--listers", type=int, default=32, help="listers of each listing")
    ap.add_argument("--gets", type=int, default=300_000, help="GETs of each read")
    ap.add_argument("--workers", type=int, default=32, help="GET workers of each read")
    args = ap.parse_args()

    sim, endpoint = start_sim("--storage", "size-only", *SIM_KEYS)
    rows = []
    reads = []
    try:
        with tempfile.TemporaryDirectory() as work:
            results = os.path.join(work, "results")
            sizes = [("keys-small", args.small), ("keys-large", args.large)]
            for bucket, keys in sizes:
                print(f"filling {bucket}: {keys:,} keys", file=sys.stderr)
                fill(endpoint, bucket, keys, results)
            for bucket, keys in sizes:
                print(f"listing {bucket} into a key file", file=sys.stderr)
                report, usage, anon = list_keys(endpoint, bucket, os.path.join(work, f"{bucket}.keys"),
                                          args.listers)
                k = report["key_file"]
                if k["keys"] != keys:
                    sys.exit(f"{bucket}: {k['keys']} keys in the file, {keys} listed")
                rows.append((keys, usage.ru_maxrss / 1024, anon, k, report))
            for bucket, keys in sizes:
                for source in [os.path.join(work, f"{bucket}.keys"), None]:
                    what = "its key file" if source else "the keyspace"
                    print(f"reading {bucket} from {what}", file=sys.stderr)
                    reads.append((keys, source is not None,
                                  *read(endpoint, bucket, keys, source, args.gets,
                                        args.workers, results)))
    finally:
        sim.terminate()
        sim.wait()

    print(f"\nKey file benchmark: prefix listing with {args.listers} listers into "
          f"FILE.keys, size-only target on loopback, {os.cpu_count()} cores shared\n")
    print(f"{'keys':>11} {'peak RSS MiB':>13} {'anon MiB':>9} {'file MiB':>9} {'bytes/key':>10} "
          f"{'listed keys/s':>14} {'client CPU µs/1000 keys':>24}")
    for keys, rss, anon, k, r in rows:
        print(f"{keys:>11,} {rss:>13.1f} {mib_cell(anon, 9)} {k['bytes'] / 2**20:>9.1f} "
              f"{k['bytes_per_key']:>10.2f} {r['keys_per_sec']:>14,.0f} "
              f"{r['client_cpu_us_per_1000_keys']:>24,.0f}")
    small, large = rows
    print(f"\npeak RSS at {large[0]:,} keys / at {small[0]:,} keys: {large[1] / small[1]:.2f}×")
    print_ratio("anonymous part", small[0], large[0], small[2], large[2])

    print(f"\nReads: {args.gets:,} uniform GETs of 6-byte objects, {args.workers} workers, "
          f"each run in a process of its own\n")
    print(f"{'keys':>11} {'keys from':>10} {'peak RSS MiB':>13} {'anon MiB':>9} {'GETs/s':>9} "
          f"{'client CPU µs/GET':>18}")
    for keys, from_file, rss, anon, row in reads:
        cpu_us = row["client_cpu_s"] * 1e6 / max(row["ops"] + row["errors"], 1)
        print(f"{keys:>11,} {'key file' if from_file else 'keyspace':>10} {rss:>13.1f} "
              f"{mib_cell(anon, 9)} {row['ops_per_sec']:>9,.0f} {cpu_us:>18.1f}")
        if row["errors"]:
            sys.exit(f"{row['errors']} GETs failed reading {keys:,} keys")
    from_files = [(rss, anon) for _, from_file, rss, anon, _ in reads if from_file]
    print(f"\nreading peak RSS at {large[0]:,} keys / at {small[0]:,} keys: "
          f"{from_files[1][0] / from_files[0][0]:.2f}× (it counts the mapped file's pages)")
    print_ratio("reading anonymous part", small[0], large[0], from_files[0][1], from_files[1][1])


def print_ratio(what, small_keys, large_keys, small, large):
    """`what` at the large key count over the small one, where both were measured."""
    if small and large:
        print(f"{what} at {large_keys:,} keys / at {small_keys:,} keys: {large / small:.2f}×")


if __name__ == "__main__":
    main()
