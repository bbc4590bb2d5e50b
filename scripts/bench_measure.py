"""The measurements behind the benchmark table (scripts/bench_table.py).

Each is a context manager taking the settings: it starts what the measurement needs (a
`keystorm sim` of the new build, data both builds read) and yields `one(bin, results)`,
which measures one keystorm binary and returns {row key: value}. The table calls it for
each build in turn, so both meet the machine as it is at that moment. The measuring is
the other benchmark scripts' own functions; this module only picks their figures.
"""

import itertools
import os
import sys
from contextlib import contextmanager

import bench_big
import bench_floor
from bench_clients import client_rows, fill_workload, verification_rows
from bench_common import SIM_KEYS, anon_mib, run, start_sim
from bench_keys import fill as keys_fill, list_keys as keys_list, read as keys_read
from bench_list import fill as list_fill, list_keys
from bench_sim_memory import measure as sim_measure
from bench_timing import open_rows

OPS = (("head", "HEAD"), ("get", "GET"), ("put", "PUT"), ("delete", "DELETE"), ("list", "LIST page"))
CLIENTS = ("fast", "sdk")
OPEN_RATES = (200, 1_000, 10_000, 50_000)
LIST_MODES = ("serial", "prefix", "adaptive")


@contextmanager
def sim(s, *args):
    """A `keystorm sim` of the new build (`s.sim_bin`); yields its endpoint."""
    p, endpoint = start_sim("--storage", *args, bin=s.sim_bin, quiet=True)
    try:
        yield endpoint
    finally:
        p.kill()
        p.wait()


def per_op(r):
    """Client CPU µs per operation of a summary row (failed ones count too)."""
    return r["client_cpu_s"] * 1e6 / max(r["ops"] + r["errors"], 1)


def per_mib(r):
    return r["client_cpu_s"] * 1e6 / max(r["bytes"] / 2**20, 1e-9)


def errors(*rows):
    return {"errors": sum(r["errors"] for r in rows)}


def against_sim(*sim_args, setup=None):
    """Makes `measure(s, endpoint, seeds, bin, results)` a measurement: a sim of the new
    build (`keystorm sim --storage SIM_ARGS...`) serves both builds, `setup(s, endpoint)`
    runs once before them, and `seeds` (keyspaces of their own) go on from build to build."""
    def wrap(measure):
        @contextmanager
        def measurement(s):
            with sim(s, *sim_args) as endpoint:
                if setup:
                    setup(s, endpoint)
                seeds = itertools.count(10)
                yield lambda bin, results: measure(s, endpoint, seeds, bin, results)
        return measurement
    return wrap


@against_sim("memory")
def closed_loop(s, endpoint, seeds, bin, results):
    out, rows = {}, []
    for client in CLIENTS:
        by_op = client_rows(endpoint, results, client, 64, s.ops, s.pages, next(seeds), delete=True, bin=bin)
        for op, _ in OPS:
            out[f"closed.{op}.{client}.cpu_us"] = per_op(by_op[op])
            out[f"closed.{op}.{client}.ops_per_s"] = by_op[op]["ops_per_sec"]
            rows.append(by_op[op])
    if not hasattr(s, "closed_floor"):
        s.closed_floor = bench_floor.closed(endpoint, s.ops)
    return out | s.closed_floor | errors(*rows)


@against_sim("memory")
def open_loop(s, endpoint, _seeds, bin, results):
    rows = open_rows(bin, endpoint, results, "table", OPEN_RATES, 64, s.open_seconds, s.closed_c1_ops)
    closed = rows["closed c1"]["latency_us"]["p50"]
    out = {"open.closed_c1.p50_us": closed}
    for rate in OPEN_RATES:
        r = rows[f"open {rate}/s"]
        lag = r.get("schedule_lag_us") or {}
        loop = r.get("open_loop")
        out |= {
            f"open.{rate}.cpu_us": per_op(r),
            f"open.{rate}.lag_p50_us": lag.get("p50"),
            f"open.{rate}.sent_pct": loop and 100 * loop["sent_per_sec"] / loop["asked_per_sec"],
            f"open.{rate}.p50_us": r["latency_us"]["p50"],
            f"open.{rate}.minus_closed_us": r["latency_us"]["p50"] - closed,
        }
    if not hasattr(s, "open_floor"):
        s.open_floor = bench_floor.opened(endpoint, OPEN_RATES, s.open_seconds, s.closed_c1_ops)
    return out | s.open_floor | errors(*rows.values())


