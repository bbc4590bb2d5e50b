#!/usr/bin/env python3
"""Client-side cost of keystorm's two S3 clients, measured side by side.

Starts `keystorm sim` (the embedded target as its own process, so the client's CPU
time is the keystorm process's alone), then for each client (fast, sdk) and
concurrency (1, 64) runs PUT 1 KiB, GET 1 KiB, HEAD and 1000-key LIST pages, and
reads ops/s and client CPU per operation from the run's summary (`client_cpu_s`); and
GETs of 1 MiB objects without and with `verify`, for the client CPU per MiB that
checking every body adds.
Then fills a size-only target with 100k and with 2M keys and reports keystorm's
peak RSS for each, and its anonymous part: neither must grow with the key count.
"""

import argparse
import tempfile

from bench_common import BIN, anon_mib, mib_cell, run, start_sim


def client_workload(endpoint, client, conc, n_ops, n_pages, seed, delete=False):
    """PUT, GET, HEAD and LIST pages of 1 KiB objects; with `delete`, then as many
    DELETEs as PUTs (of the keys written, so the keyspace ends as it was prefilled)."""
    delete_phase = f"\n    - {{ name: delete, op: delete, workers: {conc}, operations: {n_ops} }}" if delete else ""
    return f"""name: bench-{client}-c{conc}
target:
  endpoint: "{endpoint}"
  client: {client}
buckets: {{ names: [bench] }}
keyspace: {{ seed: {seed}, prefix: "b{seed}/" }}
objects: {{ size: 1KiB }}
before:
  - {{ name: prefill, op: put, workers: 64, until_objects: 2000 }}
rounds:
  count: 1
  phases:
    - {{ name: put, op: put, workers: {conc}, operations: {n_ops} }}
    - {{ name: get, op: get, workers: {conc}, operations: {n_ops} }}
    - {{ name: head, op: head, workers: {conc}, operations: {n_ops} }}
    - {{ name: list, op: list, workers: {conc}, operations: {n_pages}, page_size: 1000 }}{delete_phase}
"""


def client_rows(endpoint, results, client, conc, n_ops, n_pages, seed, delete=False, bin=BIN):
    """Runs `client_workload` with `bin`; its round rows by op."""
    _, summary = run(client_workload(endpoint, client, conc, n_ops, n_pages, seed, delete),
                     results, f"{client}-c{conc}-{seed}", bin=bin)
    return {r["op"]: r for r in summary["rows"] if r["section"] == "round"}


def verify_workload(endpoint, seed, n_ops, size="1MiB", objects=256, workers=8):
    """GETs of `objects` objects of `size` (1 MiB: 256), plain then verified, in one
    run: the first verified phase computes the MD5 of each body once (for their ETags),
    the second finds them computed, as a long run does."""
    return f"""name: bench-verify
target: {{ endpoint: "{endpoint}" }}
buckets: {{ names: [bench] }}
keyspace: {{ seed: {seed}, prefix: "v{seed}/" }}
objects: {{ size: {size} }}
before:
  - {{ name: prefill, op: put, workers: 16, until_objects: {objects} }}
rounds:
  count: 1
  phases:
    - {{ name: plain, op: get, workers: {workers}, operations: {n_ops} }}
    - {{ name: verified, op: get, workers: {workers}, operations: {n_ops}, verify: true }}
    - {{ name: verified-again, op: get, workers: {workers}, operations: {n_ops}, verify: true }}
"""


def verification_rows(endpoint, results, n_ops, seed=99, size="1MiB", objects=256, workers=8, bin=BIN):
    """The `plain`, `verified` and `verified-again` rows of one run of GETs (by default
    of 1 MiB objects, 8 at a time) with `bin`."""
    _, summary = run(verify_workload(endpoint, seed, n_ops, size, objects, workers), results,
                     f"verify-{size}-{seed}", bin=bin)
    return {r["phase"]: r for r in summary["rows"] if r["section"] == "round"}


def print_verification(rows):
    print("\nVerification (GET 1 MiB objects, fast client, concurrency 8): client CPU per MiB read")
    per_mib = {}
    for phase in ("plain", "verified", "verified-again"):
        r = rows[phase]
        mib = r["bytes"] / 1048576
        per_mib[phase] = r["client_cpu_s"] * 1e6 / max(mib, 1e-9)
        print(f"  {phase:14} {r['mib_per_sec']:>8.0f} MiB/s  {per_mib[phase]:>7.1f} cpu µs/MiB  errors {r['errors']}")
    for phase, what in (("verified", "with each body's MD5 computed once"), ("verified-again", "the MD5s known")):
        added = per_mib[phase] - per_mib["plain"]
        print(f"  verification adds {added:.1f} µs/MiB ({what}), {added / per_mib['plain'] * 100:.0f} % of the read's own cost")


