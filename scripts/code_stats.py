#!/usr/bin/env python3
"""Size of the code, for keeping it readable: lines of `src` per crate, the largest
source files and the longest functions (Rust `fn` bodies and top-level TypeScript
components/functions in the web UI).

A function's length is the lines from its signature to its closing brace, found by
counting braces outside strings, characters and comments; `#[cfg(test)]` modules and
test files are left out, as they are not what a newcomer reads first.

    scripts/code_stats.py [--top N]
"""

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RUST_FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)")
TS_FN = re.compile(
    r"^(export\s+)?(default\s+)?(async\s+)?function\s+(\w+)|^(export\s+)?const\s+(\w+)\s*=\s*(async\s*)?\("
)


def strip_code(line: str, state: dict) -> str:
    """The line with strings, chars and comments blanked; `state` carries block comments."""
    out = []
    i = 0
    while i < len(line):
        c = line[i]
        if state.get("block"):
            if line.startswith("*/", i):
                state["block"] = False
                i += 2
            else:
                i += 1
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"] = True
            i += 2
            continue
        if c in "\"`":
            j = i + 1
            while j < len(line) and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        if c == "'":
            # A Rust char ('x', '\n', '{') or a TS string; a Rust lifetime has no closing quote.
            m = re.match(r"'(\\.|[^'\\])'", line[i:])
            if m:
                i += len(m.group(0))
                continue
            j = line.find("'", i + 1)
            if j > 0 and not re.match(r"'[a-z_]+\b", line[i:]):
                i = j + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def functions(path: Path, pattern, name_groups):
    """(name, first line, length) of every function in `path`, outside test modules."""
    lines = path.read_text(encoding="utf-8").splitlines()
    state: dict = {}
    stack = []  # (name, start line, depth at which it opened)
    depth = 0
    skip_from = None
    found = []
    pending = None
    parens = 0  # open parentheses since the pending signature began
    for n, raw in enumerate(lines, 1):
        if raw.strip() == "#[cfg(test)]":
            skip_from = depth
        code = strip_code(raw, state)
        m = pattern.match(raw)
        if m and skip_from is None:
            name = next(g for g in (m.group(k) for k in name_groups) if g)
            pending = (name, n)
            parens = 0
        for c in code:
            if c in "([":
                parens += 1
            elif c in ")]":
                parens -= 1
            elif c == "{":
                if pending and parens == 0:
                    stack.append((pending[0], pending[1], depth))
                    pending = None
                depth += 1
            elif c == "}":
                depth -= 1
                if stack and stack[-1][2] == depth:
                    name, start, _ = stack.pop()
                    found.append((name, start, n - start + 1))
                if skip_from is not None and depth <= skip_from:
                    skip_from = None
        if pending and parens == 0 and code.rstrip().endswith(";"):
            pending = None  # a declaration without a body
    return found


def test_modules(src: Path) -> set:
    """Files declared as `#[cfg(test)] mod name;`: tests kept beside the code."""
    found = set()
    for f in src.rglob("*.rs"):
        text = f.read_text(encoding="utf-8")
        for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+(\w+)\s*;", text):
            base = f.parent if f.name in ("mod.rs", "lib.rs", "main.rs") else f.with_suffix("")
            found.update({base / f"{m.group(1)}.rs", base / m.group(1) / "mod.rs"})
    return found


def source_files():
    for crate in sorted((ROOT / "server").iterdir()):
        tests = test_modules(crate / "src")
        for f in sorted((crate / "src").rglob("*.rs")):
            if f not in tests:
                yield f"rust/{crate.name}", f
    for f in sorted((ROOT / "web" / "src").rglob("*.ts*")):
        if ".test." in f.name or f.name.endswith(".gen.ts"):
            continue
        yield "web", f


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()

    per_crate: dict = {}
    sizes = []
    fns = []
    for crate, f in source_files():
        count = len(f.read_text(encoding="utf-8").splitlines())
        per_crate[crate] = per_crate.get(crate, 0) + count
        rel = f.relative_to(ROOT)
        sizes.append((count, str(rel)))
        if f.suffix == ".rs":
            found = functions(f, RUST_FN, [6])
        else:
            found = functions(f, TS_FN, [4, 6])
        fns.extend((length, f"{rel}:{start} {name}") for name, start, length in found)

    print("lines of src per crate")
    for crate, count in sorted(per_crate.items()):
        print(f"  {crate:<16} {count:>7,}")
    print(f"largest files (top {args.top})")
    for count, rel in sorted(sizes, reverse=True)[: args.top]:
        print(f"  {count:>5}  {rel}")
    print(f"longest functions (top {args.top})")
    for length, where in sorted(fns, reverse=True)[: args.top]:
        print(f"  {length:>5}  {where}")


if __name__ == "__main__":
    main()
