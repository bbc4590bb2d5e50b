"""The rows of the benchmark table: what each figure is called, its unit, and how the
table prints it (one column per build, and new/baseline where there are two).

A row is (key, label, unit, ratio): `key` names the figure in what the measurements
return (scripts/bench_measure.py) and in the JSON; `ratio` is false for differences and
shares, where new/baseline means nothing.
"""

from bench_big import CONFIGS as BIG_CONFIGS, ROWS as BIG_ROWS
from bench_floor import FLOOR_METHODS
from bench_measure import CLIENTS, LIST_MODES, OPEN_RATES, OPS

DASH = "—"
# The closed-loop requests the C floor makes too (scripts/bench_floor.py).
FLOOR_OPS = [(op, name) for op, name in OPS if op.upper() in FLOOR_METHODS]
BIG_OPS = {c[0]: c[4] for c in BIG_CONFIGS}


def sections(s):
    """[(title, [row, ...]), ...] for the settings `s`."""
    closed = [row for op, name in OPS for client in CLIENTS for row in (
        (f"closed.{op}.{client}.cpu_us", f"{name} {client}: client CPU", "µs/op", True),
        (f"closed.{op}.{client}.ops_per_s", f"{name} {client}: rate", "ops/s", True))]
    closed += [row for op, name in FLOOR_OPS for row in (
        (f"closed.{op}.floor.cpu_us", f"{name}, bare sockets in C (floor): CPU", "µs/op", True),
        (f"closed.{op}.fast.over_floor", f"{name} fast: client CPU / floor's", "×", True))]
    opened = [("open.closed_c1.p50_us", "closed loop, concurrency 1: GET p50", "µs", True),
              ("open.floor.closed_c1.p50_us", "floor, closed loop, concurrency 1: GET p50", "µs", True)]
    for rate in OPEN_RATES:
        at = f"{rate:,}/s"
        opened += [
            (f"open.{rate}.cpu_us", f"{at}: client CPU", "µs/op", True),
            (f"open.{rate}.cpu_ratio", f"{at}: client CPU / closed loop's", "×", True),
            (f"open.{rate}.lag_p50_us", f"{at}: schedule lag p50", "µs", True),
            (f"open.{rate}.sent_pct", f"{at}: sent of asked", "%", True),
            (f"open.{rate}.p50_us", f"{at}: GET p50", "µs", True),
            (f"open.{rate}.minus_closed_us", f"{at}: open − closed p50", "µs", False),
            (f"open.{rate}.floor.cpu_us", f"{at}, floor: CPU", "µs/op", True),
            (f"open.{rate}.over_floor", f"{at}: client CPU / floor's", "×", True),
            (f"open.{rate}.floor.lag_p50_us", f"{at}, floor: schedule lag p50", "µs", True),
            (f"open.{rate}.floor.minus_closed_us", f"{at}, floor: open − closed p50", "µs", False),
        ]
    listed = [(f"list.{m}.cpu_us_per_key", f"{m}: client CPU", "µs/key", True) for m in LIST_MODES]
    big = [row for key, label in BIG_ROWS for op in BIG_OPS[key] for row in (
        (f"big.{key}.{op}.cpu_s_per_gib", f"{op.upper()} {label}: CPU", "s/GiB", True),
        (f"big.{key}.{op}.gib_per_s", f"{op.upper()} {label}: rate", "GiB/s", True))]
    big += [(f"big.curl.{op}.cpu_s_per_gib", f"curl {op.upper()} 256 MiB, one stream: CPU", "s/GiB", True)
            for op in ("put", "get")]
    big += [("big.floor.send.cpu_s_per_gib", "bare loopback socket, send (16 MiB writes): CPU", "s/GiB", True),
            ("big.floor.receive.cpu_s_per_gib", "bare loopback socket, receive (1 MiB reads): CPU", "s/GiB", True)]
    picks = [("keys.file.cpu_us", "GET picked from a key file: client CPU", "µs/op", True),
             ("keys.keyspace.cpu_us", "GET of keystorm's keyspace: client CPU", "µs/op", True),
             ("keys.difference_us", "key file − keyspace", "µs/op", False)]
    verify = [row for size in ("1KiB", "4KiB") for row in (
        (f"verify.{size}.plain_us", f"GET {size[0]} KiB: client CPU", "µs/op", True),
        (f"verify.{size}.verified_us", f"GET {size[0]} KiB verify: client CPU", "µs/op", True),
        (f"verify.{size}.added_pct", f"GET {size[0]} KiB: verify adds", "%", False))]
    verify += [("verify.1MiB.plain_us_per_mib", "GET 1 MiB: client CPU", "µs/MiB", True),
               ("verify.1MiB.verified_us_per_mib", "GET 1 MiB verify: client CPU", "µs/MiB", True),
               ("verify.1MiB.added_pct", "GET 1 MiB: verify adds", "%", False)]
    rss = [row for n in s.fills for row in (
        (f"rss.{n}.peak_mib", f"after filling {n:,} keys", "MiB", True),
        (f"rss.{n}.anon_mib", f"after filling {n:,} keys: anonymous", "MiB", True))]
    sim = [(f"sim.{m}.bytes_per_object", f"{m} storage", "B/object", True) for m in ("memory", "size-only")]
    return [
        ("Closed loop, 1 KiB objects (LIST: 1000-key pages), concurrency 64", closed),
        ("Open loop, fast client, GET 1 KiB, 64 workers (closed loop: GET fast above, p50 at concurrency 1)", opened),
        (f"keystorm list of {s.list_keys:,} keys (64 listers where parallel, 2 ms per page)", listed),
        ("Big objects, size-only target, fast client unless said (16 MiB: 8 workers; larger: 4, parts 16 MiB, 4 at once)", big),
        (f"Key picks: GETs of 6-byte objects, {s.pick_keys:,} keys, 32 workers", picks),
        ("verify: true, fast client (1, 4 KiB: concurrency 64; 1 MiB: 8), the MD5s known", verify),
        ("Client peak RSS (VmHWM) and its anonymous part (RssAnon) after a fill, size-only target, 6-byte objects, concurrency 64", rss),
        (f"keystorm sim memory, {s.sim_objects:,} PUTs of 1 KiB", sim),
    ]


