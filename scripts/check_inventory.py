#!/usr/bin/env python3
"""Reads a Parquet inventory written by `keystorm list --keys FILE.parquet` with pyarrow
and checks it against the bucket server/app/tests/inventory_pyarrow.rs made: every key
0..N-1 once, with its size and ETag, the columns of the documented types. Exits 1 with
the first problems found; prints one line when the file holds exactly the bucket.

The bucket's objects, the same function in the test:
  key(i)  = "inv/{i % 1000:03}/{i:07}" + SUFFIXES[i % 4]
  size(i) = i * 7919 % 100003
  etag(i) = hex of the 16 big-endian bytes of (i * ETAG_STEP) mod 2**128
  with --metadata: {"owner": "team-{i % 5}", "note": 'a, "b"'} when i % 3 == 0, else none
"""

import argparse
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq

SUFFIXES = ["", " with space", ',"quoted"', "/ünï☺%2B+&"]
ETAG_STEP = 0x9E3779B97F4A7C15F39CC0605CEDC834


def key(i):
    return f"inv/{i % 1000:03}/{i:07}{SUFFIXES[i % 4]}"


def size(i):
    return i * 7919 % 100003


def etag(i):
    return ((i * ETAG_STEP) % 2**128).to_bytes(16, "big").hex()


def metadata(i):
    return {"owner": f"team-{i % 5}", "note": 'a, "b"'} if i % 3 == 0 else {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--keys", type=int, required=True, help="objects in the bucket")
    ap.add_argument("--metadata", action="store_true", help="the inventory was written with --head")
    args = ap.parse_args()

    started = time.monotonic()
    problems = []
    table = pq.read_table(args.file)
    want = {
        "key": pa.string(),
        "size": pa.int64(),
        "etag": pa.string(),
        "last_modified": pa.timestamp("ms", tz="UTC"),
        "storage_class": pa.string(),
    }
    if args.metadata:
        want["metadata"] = pa.map_(pa.string(), pa.string())
    got = {f.name: f.type for f in table.schema}
    if list(got) != list(want):
        problems.append(f"columns {list(got)}, expected {list(want)}")
    for name, t in want.items():
        if name not in got:
            continue
        g = got[name]
        # A map's entries may be named and its values marked non-null: key and value
        # types are what a reader sees.
        same = (pa.types.is_map(g) and g.key_type.equals(t.key_type) and g.item_type.equals(t.item_type)
                if pa.types.is_map(t) else g.equals(t))
        if not same:
            problems.append(f"column {name} is {g}, expected {t}")
    if table.num_rows != args.keys:
        problems.append(f"{table.num_rows} rows, expected {args.keys}")

    seen = bytearray(args.keys)
    repeated = 0
    columns = {name: table.column(name).to_pylist() for name in want if name in got}
    for row in range(table.num_rows):
        k = columns["key"][row]
        try:
            i = int(k.split("/")[2][:7])
        except (AttributeError, IndexError, ValueError):
            problems.append(f"row {row}: a key not of the bucket: {k!r}")
            continue
        if not 0 <= i < args.keys or k != key(i):
            problems.append(f"row {row}: a key not of the bucket: {k!r}")
            continue
        if seen[i]:
            repeated += 1
            if repeated <= 5:
                problems.append(f"row {row}: {k!r} again")
            continue
        seen[i] = 1
        if columns["size"][row] != size(i):
            problems.append(f"{k!r}: size {columns['size'][row]}, expected {size(i)}")
        if columns["etag"][row] != etag(i):
            problems.append(f"{k!r}: ETag {columns['etag'][row]!r}, expected {etag(i)!r}")
        if "last_modified" in columns and columns["last_modified"][row] is None:
            problems.append(f"{k!r}: no last_modified")
        if "storage_class" in columns and columns["storage_class"][row] != "STANDARD":
            problems.append(f"{k!r}: storage class {columns['storage_class'][row]!r}")
        if args.metadata and "metadata" in columns:
            m = dict(columns["metadata"][row] or [])
            if m != metadata(i):
                problems.append(f"{k!r}: metadata {m!r}, expected {metadata(i)!r}")
        if len(problems) > 20:
            break
    missing = args.keys - sum(seen)
    if missing and len(problems) <= 20:
        first = [key(i) for i in range(args.keys) if not seen[i]][:5]
        problems.append(f"{missing} keys missing, the first {first!r}")
    if repeated:
        problems.append(f"{repeated} keys repeated")

    if problems:
        print(f"inventory check FAILED: {args.file}:", file=sys.stderr)
        for p in problems[:20]:
            print(f"  {p}", file=sys.stderr)
        sys.exit(1)
    print(
        f"inventory check passed: {args.file}: {table.num_rows} rows, every key once with its "
        f"size and ETag{' and metadata' if args.metadata else ''} "
        f"(pyarrow {pa.__version__}, {pq.ParquetFile(args.file).num_row_groups} row groups, "
        f"read and checked in {time.monotonic() - started:.1f} s)"
    )


if __name__ == "__main__":
    main()
