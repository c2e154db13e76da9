#!/usr/bin/env python3
"""The layering of src/ and kernels/ (docs/ARCHITECTURE.md), checked from the #include lines.

ORDER declares the folders top to bottom, a rank per line.  Rules (each message starts with
the file and names the rule):
 - order:     a file includes its own folder, include/ (the public API) and folders of a LOWER
              rank; folders of one rank never include each other (they are siblings: DOT, GEMV
              and GEMM; the two backends; split and sum; the two drivers above the library);
              every folder is in ORDER (a new folder must be placed);
 - kernels:   kernels/ (the lowest, shared with the CUDA kernels) includes only kernels/;
 - core:      src/core includes only core, kernels/ and include/;
 - backend:   only a backend's own folder includes its headers (src/cpu, src/cuda; the rest
              goes through core/backend.h);
 - interface: the drivers above the library (src/mpi, src/preload) include only include/, their
              own folder and INTERFACE, the one internal interface header (libozblas.so
              exports ozblas_* alone: CMakeLists.txt's version script);
 - getenv:    no library file reads the environment but src/core/knobs.c (and the interposer);
 - size:      no file in src/ over 400 lines (the LD_PRELOAD interposer excepted).
(No include cycle between folders follows from the order.)  Prints the folder graph and exits 1
with the reasons when a rule is broken.

  check_layers.py                   check the tree
  check_layers.py --self-test [P..] plant each violation P (all without names) in a temporary
                                    copy of src/, kernels/ and include/ and assert that the
                                    check fails with the expected message (ctest check_layers_plant_*)
"""
import os, re, shutil, sys, tempfile

ORDER = [                                   # top to bottom; one rank per line
    ("preload", "mpi"),                     # drivers above the library (the interposer, libozblas_mpi)
    ("dot", "gemv", "gemm", "blas1", "blas2", "blas3"),   # drivers: arguments, trivial cases, ozb_run
    ("shapes",),                            # symmetric/triangular operands, triangles of C, the solve rule
    ("dispatch",),                          # the plan and the choice of method
    ("fixed",), ("fused",), ("eft",), ("exact",), ("scheme1",),   # methods
    ("cpu", "cuda"),                        # backends (their tables: core/backend.h)
    ("crt",),                               # the CRT engine (and its method; src/cuda uses the engine)
    ("split", "sum"),                       # engines
    ("core",),                              # types, handle, tables, knobs
    ("kernels",),                           # element operations shared with the CUDA kernels
]
RANK = {f: r for r, fs in enumerate(ORDER) for f in fs}
BACKENDS = {"cpu", "cuda"}
ABOVE_LIBRARY = {"mpi", "preload"}
INTERFACE = "src/eft/ozblas_parts.h"        # libozblas_mpi's one door into the library's internals
MAX_LINES = 400
LONG_OK = {"src/preload/ozblas_preload.c"}
GETENV_OK = ("src/core/knobs.c", "src/preload/")
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
EXTS = (".c", ".cc", ".cu", ".h", ".inc")


def folder_of(root, path):
    parts = os.path.relpath(path, root).split(os.sep)
    if parts[0] == "src":
        return parts[1] if len(parts) > 2 else "src"
    return parts[0]                          # kernels, include


def resolve(root, src_file, inc):
    for base in (os.path.dirname(src_file), os.path.join(root, "src"), os.path.join(root, "kernels"),
                 os.path.join(root, "include")):
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(p):
            return p
    return None


def sources(root):
    out = []
    for top in ("src", "kernels"):
        for d, _, names in os.walk(os.path.join(root, top)):
            out += [os.path.join(d, n) for n in names if n.endswith(EXTS)]
    return sorted(out)


def check(root):
    """(edges {folder: {folder}}, errors [str]) of the tree at root"""
    edges, errors = {}, []
    for f in sources(root):
        rel = os.path.relpath(f, root).replace(os.sep, "/")
        text = open(f, encoding="utf-8").read()
        lines = text.count("\n")
        if rel.startswith("src/") and lines > MAX_LINES and rel not in LONG_OK:
            errors.append(f"{rel}: {lines} lines (size: at most {MAX_LINES})")
        if "getenv" in re.sub(r"/\*.*?\*/", "", text, flags=re.S) and not rel.startswith(GETENV_OK):
            errors.append(f"{rel}: reads the environment (getenv: only src/core/knobs.c may)")
        a = folder_of(root, f)
        if a not in RANK:
            errors.append(f"{rel}: folder {a} is not in ORDER (order: place it in scripts/check_layers.py)")
            continue
        for inc in INC.findall(text):
            t = resolve(root, f, inc)
            if t is None:
                continue
            trel = os.path.relpath(t, root).replace(os.sep, "/")
            b = folder_of(root, t)
            if b == a or b == "include":
                continue
            edges.setdefault(a, set()).add(b)
            if a in ABOVE_LIBRARY:
                if trel != INTERFACE:
                    errors.append(f"{rel}: includes {trel} (interface: {a} includes only include/, "
                                  f"src/{a}/ and {INTERFACE})")
                continue
            if a == "kernels":
                errors.append(f"{rel}: includes {trel} (kernels: kernels/ includes only kernels/)")
                continue
            if a == "core" and b != "kernels":
                errors.append(f"{rel}: includes {trel} (core: core includes only core, kernels/ and include/)")
            if b in BACKENDS:
                errors.append(f"{rel}: includes the {b} backend's {trel} (backend: call through core/backend.h)")
            if b not in RANK:
                errors.append(f"{rel}: includes {trel}, folder {b} is not in ORDER (order)")
            elif RANK[b] == RANK[a]:
                errors.append(f"{rel}: includes {trel} (order: {a} and {b} are one rank, neither includes the other)")
            elif RANK[b] < RANK[a]:
                errors.append(f"{rel}: includes {trel} (order: {b} is above {a})")
    return edges, errors


