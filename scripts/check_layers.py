#!/usr/bin/env python3
"""The layering of src/ (docs/ARCHITECTURE.md), checked from the #include lines:
 - no include cycle between folders (src/<folder>, kernels/);
 - src/core includes nothing from another src/ folder (only core, kernels/ and include/);
 - only a backend's own folder includes its headers (src/cpu, src/cuda);
 - no library file reads the environment but src/core/knobs.c (getenv);
 - no file in src/ over 400 lines (the LD_PRELOAD interposer excepted).
Prints the folder graph and exits 1 with the reasons when a rule is broken."""
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
BACKENDS = {"cpu", "cuda"}
MAX_LINES = 400
LONG_OK = {"src/preload/ozblas_preload.c"}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    rel = os.path.relpath(path, ROOT)
    parts = rel.split(os.sep)
    if parts[0] == "src":
        return parts[1] if len(parts) > 2 else "src"
    return parts[0]                      # kernels, include


def resolve(src_file, inc):
    for base in (os.path.dirname(src_file), SRC, os.path.join(ROOT, "kernels"), os.path.join(ROOT, "include")):
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(p):
            return p
    return None


def main():
    edges, errors = {}, []
    files = []
    for d, _, names in os.walk(SRC):
        files += [os.path.join(d, n) for n in names if n.endswith((".c", ".cc", ".h", ".inc"))]
    for f in sorted(files):
        rel = os.path.relpath(f, ROOT)
        text = open(f, encoding="utf-8").read()
        lines = text.count("\n")
        if lines > MAX_LINES and rel not in LONG_OK:
            errors.append(f"{rel}: {lines} lines (at most {MAX_LINES})")
        if "getenv" in re.sub(r"/\*.*?\*/", "", text, flags=re.S) and rel != "src/core/knobs.c" and not rel.startswith("src/preload/"):
            errors.append(f"{rel}: reads the environment (only src/core/knobs.c may)")
        a = folder_of(f)
        for inc in INC.findall(text):
            t = resolve(f, inc)
            if t is None:
                continue
            b = folder_of(t)
            if b == a or b == "include":
                continue
            edges.setdefault(a, set()).add(b)
            if a == "core" and b != "kernels":
                errors.append(f"{rel}: core includes {inc} (core includes nothing above it)")
            if b in BACKENDS and a != b:
                errors.append(f"{rel}: includes the {b} backend's {inc} (call through core/backend.h)")
    # cycles: Tarjan's strongly connected components
    index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]
    nodes = sorted(set(edges) | {b for v in edges.values() for b in v})

    def strong(v):
        index[v] = low[v] = n[0]; n[0] += 1
        stack.append(v); on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            comps.append(comp)
    for v in nodes:
        if v not in index:
            strong(v)
    for c in comps:
        if len(c) > 1:
            errors.append("include cycle between folders: " + " <-> ".join(sorted(c)))
    for a in sorted(edges):
        print(f"{a:9s} -> {' '.join(sorted(edges[a]))}")
    if errors:
        print("\n".join(["", "layering broken:"] + ["  " + e for e in errors]))
        return 1
    print("layers: no folder cycle, core self-contained, backends behind core/backend.h, one getenv, files <= 400 lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
