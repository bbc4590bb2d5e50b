"""The floor of a small request: the same 1 KiB GET, HEAD or PUT exchanged over bare
loopback sockets with the target by a minimal client in C (scripts/bench_floor.c: one
thread, an epoll loop, no HTTP library, no signing, no recording).

What that client's CPU comes to per request, and in open loop how late its requests
leave and how much its latency grows over a closed loop's, is what the machine itself
costs: no client does better on it. The table shows keystorm's figures beside these, and
keystorm's over the floor's.

    python3 scripts/bench_floor.py ENDPOINT   prints the floor's figures against a
                                              `keystorm sim` (which does not check
                                              signatures)
"""

import atexit
import functools
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
from urllib.parse import urlsplit

KIB = 1024
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_floor.c")
OBJECT = "/floor/object"
# What the closed-loop floor exchanges, as keystorm's table measures them.
FLOOR_METHODS = ("GET", "HEAD", "PUT")


@functools.cache
def program():
    """bench_floor.c built with the machine's C compiler (the one cargo links with)."""
    folder = tempfile.mkdtemp(prefix="keystorm-floor-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    out = os.path.join(folder, "floor")
    cc = os.environ.get("CC", "cc")
    built = subprocess.run([cc, "-O2", "-o", out, SOURCE], capture_output=True, text=True)
    if built.returncode != 0:
        sys.exit(f"floor: {cc} could not build {SOURCE}:\n{built.stderr}")
    return out


def exchange(endpoint, shape, n, arg, method="GET"):
    """Runs the floor client: `shape` "closed" (`arg` connections) or "open" (`arg`
    requests a second), `n` GETs or HEADs of the floor object, or PUTs of 1 KiB beside
    it; its figures."""
    url = urlsplit(endpoint)
    host, port = url.hostname, url.port or 80
    put(host, port, "/floor", b"")
    put(host, port, OBJECT, b"x" * KIB)
    path = OBJECT + "-put" if method == "PUT" else OBJECT
    out = subprocess.run([program(), shape, method, host, str(port), path, str(n), str(arg)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"floor: {shape} {method} {n} {arg} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def closed(endpoint, n, conc=64):
    """{closed.OP.floor.cpu_us}: CPU µs per GET, HEAD and PUT, `n` of each over `conc`
    connections."""
    return {f"closed.{m.lower()}.floor.cpu_us": exchange(endpoint, "closed", n, conc, m)["cpu_us"]
            for m in FLOOR_METHODS}


def opened(endpoint, rates, seconds, closed_ops):
    """The open-loop floor: the closed loop's p50 at concurrency 1 (`closed_ops` GETs),
    then for each rate (GETs a second, for `seconds`) CPU µs per GET, schedule lag p50,
    and GET p50 less the closed loop's."""
    c1 = exchange(endpoint, "closed", closed_ops, 1)["p50_us"]
    out = {"open.floor.closed_c1.p50_us": c1}
    for rate in rates:
        r = exchange(endpoint, "open", round(rate * seconds), rate)
        out |= {f"open.{rate}.floor.cpu_us": r["cpu_us"],
                f"open.{rate}.floor.lag_p50_us": r["lag_p50_us"],
                f"open.{rate}.floor.minus_closed_us": r["p50_us"] - c1}
    return out


def put(host, port, path, body):
    c = http.client.HTTPConnection(host, port, timeout=10)
    try:
        c.request("PUT", path, body=body)
        r = c.getresponse()
        r.read()
    except OSError as e:
        sys.exit(f"floor: PUT {path} to {host}:{port}: {e}")
    finally:
        c.close()
    if r.status >= 300 and not (path.count("/") == 1 and r.status == 409):
        sys.exit(f"floor: PUT {path} answered {r.status}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    figures = closed(sys.argv[1], 100_000) | opened(sys.argv[1], (200, 1_000, 10_000, 50_000), 5, 5_000)
    for key, value in figures.items():
        print(f"{key:40} {value:10.1f}")