def report(edges, errors):
    for a in sorted(edges, key=lambda x: (RANK.get(x, -1), x)):
        print(f"{a:9s} -> {' '.join(sorted(edges[a], key=lambda x: (RANK.get(x, 99), x)))}")
    if errors:
        print("\n".join(["", "layering broken:"] + ["  " + e for e in errors]))
        return 1
    print("layers: every include goes down ORDER (" + " > ".join(", ".join(r) for r in ORDER) + "),")
    print("        kernels/ self-contained, core self-contained, backends behind core/backend.h,")
    print(f"        mpi/preload through include/ and {INTERFACE}, one getenv, files <= {MAX_LINES} lines")
    return 0


# ---- planted violations: (file to append to, or to create, text, the expected message) ----
PLANTS = {
    "upward":       ("src/sum/sum.h", '#include "dispatch/dispatch.h"\n',
                     r"src/sum/sum\.h: includes src/dispatch/dispatch\.h \(order: dispatch is above sum\)"),
    "same_rank":    ("src/split/split.h", '#include "sum/sum.h"\n',
                     r"src/split/split\.h: includes src/sum/sum\.h \(order: split and sum are one rank"),
    "kernels_src":  ("kernels/ozb_sum_ops.h", '#include "../src/core/problem.h"\n',
                     r"kernels/ozb_sum_ops\.h: includes src/core/problem\.h \(kernels:"),
    "mpi_internal": ("src/mpi/pddot.c", '#include "sum/sum.h"\n',
                     r"src/mpi/pddot\.c: includes src/sum/sum\.h \(interface:"),
    "preload_internal": ("src/preload/preload_pdgemm.c", '#include "core/knobs.h"\n',
                         r"src/preload/preload_pdgemm\.c: includes src/core/knobs\.h \(interface:"),
    "core_above":   ("src/core/status.c", '#include "sum/sum.h"\n',
                     r"src/core/status\.c: includes src/sum/sum\.h \(core:"),
    "backend":      ("src/crt/crt.h", '#include "cpu/blas_gate.h"\n',
                     r"src/crt/crt\.h: includes the cpu backend's src/cpu/blas_gate\.h \(backend:"),
    "getenv":       ("src/sum/sum.c", 'static const char *planted(void) { return getenv("X"); }\n',
                     r"src/sum/sum\.c: reads the environment \(getenv:"),
    "size":         ("src/split/split.c", "\n" * (MAX_LINES + 1),
                     r"src/split/split\.c: \d+ lines \(size:"),
    "new_folder":   ("src/planted/planted.c", '#include "core/problem.h"\n',
                     r"src/planted/planted\.c: folder planted is not in ORDER"),
}


def self_test(names):
    names = names or sorted(PLANTS)
    _, base = check(ROOT)
    bad = 0
    for name in names:
        if name not in PLANTS:
            print(f"self-test: no planted violation {name} (known: {' '.join(sorted(PLANTS))})")
            return 2
        path, text, want = PLANTS[name]
        with tempfile.TemporaryDirectory(prefix="ozb_layers_") as tmp:
            for top in ("src", "kernels", "include"):
                shutil.copytree(os.path.join(ROOT, top), os.path.join(tmp, top),
                                ignore=shutil.ignore_patterns("*.o", "*.a", "*.so"))
            p = os.path.join(tmp, path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "a", encoding="utf-8") as fh:
                fh.write(text)
            _, errors = check(tmp)
        new = [e for e in errors if e not in base]
        hit = [e for e in new if re.search(want, e)]
        if hit:
            print(f"self-test {name}: planted in {path}, the check fails as it should: {hit[0]}")
        else:
            bad = 1
            print(f"self-test {name}: planted in {path}, but no message matches /{want}/; new messages: {new}")
    return bad


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        sys.exit(self_test(sys.argv[2:]))
    if len(sys.argv) > 1:
        print(__doc__)
        sys.exit(2)
    sys.exit(report(*check(ROOT)))
