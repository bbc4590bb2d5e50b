#!/usr/bin/env python3
"""Timing truth: open-loop send times and the embedded target's injected delays.

Two questions, each answered for this build and, with --baseline BIN, for another
keystorm binary in the same run, side by side:

1. Open loop against `keystorm sim` with no injected delay: GET p50 at 200, 1,000 and
   10,000 ops/s (concurrency 8) against closed-loop p50 at concurrency 1. Latency in an
   open loop counts from the scheduled send time, so a client that sends late reports
   its own lateness as the store's; the open-loop p50 should be within 50 µs of the
   closed-loop one. Client CPU per operation is reported too, and, for builds that
   record it, the schedule lag (how late requests left): what of the difference is the
   client's own.
2. Injected delays (`keystorm sim --latency get=DIST`) for fixed, uniform, exp and
   lognormal delays at about 1k and 20k GET/s (closed loop, the concurrency that gives
   that rate): the delay added as the client sees it (GET p50/p99 minus the same
   concurrency's GET p50 without delay) against the distribution's own p50/p99, and,
   where the target records it (`/admin/keystorm/delays`), the target's own drawn and
   applied p50/p99.
"""

import argparse
import json
import math
import tempfile
import urllib.request

from bench_common import BIN, run, start_sim

# (name, --latency value, p50 ms, p99 ms, mean ms) of each distribution.
LN_SIGMA = math.log(20 / 2) / 2.326347874
DELAYS = [
    ("fixed", "2ms", 2.0, 2.0, 2.0),
    ("uniform", "1ms..3ms", 2.0, 2.98, 2.0),
    ("exp", "exp:2ms", 2 * math.log(2), 2 * math.log(100), 2.0),
    ("lognormal", "lognormal:2ms,20ms", 2.0, 20.0, 2 * math.exp(LN_SIGMA**2 / 2)),
]
RATES = (1_000, 20_000)
OPEN_RATES = (200, 1_000, 10_000)


def workload(endpoint, name, conc, ops, rate=None):
    rate_field = f", rate: {rate}" if rate else ""
    return f"""name: {name}
target: {{ endpoint: "{endpoint}" }}
buckets: {{ names: [timing] }}
keyspace: {{ seed: 3, prefix: "t/" }}
objects: {{ size: 1KiB }}
before:
  - {{ name: prefill, op: put, workers: 16, until_objects: 1000 }}
rounds:
  count: 1
  phases:
    - {{ name: get, op: get, workers: {conc}, operations: {ops}{rate_field} }}
"""


def get_row(bin, text, results, label):
    """Runs the workload with `bin`; the round's GET summary row."""
    _, summary = run(text, results, label, bin=bin)
    return next(r for r in summary["rows"] if r["section"] == "round" and r["op"] == "get")


def target_delays(endpoint):
    """The target's own record of its delays, or None where it keeps none."""
    try:
        with urllib.request.urlopen(f"{endpoint}/admin/keystorm/delays", timeout=5) as r:
            doc = json.load(r)
    except Exception:
        return None
    if not isinstance(doc, list):
        return None
    return next((d for d in doc if d["kind"] == "get"), None)


def open_rows(bin, endpoint, results, tag, rates, conc, seconds, closed_ops):
    """GET rows of `bin` against `endpoint`: "closed c1" (closed loop, concurrency 1,
    `closed_ops` GETs), then "open R/s" for each rate R (`conc` workers, R * `seconds`
    GETs)."""
    rows = {"closed c1": get_row(bin, workload(endpoint, "closed-c1", 1, closed_ops), results, f"{tag}-closed")}
    for rate in rates:
        text = workload(endpoint, f"open-{rate}", conc, round(rate * seconds), rate)
        rows[f"open {rate}/s"] = get_row(bin, text, results, f"{tag}-open-{rate}")
    return rows


def open_loop(bin, results, tag, quick):
    sim, endpoint = start_sim("--storage", "memory", bin=bin)
    try:
        return open_rows(bin, endpoint, results, tag, OPEN_RATES, 8, 2 if quick else 5, 2_000 if quick else 5_000)
    finally:
        sim.kill()
        sim.wait()


