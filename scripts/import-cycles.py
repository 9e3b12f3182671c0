#!/usr/bin/env python3
"""Import circles between the source files of each crate.

A file imports another when it names an item of that file's module: a `use` of, or a path
through, `crate::…`, `super::…` or `self::…` (a `mod x;` declaration is not an import). Prints
each strongly connected group of files, largest first; exits 1 when a group has more than
`--max` files (default 2).
"""
import argparse
import os
import re
import sys

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+|::\{)")


def module_files(src):
    """Module path (tuple) -> file, for every .rs file under src."""
    files = {}
    for root, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            full = os.path.join(root, name)
            rel = os.path.relpath(full, src)[:-3].split(os.sep)
            if rel == ["main"] and os.path.exists(os.path.join(src, "lib.rs")):
                continue  # a binary's own crate root, beside the library's
            if rel in (["lib"], ["main"]):
                mod = ()
            elif rel[-1] == "mod":
                mod = tuple(rel[:-1])
            else:
                mod = tuple(rel)
            files[mod] = full
    return files


def strip(text):
    """The code without comments, string and character literals (paths in them are not
    imports)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "r" and re.match(r'r#*"', text[i:]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            out.append('""')
            i = n if end < 0 else end + 1 + len(hashes)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'":
            # A character literal ('x', '\n', '\u{..}'), or a lifetime ('a).
            m = re.match(r"'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^'\\])'", text[i:])
            if m:
                out.append("' '")
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def use_trees(text):
    """Expands `use a::{b, c::{d}}` into paths a::b, a::c::d."""
    out = []
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        tree = re.sub(r"\s*(::|[{},])\s*", r"\1", re.sub(r"\s+", " ", m.group(1)).strip())
        out.extend((p, m.start()) for p in expand(tree))
    return out


def expand(tree):
    depth, brace = 0, -1
    for i, ch in enumerate(tree):
        if ch == "{":
            brace = i
            break
    if brace < 0:
        return [tree.split(" as ")[0].strip()]
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    out = []
    for p in parts:
        if p:
            out.extend(expand(prefix + p))
    return out


def inline_modules(text):
    """(start, end) of every inline `mod name { … }` block."""
    spans = []
    for m in re.finditer(r"\bmod\s+\w+\s*\{", text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        spans.append((m.start(), i))
    return spans


def target(files, here, path, inline=0):
    """The module file a path names, or None (outside the crate). `inline`: how many inline
    `mod { }` blocks of the file the path sits in (their `super::`s stay in the file)."""
    segs = path.split("::")
    if segs[0] == "crate":
        mod, rest = (), segs[1:]
    elif segs[0] in ("super", "self"):
        mod = list(here)
        rest = segs
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                if inline:
                    inline -= 1
                else:
                    mod = mod[:-1]
            rest = rest[1:]
        mod = tuple(mod)
    else:
        return None
    best = mod
    cur = list(mod)
    for s in rest:
        cur.append(s)
        if tuple(cur) in files:
            best = tuple(cur)
        else:
            break
    return best if best in files else None


def graph(src):
    files = module_files(src)
    edges = {m: set() for m in files}
    for mod, path in files.items():
        with open(path, encoding="utf-8") as f:
            text = strip(f.read())
        # Inline `mod tests { … }` blocks are part of the file: their `super::` is the file.
        spans = inline_modules(text)
        depth = lambda at: sum(1 for a, b in spans if a < at < b)
        paths = [(p, depth(at)) for p, at in use_trees(text)]
        # Braced paths (`super::{a, b}`) are read from their `use` above.
        paths += [(m.group(1) + m.group(2), depth(m.start())) for m in PATH.finditer(text) if m.group(2) != "::{"]
        for p, inline in paths:
            p = p.rstrip(":")
            if not re.match(r"(crate|super|self)\b", p):
                continue
            t = target(files, mod, p, inline)
            if t is not None and t != mod:
                edges[mod].add(t)
    return files, edges


def sccs(edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            out.append(group)

    for v in edges:
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=2)
    ap.add_argument("crates", nargs="*")
    args = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    crates = args.crates or sorted(
        os.path.join(d, "src")
        for d in [os.path.join(root, "crates", c) for c in os.listdir(os.path.join(root, "crates"))]
        + [os.path.join(root, "cli"), os.path.join(root, "fixtures")]
        if os.path.isdir(os.path.join(d, "src"))
    )
    worst = 0
    for src in crates:
        files, edges = graph(src)
        for group in sorted(sccs(edges), key=len, reverse=True):
            if len(group) < 2:
                continue
            worst = max(worst, len(group))
            names = sorted(os.path.relpath(files[m], src) for m in group)
            print(f"{os.path.relpath(src, root)}: {len(group)} files: {' '.join(names)}")
    if worst > args.max:
        print(f"an import circle has {worst} files (at most {args.max})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
