#!/usr/bin/env python3
"""Client cost of driving several endpoints, measured side by side in one run.

Starts `keystorm sim --ports` (one store on nine ports, the target in a process of its
own so keystorm's CPU time is the client's alone), then runs the same PUT, GET and HEAD
phases against one endpoint and against eight (per worker and round robin), taking
turns so that any drift of the machine hits every variant alike, and reports the client
CPU per request of each (the median of the repeats) and its ratio to one endpoint. The
per-endpoint accounting of eight endpoints must cost nothing worth measuring.
"""

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile

from bench_common import BIN, run


def free_ports(n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def start_ports(ports):
    p = subprocess.Popen(
        [BIN, "sim", "--ports", ",".join(map(str, ports)), "--storage", "size-only"],
        stdout=subprocess.PIPE,
        text=True,
    )
    for _ in ports:
        line = p.stdout.readline()
        if "listening on" not in line:
            p.kill()
            sys.exit(f"sim did not start: {line!r}")
    return p


def workload(urls, spread, conc, n, seed):
    return f"""name: bench-endpoints
target:
  endpoints: [{", ".join(urls)}]
  spread: {spread}
buckets: {{ names: [bench] }}
keyspace: {{ seed: {seed}, prefix: "e{seed}/" }}
objects: {{ size: 1KiB }}
rounds:
  count: 1
  phases:
    - {{ name: put, op: put, workers: {conc}, operations: {n} }}
    - {{ name: get, op: get, workers: {conc}, operations: {n} }}
    - {{ name: head, op: head, workers: {conc}, operations: {n} }}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=60_000, help="operations per phase")
    ap.add_argument("--workers", type=int, default=64, help="workers of each phase")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    ports = free_ports(9)
    sim = start_ports(ports)
    urls = [f"http://127.0.0.1:{p}" for p in ports]
    variants = [
        ("1 endpoint", [urls[0]], "per_worker"),
        ("8 endpoints, per_worker", urls[1:9], "per_worker"),
        ("8 endpoints, round_robin", urls[1:9], "round_robin"),
    ]
    cost = {(name, op): [] for name, _, _ in variants for op in ("put", "get", "head")}
    rate = {(name, op): [] for name, _, _ in variants for op in ("put", "get", "head")}
    seed = 1
    try:
        with tempfile.TemporaryDirectory() as results:
            for r in range(args.repeats):
                for name, endpoint_urls, spread in variants:
                    seed += 1
                    text = workload(endpoint_urls, spread, args.workers, args.ops, seed)
                    _, summary = run(text, results, f"{name}-{r}")
                    for row in summary["rows"]:
                        requests = row["ops"] + row["errors"] + row.get("retries", 0)
                        if row["errors"]:
                            sys.exit(f"{name}: {row['errors']} errors in {row['phase']}")
                        cost[(name, row["phase"])].append(1e6 * row["client_cpu_s"] / requests)
                        rate[(name, row["phase"])].append(row["ops_per_sec"])
    finally:
        sim.kill()

    print(
        f"client CPU per request (µs, median of {args.repeats}), 1 KiB objects, "
        f"{args.workers} workers, {args.ops} operations a phase"
    )
    print(f"{'variant':<26} {'op':<5} {'CPU µs/req':>10} {'ops/s':>9} {'vs 1':>6}")
    for op in ("put", "get", "head"):
        base = statistics.median(cost[("1 endpoint", op)])
        for name, _, _ in variants:
            c = statistics.median(cost[(name, op)])
            o = statistics.median(rate[(name, op)])
            print(f"{name:<26} {op:<5} {c:>10.2f} {o:>9.0f} {c / base:>6.2f}")


if __name__ == "__main__":
    main()