def delays(bin, results, tag, quick):
    seconds = 1 if quick else 3
    out = {}
    base = {}
    sim, endpoint = start_sim("--storage", "memory", bin=bin)
    try:
        concs = sorted({max(1, round(rate * mean / 1000)) for rate in RATES for *_, mean in DELAYS})
        for conc in concs:
            r = get_row(bin, workload(endpoint, f"base-c{conc}", conc, 2_000 if quick else 10_000), results, f"{tag}-base-{conc}")
            base[conc] = r["latency_us"]["p50"]
    finally:
        sim.kill()
        sim.wait()
    for name, dist, _, _, mean in DELAYS:
        for rate in RATES:
            conc = max(1, round(rate * mean / 1000))
            sim, endpoint = start_sim("--storage", "memory", "--latency", f"get={dist}", bin=bin)
            try:
                r = get_row(bin, workload(endpoint, f"{name}-{rate}", conc, rate * seconds), results, f"{tag}-{name}-{rate}")
                out[(name, rate)] = (r, base[conc], conc, target_delays(endpoint))
            finally:
                sim.kill()
                sim.wait()
    return out


def ms(us):
    return f"{us / 1000:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", help="another keystorm binary to measure side by side (before)")
    ap.add_argument("--quick", action="store_true", help="shorter phases")
    ap.add_argument("--open-only", action="store_true", help="the open-loop table only")
    args = ap.parse_args()
    builds = [("after", BIN)]
    if args.baseline:
        builds.insert(0, ("before", args.baseline))
    results = tempfile.mkdtemp(prefix="keystorm-bench-timing-")

    loops = {tag: open_loop(bin, results, tag, args.quick) for tag, bin in builds}
    print("\nOpen loop against keystorm sim without injected delay (GET 1 KiB, concurrency 8)")
    print(f"{'build':7} {'phase':12} {'ops/s':>8} {'p50 µs':>8} {'p99 µs':>8} {'p50 - closed':>13} {'cpu µs/op':>10} {'lag p50/p99 µs':>15}")
    for tag, _ in builds:
        closed = loops[tag]["closed c1"]["latency_us"]["p50"]
        for phase, r in loops[tag].items():
            p50 = r["latency_us"]["p50"]
            cpu = r["client_cpu_s"] * 1e6 / max(r["ops"], 1)
            lag = r.get("schedule_lag_us")
            lag = f"{lag['p50']}/{lag['p99']}" if lag else "-"
            print(f"{tag:7} {phase:12} {r['ops_per_sec']:>8.0f} {p50:>8} {r['latency_us']['p99']:>8} {p50 - closed:>13} {cpu:>10.1f} {lag:>15}")
    if args.open_only:
        print(f"\n(result folders in {results})")
        return

    measured = {tag: delays(bin, results, tag, args.quick) for tag, bin in builds}
    print("\nInjected GET delays, asked against delivered, in ms (closed loop; 'added' is the client's")
    print("GET latency minus its latency at the same concurrency without delay; 'target' is the")
    print("target's own record, drawn -> applied, where it keeps one)")
    print(f"{'delay':10} {'rate':>6} {'conc':>4} {'asked p50':>9} {'asked p99':>9} {'build':7} {'ops/s':>8} {'added p50':>9} {'added p99':>9} {'target p50':>17} {'target p99':>17}")
    for name, _, p50, p99, _ in DELAYS:
        for rate in RATES:
            for tag, _ in builds:
                r, base, conc, rec = measured[tag][(name, rate)]
                added50 = r["latency_us"]["p50"] - base
                added99 = r["latency_us"]["p99"] - base
                t50 = t99 = "-"
                if rec:
                    t50 = f"{ms(rec['drawn_us']['p50'])} -> {ms(rec['applied_us']['p50'])}"
                    t99 = f"{ms(rec['drawn_us']['p99'])} -> {ms(rec['applied_us']['p99'])}"
                print(f"{name:10} {rate:>6} {conc:>4} {p50:>9.3f} {p99:>9.3f} {tag:7} {r['ops_per_sec']:>8.0f} {ms(added50):>9} {ms(added99):>9} {t50:>17} {t99:>17}")
    print(f"\n(result folders in {results})")


if __name__ == "__main__":
    main()
