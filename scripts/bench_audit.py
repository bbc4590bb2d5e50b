#!/usr/bin/env python3
"""Client memory and speed of a listing audit at two bucket sizes, in one run.

Starts `keystorm sim` as its own process (size-only storage), fills one bucket with a
small and one with a large number of keys, then audits each with a workload of its own
(`keyspace.existing` = the keys filled, one `op: audit` phase) in a `keystorm run`
process of its own, and reports that process's peak RSS and its anonymous part (the
run's `peak_rss_anon_kib`), the audit's listing and comparison speed and the client CPU
per 1000 keys. The audit spills both sides to disk and compares one partition at a
time, so neither should grow with the keys.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench_common import BIN, ENV, SIM_KEYS, anon_mib, mib_cell, start_sim


def workload(endpoint, bucket, existing, phase):
    return f"""name: audit-{bucket}
target: {{ endpoint: "{endpoint}" }}
buckets: {{ names: [{bucket}], create: true }}
keyspace: {{ seed: 5, prefix: "a/", existing: {existing} }}
objects: {{ size: 6B }}
before:
  - {phase}
"""


def run(text, results):
    """Runs a workload in a process of its own; its resource usage."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        p = subprocess.Popen(
            [BIN, "run", path, "--progress", "quiet", "--results", results],
            env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err = p.stderr.read()
    finally:
        os.unlink(path)
    if p.returncode != 0:
        sys.exit(f"run failed:\n{err}")
    return usage


def audit_event(results, bucket):
    """The audit of `bucket`, and the manifest of the run that made it."""
    for d in sorted(os.listdir(results)):
        events = os.path.join(results, d, "events.jsonl")
        if not os.path.isfile(events):
            continue
        for line in open(events):
            e = json.loads(line)
            if e["event"] == "audit" and e["data"]["bucket"] == bucket:
                with open(os.path.join(results, d, "manifest.json")) as f:
                    return e["data"], json.load(f)
    sys.exit(f"no audit of {bucket}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", type=int, default=100_000, help="keys of the small bucket")
    ap.add_argument("--large", type=int, default=5_000_000, help="keys of the large bucket")
    ap.add_argument("--listers", type=int, default=32, help="listers of the audit")
    args = ap.parse_args()

    sim, endpoint = start_sim("--storage", "size-only", *SIM_KEYS)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as results:
            for bucket, keys in [("audit-small", args.small), ("audit-large", args.large)]:
                print(f"filling {bucket}: {keys:,} keys", file=sys.stderr)
                fill = f"{{ name: fill, op: put, workers: 64, until_objects: {keys} }}"
                run(workload(endpoint, bucket, 0, fill), results)
            for bucket, keys in [("audit-small", args.small), ("audit-large", args.large)]:
                print(f"auditing {bucket}", file=sys.stderr)
                phase = f"{{ name: audit, op: audit, mode: prefix, listers: {args.listers} }}"
                usage = run(workload(endpoint, bucket, keys, phase), results)
                a, manifest = audit_event(results, bucket)
                c = a["counts"]
                if c["expected"] != keys or c["listed"] != keys or any(
                        c[k] for k in ("missing", "doubled", "extra", "size_mismatch")):
                    sys.exit(f"{bucket}: the audit is not clean: {c}")
                cpu = usage.ru_utime + usage.ru_stime
                rows.append((keys, usage.ru_maxrss / 1024, anon_mib(manifest), a, cpu))
    finally:
        sim.terminate()
        sim.wait()

    print(f"\nAudit benchmark: prefix listing with {args.listers} listers, size-only target "
          f"on loopback, {os.cpu_count()} cores shared by client and target\n")
    print(f"{'keys':>11} {'peak RSS MiB':>13} {'anon MiB':>9} {'list s':>8} {'listed keys/s':>14} "
          f"{'compare s':>10} {'compared keys/s':>16} {'audit keys/s':>13} {'client CPU µs/1000 keys':>24}")
    for keys, rss, anon, a, cpu in rows:
        total = a["list_seconds"] + a["compare_seconds"]
        print(f"{keys:>11,} {rss:>13.1f} {mib_cell(anon, 9)} {a['list_seconds']:>8.1f} {keys / a['list_seconds']:>14,.0f} "
              f"{a['compare_seconds']:>10.1f} {keys / a['compare_seconds']:>16,.0f} "
              f"{keys / total:>13,.0f} {cpu * 1e9 / keys:>24,.0f}")
    small, large = rows
    print(f"\npeak RSS at {large[0]:,} keys / at {small[0]:,} keys: {large[1] / small[1]:.2f}×")
    if small[2] and large[2]:
        print(f"anonymous part at {large[0]:,} keys / at {small[0]:,} keys: "
              f"{large[2] / small[2]:.2f}×")


if __name__ == "__main__":
    main()
