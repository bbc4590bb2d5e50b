#!/usr/bin/env python3
"""The benchmark of keystorm's client: one table of what a request costs it, in one run.

Client CPU per operation (HEAD, GET, PUT, DELETE, LIST page) of both S3 clients, the
open loop at 200 to 50,000 ops/s, `keystorm list` per key, 16 MiB GETs and PUTs per
GiB, key-file picks, `verify`, client peak RSS after fills, and `keystorm sim` memory
per object. With --baseline REV (or --baseline-bin PATH) every measurement runs for
both builds in turn, and the table shows both and new/baseline. Writes the table's
figures as JSON too. How to read it: docs/benchmarks.md.
"""

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from types import SimpleNamespace

import bench_baseline
import bench_measure as m
from bench_common import BIN, ROOT
from bench_machine import Busy, Quiet, describe
from bench_rows import derive, json_rows, table

FILLS_FULL, FILLS_QUICK = (100_000, 10_000_000), (100_000, 1_000_000)
MEASUREMENTS = [  # (name for --only, what the progress lines call it, measurement)
    ("closed", "closed loop", m.closed_loop),
    ("open", "open loop", m.open_loop),
    ("list", "keystorm list", m.listing),
    ("big", "big objects", m.big_objects),
    ("keys", "key picks", m.key_picks),
    ("verify", "verify", m.verify),
    ("rss", "client RSS, small fill", lambda s: m.rss_after_fill(s.fills[0])(s)),
    ("rss", "client RSS, large fill", lambda s: m.rss_after_fill(s.fills[1])(s)),
    ("sim", "sim memory", m.sim_memory),
]
NAMES = sorted({name for name, _, _ in MEASUREMENTS})
START = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - START:5.0f} s] {msg}", file=sys.stderr, flush=True)


def settings(quick, work, pick_keys=None, pick_gets=None):
    q = quick
    return SimpleNamespace(
        quick=q, sim_bin=BIN, fill_results=os.path.join(work, "fills"),
        ops=20_000 if q else 100_000, pages=1_000 if q else 5_000,
        open_seconds=2 if q else 5, closed_c1_ops=2_000 if q else 5_000,
        list_keys=200_000 if q else 1_000_000, big_gib=2 if q else 4,
        pick_keys=pick_keys or (20_000 if q else 100_000),
        pick_gets=pick_gets or (50_000 if q else 300_000),
        verify_ops=20_000 if q else 100_000, verify_mib_ops=2_000 if q else 10_000,
        fills=FILLS_QUICK if q else FILLS_FULL, sim_objects=100_000 if q else 300_000,
    )


def measure_all(s, builds, only, work):
    """Runs the measurements, each for every build in turn (the order alternating);
    returns {tag: {key: value}}, {tag: errors counted} and the failures."""
    values = {tag: {} for tag, _ in builds}
    errors = {tag: 0 for tag, _ in builds}
    failures = []
    results = {tag: os.path.join(work, tag) for tag, _ in builds}
    for d in [s.fill_results, *results.values()]:
        os.makedirs(d, exist_ok=True)
    chosen = [x for x in MEASUREMENTS if x[0] in only]
    for i, (name, title, measurement) in enumerate(chosen):
        order = builds if i % 2 == 0 else builds[::-1]
        try:
            with measurement(s) as one:
                for tag, bin in order:
                    log(f"{title}: {tag} build")
                    try:
                        got = one(bin, results[tag])
                        errors[tag] += got.pop("errors", 0)
                        values[tag] |= got
                    except (SystemExit, Exception) as e:
                        failures.append(failed(title, tag, e))
        except (SystemExit, Exception) as e:
            failures += [failed(title, tag, e) for tag, _ in builds]
    for v in values.values():
        derive(v)
    return values, errors, failures