def derive(values):
    """Adds the rows drawn from two measurements: open-loop CPU over closed-loop CPU,
    and client CPU over the floor's at the same shape."""
    def over(key, of, by):
        if values.get(by) and values.get(of) is not None:
            values[key] = values[of] / values[by]
    for op, _ in FLOOR_OPS:
        over(f"closed.{op}.fast.over_floor", f"closed.{op}.fast.cpu_us", f"closed.{op}.floor.cpu_us")
    for rate in OPEN_RATES:
        over(f"open.{rate}.cpu_ratio", f"open.{rate}.cpu_us", "closed.get.fast.cpu_us")
        over(f"open.{rate}.over_floor", f"open.{rate}.cpu_us", f"open.{rate}.floor.cpu_us")


def ratio(row, new, base):
    if not row[3] or new is None or base is None or base <= 0 or new < 0:
        return None
    return new / base


def fmt(v, signed=False):
    if v is None:
        return DASH
    if isinstance(v, int):
        return f"{v:{'+' if signed else ''},}"
    a = abs(v)
    digits = 0 if a >= 100 else 1 if a >= 10 else 2
    return f"{v:{'+' if signed else ''},.{digits}f}"


def table(s, values, tags):
    """The table's lines; `values`: {tag: {key: value}}, `tags` in column order."""
    width = 52
    two = len(tags) == 2
    head = f"{'':{width}} {'unit':>8} " + " ".join(f"{t:>10}" for t in tags)
    lines = [head + (f" {tags[0] + '/' + tags[1]:>13}" if two else "")]
    for title, rows in sections(s):
        lines.append(title)
        for row in rows:
            key, label, unit, _ = row
            cells = [values[t].get(key) for t in tags]
            line = f"  {label:{width - 2}} {unit:>8} " + " ".join(f"{fmt(c, not row[3]):>10}" for c in cells)
            if two:
                r = ratio(row, *cells)
                line += f" {fmt(r) if r is not None else DASH:>13}"
            lines.append(line)
    return lines


def json_rows(s, values, tags):
    out = []
    for title, rows in sections(s):
        for row in rows:
            key, label, unit, _ = row
            entry = {"key": key, "section": title, "label": label, "unit": unit}
            entry |= {t: values[t].get(key) for t in tags}
            if len(tags) == 2:
                entry["ratio"] = ratio(row, *(values[t].get(key) for t in tags))
            out.append(entry)
    return out
