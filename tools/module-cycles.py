#!/usr/bin/env python3
"""Import circles between the modules of a Rust crate.

Reads every `.rs` file under each given `src/` directory, finds the paths it names
inside the crate (`use crate::…`, `crate::x::y` in code, `super::…`, `self::…`, a
child module by its name), and prints the strongly connected components of the
module graph that have more than one member: modules that import each other,
directly or around a circle.

A node is a top-level module of the crate (`tables/settler.rs` counts as `tables`);
`--files` makes each file its own node, a parent and its children apart. Comments,
string literals and `#[cfg(test)]` items are skipped: a test may reach anywhere.
Paths that leave through a re-export of the crate root (`crate::ApiError`) count for
the module that defines the name.

    tools/module-cycles.py crates/*/src services/*/src
    tools/module-cycles.py --files --edges services/gomoku-referee/src

Exits 1 if a circle is found (after `--allow NAME` removes the named modules from the
check), so CI can run it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_code(text: str) -> str:
    """Comments and string/char literals blanked out (lengths kept loosely)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            i = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:]):
            i += len(re.match(r"'(\\.[^']*|[^\\'])'", text[i:]).group(0))
            out.append("' '")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_test_items(code: str) -> str:
    """Removes each `#[cfg(test)]` item (a `mod … { … }`, a `use …;`, a `fn`)."""
    while True:
        m = re.search(r"#\[cfg\(test\)\]", code)
        if not m:
            return code
        j = m.end()
        # the item ends at its `;` or at the brace matching its first `{`
        semi, brace = code.find(";", j), code.find("{", j)
        if brace < 0 or (0 <= semi < brace):
            end = semi + 1
        else:
            depth, k = 0, brace
            while k < len(code):
                if code[k] == "{":
                    depth += 1
                elif code[k] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            end = k + 1
        code = code[: m.start()] + code[end:]


def expand_use_tree(tree: str) -> list[list[str]]:
    """`a::{b, c::{d, e}}` -> [[a, b], [a, c, d], [a, c, e]]."""
    tree = re.sub(r"\s+", "", tree)
    results: list[list[str]] = []

    def walk(s: str, prefix: list[str]) -> None:
        if "{" not in s:
            parts = [p for p in s.split("::") if p]
            parts = [p.split(" as ")[0] for p in parts]
            results.append(prefix + parts)
            return
        head, _, rest = s.partition("{")
        body = rest[: rest.rfind("}")]
        head_parts = [p for p in head.split("::") if p]
        depth, start = 0, 0
        for k, ch in enumerate(body + ","):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                item = body[start:k]
                start = k + 1
                if item:
                    walk(item, prefix + head_parts)

    walk(tree, [])
    return results