def failed(title, tag, e):
    text = str(e.code if isinstance(e, SystemExit) else f"{type(e).__name__}: {e}").strip()
    log(f"{title}: {tag} build: not measured: {text.splitlines()[0] if text else 'failed'}")
    return {"measurement": title, "build": tag, "error": text[-2000:]}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog="How to read the table: docs/benchmarks.md")
    ap.add_argument("--quick", action="store_true", help="a short run (a few minutes): fewer operations, smaller fills")
    base = ap.add_mutually_exclusive_group()
    base.add_argument("--baseline", metavar="REV", help="also build this git revision and measure it side by side")
    base.add_argument("--baseline-bin", metavar="PATH", help="also measure this keystorm binary side by side")
    ap.add_argument("--baseline-target", metavar="DIR", help="cargo target folder to build --baseline in (a cache kept between runs)")
    ap.add_argument("--busy", metavar="N", type=count, default=0, help="keep N `yes > /dev/null` processes running meanwhile")
    ap.add_argument("--only", metavar="LIST", type=names, default=NAMES, help=f"comma-separated measurements, of: {','.join(NAMES)}")
    ap.add_argument("--pick-keys", metavar="N", type=positive, help="keys of the key file GETs are picked from (100,000; 20,000 with --quick)")
    ap.add_argument("--pick-gets", metavar="N", type=positive, help="GETs of each key-picks read (300,000; 50,000 with --quick)")
    ap.add_argument("--json", metavar="PATH", help="where to write the JSON (default bench-results/bench-TIMESTAMP.json)")
    args = ap.parse_args()
    if args.baseline_target and not args.baseline:
        ap.error("--baseline-target goes with --baseline")
    if args.baseline_bin and not (os.path.isfile(args.baseline_bin) and os.access(args.baseline_bin, os.X_OK)):
        ap.error(f"--baseline-bin {args.baseline_bin}: not an executable file")
    if args.baseline_target and os.path.realpath(args.baseline_target) == os.path.realpath(os.path.dirname(os.path.dirname(BIN))):
        ap.error("--baseline-target: the new build's own target folder; give the baseline one of its own")
    if args.baseline and bench_baseline.commit_of(args.baseline) is None:
        ap.error(f"--baseline {args.baseline}: not a commit of this repository")
    if not os.access(BIN, os.X_OK):
        ap.error(f"no release binary at {BIN}: run scripts/bench.sh, which builds it")
    return args


def count(text):
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"not a count of processes: {text!r}")
    return int(text)


def positive(text):
    if not text.isdigit() or int(text) == 0:
        raise argparse.ArgumentTypeError(f"not a positive whole number: {text!r}")
    return int(text)


def names(text):
    chosen = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in NAMES]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"unknown measurement {','.join(unknown) or text!r}; known: {','.join(NAMES)}")
    return chosen


def main():
    args = parse_args()
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    path = args.json or os.path.join(ROOT, "bench-results", f"bench-{time.strftime('%Y%m%d-%H%M%S')}.json")
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        sys.exit(f"bench: cannot write {path}: {e.strerror}")
    if not os.access(folder, os.W_OK) or os.path.isdir(path):
        sys.exit(f"bench: cannot write {path}")
    work = tempfile.mkdtemp(prefix="keystorm-bench-table-")
    builds = [("new", BIN)]
    info = {"new": {"bin": BIN, "commit": bench_baseline.describe_checkout()}, "baseline": None}
    try:
        if args.baseline:
            bin, commit = bench_baseline.build(args.baseline, work, args.baseline_target, log)
            info["baseline"] = {"rev": args.baseline, "commit": commit, "bin": None}
        if args.baseline or args.baseline_bin:
            builds.append(("baseline", bin if args.baseline else os.path.abspath(args.baseline_bin)))
            info["baseline"] = (info["baseline"] or {}) | {"bin": builds[1][1]}
        s = settings(args.quick, work, args.pick_keys, args.pick_gets)
        quiet = Quiet()
        quiet.start()
        with Busy(args.busy) as busy:
            values, errors, failures = measure_all(s, builds, args.only, work)
        machine = quiet.stop(busy.cpu_s)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tags = [tag for tag, _ in builds]
    print(header(args, info, machine))
    print("\n".join(table(s, values, tags)))
    for tag in tags:
        if errors[tag]:
            print(f"{tag} build: {errors[tag]} operations failed; their CPU is counted in the figures above")
    for f in failures:
        print(f"not measured: {f['measurement']}, {f['build']} build ({f['error'].splitlines()[0] if f['error'] else 'failed'})")
    doc = {"started": started, "seconds": round(time.monotonic() - START), "quick": args.quick,
           "busy": args.busy, "only": args.only, "builds": info, "machine": machine,
           "settings": {k: v for k, v in vars(s).items() if k not in ("sim_bin", "fill_results")},
           "targets": "one keystorm sim of the new build per measurement serves both builds; "
                      "sim memory: each build's own sim",
           "rows": json_rows(s, values, tags), "errors": errors, "failures": failures}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
    print(f"\n(JSON: {os.path.relpath(path)})")
    sys.exit(1 if any(f["build"] == "new" for f in failures) else 0)


def header(args, info, machine):
    run = "quick run" if args.quick else "full run"
    lines = [f"\nkeystorm client benchmark, {run}, {time.strftime('%Y-%m-%d %H:%M')}",
             f"new: {os.path.relpath(info['new']['bin'], ROOT)} (checkout at {info['new']['commit']})"]
    if info["baseline"]:
        b = info["baseline"]
        lines.append(f"baseline: {b['rev']} ({b['commit'][:10]})" if b.get("rev") else f"baseline: {b['bin']}")
    lines += ["targets: keystorm sim of the new build, its own process on loopback (sim memory: each build's own)",
              describe(machine) + (f"; --busy {args.busy}" if args.busy else ""), ""]
    return "\n".join(lines)


def interrupted(*_):
    raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, interrupted)
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("bench: interrupted")
