#!/usr/bin/env python3
"""Client cost of two builds of keystorm, side by side in one run.

Runs the same PUT, GET and HEAD phases (1 KiB objects, closed loop) with the build
under test and with an earlier one (`--before BINARY`), taking turns so that any drift
of the machine hits both alike, against one `keystorm sim` in a process of its own (so
keystorm's CPU time is the client's alone). Reports the client CPU per request of each
(the median of the repeats) and the ratio of this build to the earlier one: a
restructuring that should not touch the hot path shows 1.00 within noise.
"""

import argparse
import statistics
import sys
import tempfile

from bench_common import BIN, run, start_sim

OPS = ("put", "get", "head")


def workload(endpoint, conc, n, seed):
    # `workers` is read by every build this compares against (0.1 and later).
    phases = "\n".join(
        f"    - {{ name: {op}, op: {op}, workers: {conc}, operations: {n} }}" for op in OPS
    )
    return f"""name: bench-builds
target:
  endpoint: {endpoint}
buckets: {{ names: [bench] }}
keyspace: {{ seed: {seed}, prefix: "b{seed}/" }}
objects: {{ size: 1KiB }}
rounds:
  count: 1
  phases:
{phases}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="the earlier build's keystorm binary")
    ap.add_argument("--ops", type=int, default=60_000, help="operations per phase")
    ap.add_argument("--workers", type=int, default=64, help="workers of each phase")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    sim, endpoint = start_sim("--storage", "size-only")
    builds = [("before", args.before), ("after", BIN)]
    cost = {(b, op): [] for b, _ in builds for op in OPS}
    seed = 1
    try:
        with tempfile.TemporaryDirectory() as results:
            for r in range(args.repeats):
                for name, binary in builds:
                    seed += 1
                    text = workload(endpoint, args.workers, args.ops, seed)
                    _, summary = run(text, results, f"{name}-{r}", bin=binary)
                    for row in summary["rows"]:
                        if row["errors"]:
                            sys.exit(f"{name}: {row['errors']} errors in {row['phase']}")
                        requests = row["ops"] + row.get("retries", 0)
                        cost[(name, row["phase"])].append(1e6 * row["client_cpu_s"] / requests)
    finally:
        sim.kill()

    print(
        f"client CPU per request (µs, median of {args.repeats}), 1 KiB objects, "
        f"{args.workers} workers, {args.ops} operations a phase"
    )
    print(f"{'op':<5} {'before':>8} {'after':>8} {'after/before':>13}")
    for op in OPS:
        before = statistics.median(cost[("before", op)])
        after = statistics.median(cost[("after", op)])
        print(f"{op:<5} {before:>8.2f} {after:>8.2f} {after / before:>13.2f}")


if __name__ == "__main__":
    main()
