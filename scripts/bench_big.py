"""Big objects: client CPU per GiB moved, for PUT and GET of 16 MiB to 1 GiB objects in
one request and in parts (multipart uploads, ranged GETs, 4 parts of 16 MiB at once),
and what payload signing, the SDK's request checksums and `verify` each add; beside
them, plain `curl` moving the same bytes one stream at a time, and the floor: a bare
loopback socket sending and receiving with nothing else to do.

The target is `keystorm sim --storage size-only` in its own process (it keeps sizes and
MD5s, and answers GETs with zeros), so the CPU counted is the client's alone. A build
that cannot run a configuration (one from before parts in operations phases) gets no
figure for it rather than failing the table.
"""

import os
import resource
import subprocess
import sys
import tempfile

from bench_common import run

MIB = 2**20
GIB = 2**30

# (key, object size in MiB, target fields, phase fields, which ops, content); a GET
# phase also gets the fields of GET_ONLY.
# 16 MiB objects are below the default `parts_above` (64 MiB), so their phases carry no
# part settings and builds from before parts in operations phases run them too.
CONFIGS = (
    ("16MiB", 16, "", "", ("put", "get"), "random"),
    ("256MiB", 256, "", "parts_above: 1GiB", ("put", "get"), "random"),
    ("256MiB.parts", 256, "", "part_size: 16MiB, parts_in_flight: 4", ("put", "get"), "random"),
    ("1GiB.parts", 1024, "", "part_size: 16MiB, parts_in_flight: 4", ("put", "get"), "random"),
    ("16MiB.signed", 16, ", payload_signing: true", "", ("put",), "random"),
    ("256MiB.parts.signed", 256, ", payload_signing: true", "part_size: 16MiB, parts_in_flight: 4",
     ("put",), "random"),
    ("16MiB.sdk", 16, ", client: sdk", "", ("put", "get"), "random"),
    ("16MiB.sdk.checksums", 16, ", client: sdk, checksums: true", "", ("put",), "random"),
    # The target answers zeros: zeros are what was written, so every GET verifies.
    ("16MiB.zero", 16, "", "", ("put", "get"), "zero"),
    ("16MiB.verify", 16, "", "", ("put", "get"), "zero"),
)
GET_ONLY = {"16MiB.verify": "verify: true"}

# (key, label) of the rows, in the table's order.
ROWS = (
    ("16MiB", "16 MiB, one request"),
    ("256MiB", "256 MiB, one request"),
    ("256MiB.parts", "256 MiB in parts / ranges"),
    ("1GiB.parts", "1 GiB in parts / ranges"),
    ("16MiB.signed", "16 MiB, payload_signing"),
    ("256MiB.parts.signed", "256 MiB in parts, payload_signing"),
    ("16MiB.sdk", "16 MiB, client: sdk"),
    ("16MiB.sdk.checksums", "16 MiB, client: sdk, checksums"),
    ("16MiB.zero", "16 MiB of zeros"),
    ("16MiB.verify", "16 MiB of zeros, verify"),
)


def workload(endpoint, seed, size_mib, target, phase, ops, content, count, get_only=""):
    workers = min(8 if size_mib <= 16 else 4, count)
    def fields(op):
        return ", ".join(f for f in (phase, get_only if op == "get" else "") if f)
    phases = ", ".join(
        f"{{ name: {op}, op: {op}, workers: {workers}, operations: {count}"
        f"{', ' + fields(op) if fields(op) else ''} }}"
        for op in ops
    )
    return f"""name: big-{seed}
target: {{ endpoint: "{endpoint}"{target} }}
buckets: {{ names: [big] }}
keyspace: {{ seed: {seed}, prefix: "g{seed}/" }}
objects: {{ size: {size_mib}MiB, content: {content} }}
rounds: {{ count: 1, phases: [{phases}] }}
"""


def measure(endpoint, seeds, bin, results, total_gib):
    """{big.CONFIG.OP.cpu_s_per_gib, …gib_per_s} for every configuration this build
    runs, and the rows it ran (for their error counts)."""
    out, rows = {}, []
    for key, size_mib, target, phase, ops, content in CONFIGS:
        count = max(2, total_gib * 1024 // size_mib)
        seed = next(seeds)
        text = workload(endpoint, seed, size_mib, target, phase, ops, content, count, GET_ONLY.get(key, ""))
        try:
            _, summary = run(text, results, f"big-{seed}", bin=bin)
        except SystemExit as e:
            print(f"big objects {key}: this build cannot run it ({str(e).splitlines()[0]})",
                  file=sys.stderr)
            continue
        for r in (r for r in summary["rows"] if r["section"] == "round"):
            mib = max(r["bytes"] / MIB, 1e-9)
            out[f"big.{key}.{r['op']}.cpu_s_per_gib"] = r["client_cpu_s"] / mib * 1024
            out[f"big.{key}.{r['op']}.gib_per_s"] = r["mib_per_sec"] / 1024
            rows.append(r)
    return out, rows


def curl(endpoint, total_gib):
    """Client CPU (user + system) per GiB of `curl` PUTting and GETting 256 MiB objects,
    one stream at a time, unsigned: {big.curl.put.cpu_s_per_gib, big.curl.get...}."""
    size = 256 * MIB
    count = max(2, total_gib * GIB // size)
    out = {}
    bucket = subprocess.run(["curl", "-sS", "--fail", "-X", "PUT", f"{endpoint}/curl"],
                            capture_output=True, text=True)
    if bucket.returncode != 0:
        sys.exit(f"curl: cannot create bucket curl: {bucket.stderr.strip()}")
    with tempfile.TemporaryDirectory() as d:
        body = os.path.join(d, "body")
        with open(body, "wb") as f:
            f.truncate(size)
        for op in ("put", "get"):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            for i in range(count):
                url = f"{endpoint}/curl/object-{i}"
                args = ["-T", body] if op == "put" else ["-o", "/dev/null"]
                done = subprocess.run(["curl", "-sS", "--fail", *args, url], capture_output=True, text=True)
                if done.returncode != 0:
                    sys.exit(f"curl {op} {url}: {done.stderr.strip()}")
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            out[f"big.curl.{op}.cpu_s_per_gib"] = cpu / (count * size / GIB)
    return out


def floor(total_gib):
    """CPU per GiB of a bare loopback TCP stream, nothing else done with the bytes: the
    receiver reading 1 MiB at a time (this process's thread), the sender writing 16 MiB
    at a time (a child process). What the kernel's copies and TCP cost on this machine,
    below which no client goes: {big.floor.receive.cpu_s_per_gib, big.floor.send...}."""
    import socket
    import time
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    address = listener.getsockname()
    total = total_gib * GIB
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    pid = os.fork()
    if pid == 0:
        try:
            listener.close()
            s = socket.create_connection(address)
            buf = memoryview(bytearray(16 * MIB))
            left = total
            while left:
                left -= s.send(buf[:min(len(buf), left)])
            s.close()
        finally:
            os._exit(0)
    conn, _ = listener.accept()
    buf = memoryview(bytearray(MIB))
    started, got = time.thread_time(), 0
    while n := conn.recv_into(buf):
        got += n
    receive = time.thread_time() - started
    os.waitpid(pid, 0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    send = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    conn.close()
    listener.close()
    return {"big.floor.receive.cpu_s_per_gib": receive / (got / GIB),
            "big.floor.send.cpu_s_per_gib": send / (got / GIB)}