class Crate:
    def __init__(self, src: Path):
        self.src = src
        self.files: dict[tuple[str, ...], Path] = {}
        for path in sorted(src.rglob("*.rs")):
            rel = path.relative_to(src).with_suffix("")
            parts = list(rel.parts)
            if parts == ["main"] and (src / "lib.rs").exists():
                continue  # a binary beside a library is a crate of its own
            if parts == ["lib"] or parts == ["main"]:
                module: tuple[str, ...] = ()
            elif parts[-1] == "mod":
                module = tuple(parts[:-1])
            else:
                module = tuple(parts)
            if module == ("bin",) or (module and module[0] == "bin"):
                continue
            self.files[module] = path
        self.code = {
            m: strip_test_items(strip_code(p.read_text(encoding="utf-8")))
            for m, p in self.files.items()
        }
        # names the root re-exports (`pub use error::ApiError;`), for `crate::ApiError`
        self.root_exports: dict[str, tuple[str, ...]] = {}
        for path in self.uses_in(()):
            if path and path[0] in self.children(()):
                self.root_exports.setdefault(path[-1], (path[0],))

    def children(self, module: tuple[str, ...]) -> set[str]:
        return {m[len(module)] for m in self.files if len(m) > len(module) and m[: len(module)] == module}

    def uses_in(self, module: tuple[str, ...]) -> list[list[str]]:
        """The paths of the module's `pub use` declarations."""
        code = self.code.get(module, "")
        pattern = r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);"
        return [p for m in re.finditer(pattern, code) for p in expand_use_tree(m.group(1))]

    def resolve(self, module: tuple[str, ...], path: list[str]) -> tuple[str, ...] | None:
        """The deepest module (file) of the crate a path names, or None if outside."""
        if not path:
            return None
        if path[0] == "crate":
            base: tuple[str, ...] = ()
            rest = path[1:]
        elif path[0] in ("self", "super"):
            base = module
            rest = path
            while rest and rest[0] in ("self", "super"):
                if rest[0] == "super":
                    base = base[:-1]
                rest = rest[1:]
        elif path[0] in self.children(module):
            base, rest = module, path
        else:
            return None
        target = base
        for seg in rest:
            if target + (seg,) in self.files:
                target = target + (seg,)
            else:
                break
        if target == () and rest and rest[0] in self.root_exports:
            target = self.root_exports[rest[0]]
        return target

    def edges(self) -> dict[tuple[str, ...], set[tuple[str, ...]]]:
        graph: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in self.files}
        for module, code in self.code.items():
            paths: list[list[str]] = []
            for m in re.finditer(r"\buse\s+([^;]+);", code):
                paths.extend(expand_use_tree(m.group(1)))
            # paths written in place: crate::a::b, super::a, self::a, child::a
            for m in re.finditer(rf"(?<![\w:])((?:crate|super|self|{IDENT})(?:::{IDENT})+)", code):
                paths.append(m.group(1).split("::"))
            for path in paths:
                target = self.resolve(module, path)
                if target is not None and target != module:
                    graph[module].add(target)
        return graph


def collapse(graph, depth):
    """Each node cut to its first `depth` segments (0 = every file its own node)."""
    if depth == 0:
        return graph
    out: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for a, targets in graph.items():
        ka = a[:depth]
        out.setdefault(ka, set())
        for b in targets:
            kb = b[:depth]
            if kb != ka:
                out[ka].add(kb)
    return out


def sccs(graph):
    """Tarjan's strongly connected components."""
    index, low, stack, on, result = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            result.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return result


def name(m: tuple[str, ...]) -> str:
    return "::".join(m) if m else "(root)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", nargs="+", type=Path, help="a crate's src/ directory")
    ap.add_argument("--files", action="store_true", help="each file its own node")
    ap.add_argument("--edges", action="store_true", help="print every module's imports")
    ap.add_argument("--allow", action="append", default=[], help="leave a top-level module out")
    args = ap.parse_args()

    found = False
    for src in args.src:
        crate = Crate(src)
        graph = collapse(crate.edges(), 0 if args.files else 1)
        # the root declares every module; only the modules themselves form layers
        graph.pop((), None)
        graph = {a: {b for b in bs if b != ()} for a, bs in graph.items()}
        allowed = {tuple(a.split("::"))[:1] for a in args.allow}
        graph = {
            a: {b for b in bs if b[:1] not in allowed}
            for a, bs in graph.items()
            if a[:1] not in allowed
        }
        if args.files:
            # a parent declaring and re-exporting its children is not an import circle
            graph = {
                a: {b for b in bs if not (len(b) > len(a) and b[: len(a)] == a)}
                for a, bs in graph.items()
            }
        cycles = [sorted(c) for c in sccs(graph) if len(c) > 1]
        label = src.parent.name if src.name == "src" else str(src)
        if args.edges:
            for a in sorted(graph):
                print(f"{label}: {name(a)} -> {', '.join(name(b) for b in sorted(graph[a])) or '-'}")
        if cycles:
            found = True
            for c in cycles:
                members = set(c)
                print(f"{label}: circle of {len(c)}: {', '.join(name(m) for m in c)}")
                for a in c:
                    inside = sorted(b for b in graph[a] if b in members)
                    print(f"    {name(a)} -> {', '.join(name(b) for b in inside)}")
        else:
            print(f"{label}: no circles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
