"""Big objects: client CPU per GiB moved, for PUT and GET of 16 MiB to 1 GiB objects in
one request and in parts (multipart uploads, ranged GETs, 4 parts of 16 MiB at once),
and what payload signing, the SDK's request checksums and `verify` each add; beside
them, plain `curl` moving the same bytes one stream at a time.

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

# (key, object size in MiB, target fields, phase fields, which ops, content)
CONFIGS = (
    ("16MiB", 16, "", "parts_above: 1GiB", ("put", "get"), "random"),
    ("256MiB", 256, "", "parts_above: 1GiB", ("put", "get"), "random"),
    ("256MiB.parts", 256, "", "part_size: 16MiB, parts_in_flight: 4", ("put", "get"), "random"),
    ("1GiB.parts", 1024, "", "part_size: 16MiB, parts_in_flight: 4", ("put", "get"), "random"),
    ("16MiB.signed", 16, ", payload_signing: true", "parts_above: 1GiB", ("put",), "random"),
    ("256MiB.parts.signed", 256, ", payload_signing: true", "part_size: 16MiB, parts_in_flight: 4",
     ("put",), "random"),
    ("16MiB.sdk", 16, ", client: sdk", "parts_above: 1GiB", ("put", "get"), "random"),
    ("16MiB.sdk.checksums", 16, ", client: sdk, checksums: true", "parts_above: 1GiB", ("put",), "random"),
    # The target answers zeros: zeros are what was written, so every GET verifies.
    ("16MiB.zero", 16, "", "parts_above: 1GiB", ("put", "get"), "zero"),
    ("16MiB.verify", 16, "", "parts_above: 1GiB, verify: true", ("put", "get"), "zero"),
)

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


def workload(endpoint, seed, size_mib, target, phase, ops, content, count):
    workers = min(8 if size_mib <= 16 else 4, count)
    phases = ", ".join(
        f"{{ name: {op}, op: {op}, workers: {workers}, operations: {count}, {phase} }}"
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
        text = workload(endpoint, seed, size_mib, target, phase, ops, content, count)
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
    with tempfile.TemporaryDirectory() as d:
        body = os.path.join(d, "body")
        with open(body, "wb") as f:
            f.truncate(size)
        for op in ("put", "get"):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            for i in range(count):
                url = f"{endpoint}/big/curl-{i}"
                args = ["-T", body] if op == "put" else ["-o", "/dev/null"]
                done = subprocess.run(["curl", "-sS", "--fail", *args, url], capture_output=True, text=True)
                if done.returncode != 0:
                    sys.exit(f"curl {op} {url}: {done.stderr.strip()}")
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            out[f"big.curl.{op}.cpu_s_per_gib"] = cpu / (count * size / GIB)
    return out
