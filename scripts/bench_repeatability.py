"""A/A and A/B pairs judged by `keystorm compare`: the false-alarm rate (A/A pairs with
any metric judged improved or regressed) and the detection rate (A/B pairs whose GET
throughput and median latency are judged regressed), with every verdict counted by
metric. Runs of a pair go at once by default, so both see the same machine; with
--sequential one after the other, as two runs on different days would."""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

from bench_common import BIN, ENV, start_sim


def workload(name, endpoint, seconds):
    return (
        f"name: {name}\ntarget: {{ endpoint: \"{endpoint}\" }}\nbuckets: {{ names: [{name}] }}\n"
        "objects: { size: 1KiB }\nkeyspace: { seed: 7 }\nbefore:\n"
        "  - { name: fill, op: put, workers: 4, operations: 400 }\n"
        f"  - {{ name: read, op: get, workers: 16, duration: {seconds}s }}\n"
    )


def start_run(tmp, name, endpoint, seconds):
    path = os.path.join(tmp, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(workload(name, endpoint, seconds))
    results = os.path.join(tmp, name)
    p = subprocess.Popen([BIN, "run", path, "--progress", "quiet", "--results", results],
                         env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return p, results


def finish(p, results):
    _, err = p.communicate()
    if p.returncode != 0:
        sys.exit(f"a run failed:\n{err}")
    (run,) = [d for d in os.listdir(results) if os.path.isfile(os.path.join(results, d, "manifest.json"))]
    return os.path.join(results, run)


def pair(tmp, names, endpoints, seconds, at_once):
    if at_once:
        started = [start_run(tmp, n, e, seconds) for n, e in zip(names, endpoints)]
        return [finish(*s) for s in started]
    return [finish(*start_run(tmp, n, e, seconds)) for n, e in zip(names, endpoints)]


def compare(base, new):
    out = subprocess.run([BIN, "compare", base, new, "--json", "--ops", "get"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"compare failed:\n{out.stderr}")
    return [c for c in json.loads(out.stdout)["runs"][0]["changes"] if c["phase"] == "read"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--ab", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=15)
    ap.add_argument("--sequential", action="store_true")
    args = ap.parse_args()
    at_once = not args.sequential
    slow_sim, slow = start_sim("--storage", "size-only", "--latency", "get=20ms")
    fast_sim, fast = start_sim("--storage", "size-only")
    slower_sim, slower = start_sim("--storage", "size-only", "--latency", "get=2ms")
    verdicts = collections.defaultdict(collections.Counter)
    alarms = 0
    detected = 0
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(args.pairs):
                a, b = pair(tmp, [f"aa{i}-one", f"aa{i}-two"], [slow, slow], args.seconds, at_once)
                changes = compare(a, b)
                for c in changes:
                    verdicts[c["metric"]][c["verdict"]] += 1
                alarm = [c["metric"] for c in changes if c["verdict"] in ("improved", "regressed")]
                alarms += bool(alarm)
                print(f"A/A pair {i + 1}: " + (f"false alarm on {', '.join(alarm)}" if alarm else "no alarm"),
                      flush=True)
            for i in range(args.ab):
                a, b = pair(tmp, [f"ab{i}-base", f"ab{i}-slower"], [fast, slower], args.seconds, True)
                by = {c["metric"]: c for c in compare(a, b)}
                found = all(by[m]["verdict"] == "regressed" for m in ("ops_per_sec", "p50"))
                detected += found
                print(f"A/B pair {i + 1}: ops/s {by['ops_per_sec']['why']}; p50 {by['p50']['why']}", flush=True)
    finally:
        for p in (slow_sim, fast_sim, slower_sim):
            p.kill()
    mode = "at once" if at_once else "one after the other"
    print(f"\nA/A ({mode}, {args.seconds} s of GETs at 20 ms per GET, noise floor ±2 %): "
          f"{alarms} of {args.pairs} pairs with a false alarm ({100 * alarms / max(args.pairs, 1):.0f} %)")
    print(f"{'metric':<12} {'no_change':>9} {'inconclusive':>12} {'improved':>8} {'regressed':>9} {'not judged':>10}")
    for m, v in verdicts.items():
        print(f"{m:<12} {v['no_change']:>9} {v['inconclusive']:>12} {v['improved']:>8} {v['regressed']:>9} {v['lag']:>10}")
    if args.ab:
        print(f"A/B (2 ms more per GET): {detected} of {args.ab} pairs judged regressed on GET throughput and p50")


if __name__ == "__main__":
    main()
