#!/usr/bin/env python3
"""Listing speed of keystorm's three list modes, measured side by side in one run.

Starts `keystorm sim` as its own process (size-only storage, a fixed latency added to
every LIST page, so the target behaves like a store whose pages take that long), fills
one bucket with N uniform random keys and a second key set that is skewed (nine tenths
under one prefix), then lists each with `keystorm list` in serial, prefix and adaptive
mode and reports keys/s, the ratio to serial, and the client CPU per 1000 keys.

The listing client and the target share this machine's cores, so the parallel modes
are capped by CPU as much as by the injected latency: the table says which.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench_common import BIN, ENV, SIM_KEYS, start_sim


def fill(endpoint, prefix, n, seed, results, metadata=False, bin=BIN):
    meta = ', metadata: { team: "team-{i%8}", serial: "{i}" }' if metadata else ""
    text = f"""name: fill-{seed}
target: {{ endpoint: "{endpoint}" }}
buckets: {{ names: [bench] }}
keyspace: {{ seed: {seed}, prefix: "{prefix}" }}
objects: {{ size: 6B{meta} }}
before:
  - {{ name: fill, op: put, workers: 64, until_objects: {n} }}
"""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        out = subprocess.run(
            [bin, "run", path, "--progress", "quiet", "--results", results],
            env=ENV, capture_output=True, text=True,
        )
    finally:
        os.unlink(path)
    if out.returncode != 0:
        sys.exit(f"fill {prefix} failed:\n{out.stderr}")


def cpu_seconds(pid):
    """User + system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def list_keys(endpoint, prefix, mode, listers, extra=(), bin=BIN):
    """`keystorm list` (of `bin`) of bucket `bench` under `prefix`; its JSON report."""
    args = [bin, "list", "bench", "--endpoint", endpoint, "--prefix", prefix,
            "--mode", mode, "--listers", str(listers), "--json", *extra]
    if mode == "adaptive":
        args += ["--delimiter", ""]
    out = subprocess.run(args, env=ENV, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"list {mode} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=1_000_000, help="keys per key set")
    ap.add_argument("--latency", default="2ms", help="added latency per LIST page")
    ap.add_argument("--listers", type=int, default=64, help="listers in parallel modes")
    ap.add_argument("--head-keys", type=int, default=100_000, help="objects in the HEAD scan")
    ap.add_argument("--head-workers", type=int, default=64, help="HEADs in flight")
    args = ap.parse_args()

    sim, endpoint = start_sim(
        "--storage", "size-only", *SIM_KEYS,
        "--latency", f"list={args.latency}",
    )
    try:
        with tempfile.TemporaryDirectory() as results:
            hot = args.keys * 9 // 10
            print(f"filling: {args.keys} uniform keys, then {hot} + {args.keys - hot} skewed keys",
                  file=sys.stderr)
            fill(endpoint, "u/", args.keys, 1, results)
            fill(endpoint, "s/hot/", hot, 2, results)
            fill(endpoint, "s/", args.keys - hot, 3, results)
            fill(endpoint, "h/", args.head_keys, 4, results, metadata=True)
        rows = []
        for label, prefix in [("uniform", "u/"), ("skewed", "s/")]:
            serial = None
            for mode in ["serial", "prefix", "adaptive"]:
                before = cpu_seconds(sim.pid)
                r = list_keys(endpoint, prefix, mode, args.listers)
                r["target_cpu_us_per_1000_keys"] = (
                    (cpu_seconds(sim.pid) - before) * 1e9 / max(r["keys"], 1))
                if r["keys"] != args.keys:
                    sys.exit(f"{label} {mode}: listed {r['keys']} keys, expected {args.keys}")
                serial = serial or r["keys_per_sec"]
                rows.append((label, mode, r, r["keys_per_sec"] / serial))
        scan = list_keys(endpoint, "h/", "adaptive", 8,
                         ["--head", "--head-workers", str(args.head_workers)])
        if scan["head"]["heads"] != args.head_keys:
            sys.exit(f"HEAD scan: {scan['head']['heads']} HEADs, expected {args.head_keys}")
    finally:
        sim.terminate()
        sim.wait()

    print(f"\nLIST benchmark: {args.keys:,} keys per set, {args.latency} added per page, "
          f"{args.listers} listers in parallel modes, {os.cpu_count()} cores shared "
          "by client and target\n")
    print(f"{'keys':<8} {'mode':<9} {'keys/s':>10} {'x serial':>9} {'seconds':>8} "
          f"{'requests':>9} {'ranges':>7} {'cuts':>5} {'client CPU µs/1000':>19} "
          f"{'target CPU µs/1000':>19} {'page p50 ms':>12}")
    for label, mode, r, ratio in rows:
        print(f"{label:<8} {mode:<9} {r['keys_per_sec']:>10,.0f} {ratio:>9.1f} {r['seconds']:>8.2f} "
              f"{r['requests']:>9} {r['ranges']:>7} {r['cuts']:>5} "
              f"{r['client_cpu_us_per_1000_keys']:>19,.0f} {r['target_cpu_us_per_1000_keys']:>19,.0f} "
              f"{r['page_latency_us']['p50'] / 1000:>12.1f}")

    # Client and target share the cores: a 1000-key page costs c ms of CPU between
    # them, so parallel listing tops out at cores / c pages per ms, while a serial
    # lister waits a whole page time t per page (the added latency, rounded up to the
    # timer's millisecond, plus c). Their ratio bounds what any mode can reach here.
    _, _, serial_run, _ = rows[0]
    _, _, prefix_run, _ = rows[1]
    c = (prefix_run["client_cpu_us_per_1000_keys"] + prefix_run["target_cpu_us_per_1000_keys"]) / 1000
    t = serial_run["seconds"] * 1000 / serial_run["requests"]
    cores = os.cpu_count()
    print(f"\nCPU per 1000-key page, client + target (uniform prefix run): c = {c:.2f} ms; "
          f"serial page time t = {t:.2f} ms ({args.latency} added); with {cores} cores shared, "
          f"no mode can list faster than {cores} × t / c = {cores * t / c:.1f}× serial")

    h = scan["head"]
    print(f"\nHEAD scan of {args.head_keys:,} objects (adaptive listing, 8 listers, "
          f"{h['head_workers']} HEADs in flight): {h['heads_per_sec']:,.0f} HEAD/s, "
          f"HEAD p50 {h['latency_us']['p50'] / 1000:.2f} ms, p99 {h['latency_us']['p99'] / 1000:.2f} ms; "
          f"client CPU {scan['client_cpu_s'] * 1e6 / max(h['heads'], 1):.0f} µs per object; "
          f"metadata names {sorted(h['metadata']['names'])}")


if __name__ == "__main__":
    main()