@against_sim("size-only", *SIM_KEYS, "--latency", "list=2ms",
             setup=lambda s, endpoint: list_fill(endpoint, "u/", s.list_keys, 1, s.fill_results, bin=s.sim_bin))
def listing(s, endpoint, _seeds, bin, results):
    out = {}
    for mode in LIST_MODES:
        r = list_keys(endpoint, "u/", mode, 64, bin=bin)
        if r["keys"] != s.list_keys:
            sys.exit(f"list {mode}: listed {r['keys']} keys, expected {s.list_keys}")
        out[f"list.{mode}.cpu_us_per_key"] = r["client_cpu_s"] * 1e6 / r["keys"]
    return out


@against_sim("size-only")
def big_objects(s, endpoint, seeds, bin, results):
    out, rows = bench_big.measure(endpoint, seeds, bin, results, s.big_gib)
    if not hasattr(s, "beside"):
        s.beside = bench_big.curl(endpoint, s.big_gib) | bench_big.floor(s.big_gib)
    return out | s.beside | errors(*rows)


@against_sim("size-only", *SIM_KEYS,
             setup=lambda s, endpoint: keys_fill(endpoint, "picks", s.pick_keys, s.fill_results, bin=s.sim_bin))
def key_picks(s, endpoint, _seeds, bin, results):
    path = os.path.join(results, "picks.keys")
    report, _, _ = keys_list(endpoint, "picks", path, 32, bin=bin)
    if report["key_file"]["keys"] != s.pick_keys:
        sys.exit(f"key file: {report['key_file']['keys']} keys, expected {s.pick_keys}")
    _, _, file_row = keys_read(endpoint, "picks", s.pick_keys, path, s.pick_gets, 32, results, bin=bin)
    _, _, space_row = keys_read(endpoint, "picks", s.pick_keys, None, s.pick_gets, 32, results, bin=bin)
    picked, own = per_op(file_row), per_op(space_row)
    return {"keys.file.cpu_us": picked, "keys.keyspace.cpu_us": own,
            "keys.difference_us": picked - own} | errors(file_row, space_row)


@against_sim("memory")
def verify(s, endpoint, seeds, bin, results):
    out, rows = {}, []
    for size in ("1KiB", "4KiB"):
        r = verification_rows(endpoint, results, s.verify_ops, next(seeds), size, 2000, 64, bin=bin)
        plain, checked = per_op(r["plain"]), per_op(r["verified-again"])
        out |= {f"verify.{size}.plain_us": plain, f"verify.{size}.verified_us": checked,
                f"verify.{size}.added_pct": (checked - plain) / plain * 100}
        rows += r.values()
    r = verification_rows(endpoint, results, s.verify_mib_ops, next(seeds), bin=bin)
    plain, checked = per_mib(r["plain"]), per_mib(r["verified-again"])
    out |= {"verify.1MiB.plain_us_per_mib": plain, "verify.1MiB.verified_us_per_mib": checked,
            "verify.1MiB.added_pct": (checked - plain) / plain * 100}
    return out | errors(*rows, *r.values())


def rss_after_fill(n):
    """Peak RSS of `keystorm run` filling a fresh size-only target with `n` keys, and
    its anonymous part (from a build that records it)."""
    @contextmanager
    def measurement(s):
        def one(bin, results):
            with sim(s, "size-only") as endpoint:
                manifest, summary = run(fill_workload(endpoint, n), results, f"fill-{n}", bin=bin)
            anon = anon_mib(manifest)
            return ({f"rss.{n}.peak_mib": manifest["peak_rss_kib"] / 1024}
                    | ({f"rss.{n}.anon_mib": anon} if anon is not None else {})
                    | errors(*summary["rows"]))
        yield one
    return measurement


@contextmanager
def sim_memory(s):
    """Each build's own sim: here the sim is what is measured."""
    def one(bin, results):
        out = {}
        for storage in ("memory", "size-only"):
            before, after = sim_measure(bin, storage, s.sim_objects, "1KiB", results)
            out[f"sim.{storage}.bytes_per_object"] = (after - before) * 1024 / s.sim_objects
        return out
    yield one