def fill_workload(endpoint, n):
    return f"""name: bench-fill-{n}
target: {{ endpoint: "{endpoint}" }}
buckets: {{ names: [fill{n}] }}
keyspace: {{ seed: 5 }}
objects: {{ size: 6B }}
before:
  - {{ name: fill, op: put, workers: 64, until_objects: {n} }}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer operations, smaller fills")
    ap.add_argument("--verify-only", action="store_true", help="only the cost of verifying what GETs read")
    args = ap.parse_args()
    if args.verify_only:
        results = tempfile.mkdtemp(prefix="keystorm-bench-")
        sim, endpoint = start_sim("--storage", "memory")
        try:
            print_verification(verification_rows(endpoint, results, 300 if args.quick else 10000))
        finally:
            sim.kill()
            sim.wait()
        return
    n_ops = {1: 3000, 64: 30000} if not args.quick else {1: 500, 64: 3000}
    n_pages = {1: 300, 64: 2000} if not args.quick else {1: 50, 64: 200}
    fills = (100_000, 2_000_000) if not args.quick else (20_000, 200_000)

    results = tempfile.mkdtemp(prefix="keystorm-bench-")
    sim, endpoint = start_sim("--storage", "memory")
    rows = []
    try:
        seed = 1
        for conc in (1, 64):
            for client in ("fast", "sdk"):
                seed += 1
                for r in client_rows(endpoint, results, client, conc, n_ops[conc], n_pages[conc], seed).values():
                    ops = r["ops"]
                    cpu_us = r["client_cpu_s"] * 1e6
                    per_key = cpu_us / r["keys"] if r["op"] == "list" and r["keys"] else None
                    rows.append((r["op"], conc, client, r["ops_per_sec"], cpu_us / max(ops, 1), per_key,
                                 r["latency_us"]["p50"], r["latency_us"]["p99"], r["errors"]))
        verify_rows = verification_rows(endpoint, results, 10000 if not args.quick else 300)
    finally:
        sim.kill()
        sim.wait()

    print("\nClient cost per operation (embedded target in its own process, loopback)")
    print(f"{'op':6} {'conc':>4} {'client':6} {'ops/s':>10} {'cpu µs/op':>10} {'cpu µs/key':>10} {'p50 µs':>8} {'p99 µs':>8} {'errors':>6}")
    for op in ("put", "get", "head", "list"):
        for r in rows:
            if r[0] == op:
                per_key = f"{r[5]:.2f}" if r[5] is not None else "-"
                print(f"{r[0]:6} {r[1]:>4} {r[2]:6} {r[3]:>10.0f} {r[4]:>10.1f} {per_key:>10} {r[6]:>8} {r[7]:>8} {r[8]:>6}")
    print("\nfast vs sdk, client CPU per operation (sdk / fast):")
    for op in ("put", "get", "head", "list"):
        for conc in (1, 64):
            f = [r for r in rows if r[0] == op and r[1] == conc and r[2] == "fast"]
            s = [r for r in rows if r[0] == op and r[1] == conc and r[2] == "sdk"]
            if f and s and f[0][4] > 0:
                print(f"  {op:5} c{conc:<3} {s[0][4] / f[0][4]:.2f}x")

    print_verification(verify_rows)

    sim, endpoint = start_sim("--storage", "size-only")
    try:
        print("\nClient peak RSS after a fill (size-only target, 6-byte objects, fast client, concurrency 64)")
        rss = []
        for n in fills:
            manifest, summary = run(fill_workload(endpoint, n), results, f"fill-{n}")
            put = summary["rows"][0]
            rss.append(manifest["peak_rss_kib"])
            anon = mib_cell(anon_mib(manifest), 0)
            print(f"  {n:>9} keys: peak RSS {manifest['peak_rss_kib'] / 1024:.1f} MiB (anonymous {anon}), "
                  f"{put['ops_per_sec']:.0f} PUT/s")
        print(f"  ratio {fills[1] // fills[0]}x keys -> {rss[1] / rss[0]:.2f}x RSS")
    finally:
        sim.kill()
        sim.wait()
    print(f"\n(result folders in {results})")


if __name__ == "__main__":
    main()
