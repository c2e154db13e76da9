#!/usr/bin/env python3
"""Dead code: every function of the library is reached from its exports (ozblas_*: the public
API and libozblas_mpi's ozblas_internal_*, cmake/ozblas.map) or from a table they reach, and
every member of a table of functions is called somewhere.

1. Reachability, by the linker: the library is configured in its own build directory with
   -ffunction-sections (a section per function) and libozblas.so linked with --gc-sections
   --print-gc-sections under the version script, so the roots are the exported ozblas_*
   symbols, the constructors and whatever referenced data (the backend, stage, device-ops and
   kernel tables) points to.  Every function section of the library's own objects that the
   linker removes is reported (an OpenMP outlined body, a .cold part, an ifunc .resolver or an
   .isra/.constprop/.part clone counts with its function: reported only where nothing of that
   function is kept).  ALLOW names the few functions reached only by white-box tests.
2. Tables: every function-pointer member of TABLES must be called (t->m(, t.m(, KL(m, ...)
   outside its declaring header and the files that fill it, from a function that step 1
   does not report dead: an entry that nobody calls is dead, though the table keeps it linked.

  check_dead_code.py [--build-dir DIR] [-DVAR=VALUE ...]   configure DIR (default
        build/dead-code) from this tree with the cmake arguments given, build, report; exit 1
        on dead code (ctest check_dead_code)
  check_dead_code.py --self-test unreached [--cc CC]      plant ozb_planted_unreached in a small
        library linked like libozblas.so: the linker step must report it
  check_dead_code.py --self-test member                   plant a member nobody calls in
        ozb_kl_table and ozb_dev_ops, and one called only from a dead function, in a copy of
        the sources: the table step must report them (ctest check_dead_code_plant_*)
"""
import os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAP = os.path.join(ROOT, "cmake", "ozblas.map")
# Functions that only white-box tests reach (they link libozblas.a): name -> why it stays.
ALLOW = {
    "ozb_knob_list": "tests/test_knobs.c checks the knob table against the README",
}
# (struct, declaring header): the tables whose function-pointer members must be called
TABLES = [
    ("ozb_kl_table", "kernels/ozb_kernels.h"),       # kernel launchers (ozb_kernels.cu: GPU and host builds)
    ("ozb_dev_ops", "src/cuda/dev_ops.h"),           # device operations (dev_gpu.c, dev_emu.c)
    ("ozb_backend", "src/core/backend.h"),           # backends (cpu/backend_cpu.c, cuda/backend_cuda.c)
    ("ozb_stage", "src/core/stage.h"),               # stages (dispatch/stages.c, cuda/backend_cuda.c)
]
OWN_OBJECTS = re.compile(r"CMakeFiles/(ozblas|ozblas_kernels)\.dir/")
REMOVED = re.compile(r"removing unused section '(\.text\.[^']+)' in file '([^']+)'")
SRC_EXTS = (".c", ".cc", ".cu", ".h", ".inc")


# ---------------------------------------------------------------- 1. the linker's view
def base_of(section):
    """.text[.unlikely|.hot|.startup|.exit].NAME[.clone suffixes] -> NAME (C and C++ names hold no dot)"""
    name = section[len(".text."):]
    for p in ("unlikely.", "hot.", "startup.", "exit."):
        if name.startswith(p):
            name = name[len(p):]
            break
    return name.split(".")[0]


def dead_functions(link_log, objdir):
    """{(object, function)} whose every section the linker removed, from --print-gc-sections"""
    removed = {}
    for sec, obj in REMOVED.findall(link_log):
        if OWN_OBJECTS.search(obj) and "(" not in obj:          # not a member of a system archive
            removed.setdefault(obj, set()).add(sec)
    dead = set()
    for obj, secs in removed.items():
        path = obj if os.path.isabs(obj) else os.path.join(objdir, obj)
        out = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True, check=True).stdout
        allsecs = set(re.findall(r"\]\s+(\.text\.\S+)", out))
        by_base = {}
        for s in allsecs | secs:
            by_base.setdefault(base_of(s), set()).add(s)
        for b, ss in by_base.items():
            if ss <= secs:
                dead.add((OWN_OBJECTS.split(obj)[-1] if OWN_OBJECTS.search(obj) else obj, b))
    return dead


def demangle(names):
    names = sorted(names)
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
        return dict(zip(names, out.split("\n")))
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}


def link_step(build_dir, cmake_args):
    gc = "-Wl,--gc-sections -Wl,--print-gc-sections"
    cfg = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
           "-DCMAKE_C_FLAGS=-ffunction-sections", "-DCMAKE_CXX_FLAGS=-ffunction-sections",
           "-DCMAKE_CUDA_FLAGS=-Xcompiler=-ffunction-sections", f"-DCMAKE_SHARED_LINKER_FLAGS={gc}",
           "-DOZBLAS_BUILD_TESTS=OFF", "-DOZBLAS_BUILD_BENCH=OFF", "-DOZBLAS_BUILD_PRELOAD=OFF",
           "-DOZBLAS_MPI=OFF", "-DOZBLAS_SANITIZE=OFF", "-DOZBLAS_FUZZ=OFF", "-DOZBLAS_WERROR=OFF"] + cmake_args
    r = subprocess.run(cfg, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"check_dead_code: configuring {build_dir} failed:\n{r.stdout}{r.stderr}")
    for n in os.listdir(build_dir):                               # relink: the linker's report
        if n.startswith("libozblas.so"):
            os.remove(os.path.join(build_dir, n))
    r = subprocess.run(["cmake", "--build", build_dir, "--target", "ozblas", "-j", str(os.cpu_count() or 2)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        sys.exit(f"check_dead_code: building {build_dir} failed:\n{r.stdout[-6000:]}")
    lib = os.path.join(build_dir, "libozblas.so")
    syms = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    leaked = [l.split()[-1] for l in syms.splitlines() if not l.split()[-1].startswith("ozblas_")]
    if leaked:      # the roots must be ozblas_* alone, else everything exported counts as reached
        sys.exit(f"check_dead_code: {lib} exports more than ozblas_* ({', '.join(leaked[:5])}...): cmake/ozblas.map?")
    return r.stdout


# ---------------------------------------------------------------- 2. the tables
def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def members(root, struct, header):
    text = strip_comments(open(os.path.join(root, header), encoding="utf-8").read())
    m = re.search(r"typedef\s+struct\s+%s\s*\{(.*?)\}\s*%s\s*;" % (struct, struct), text, re.S)
    if not m:
        return None
    return re.findall(r"\(\s*\*\s*(\w+)\s*\)\s*\(", m.group(1))


FUNC_DEF = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{}]*\)\s*\{", re.M)


def enclosing(text, pos):
    """the function whose definition precedes pos (column-0 definitions), or None"""
    name = None
    for m in FUNC_DEF.finditer(text, 0, pos):
        name = m.group(1)
    return name


def table_step(root, dead_names):
    files = []
    for top in ("src", "kernels"):
        for d, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.join(d, n) for n in names if n.endswith(SRC_EXTS)]
    texts = {os.path.relpath(f, root): strip_comments(open(f, encoding="utf-8").read()) for f in sorted(files)}
    errors, seen = [], 0
    for struct, header in TABLES:
        if not os.path.isfile(os.path.join(root, header)):
            continue
        mem = members(root, struct, header)
        if mem is None:
            errors.append(f"{header}: no 'typedef struct {struct} {{ ... }} {struct};' (TABLES in scripts/check_dead_code.py)")
            continue
        fill = re.compile(r"\b%s\s+\w+\s*(\[[^\]]*\])?\s*=\s*\{" % struct)
        fillers = {f for f, t in texts.items() if fill.search(t)}
        for name in mem:
            seen += 1
            call = re.compile(r"(->|\.)\s*%s\s*\(|\bKL\(\s*%s\s*," % (name, name))
            live, dead_callers = False, set()
            for f, t in texts.items():
                if f == header or f in fillers:
                    continue
                for m in call.finditer(t):
                    fn = enclosing(t, m.start())
                    if fn in dead_names:
                        dead_callers.add(f"{fn} ({f})")
                    else:
                        live = True
                        break
                if live:
                    break
            if live:
                continue
            if dead_callers:
                errors.append(f"{struct}.{name} ({header}): called only from dead code: {', '.join(sorted(dead_callers))}")
            else:
                errors.append(f"{struct}.{name} ({header}): never called outside {', '.join(sorted(fillers)) or 'its header'}")
    return errors, seen


# ---------------------------------------------------------------- the check
def run(build_dir, cmake_args):
    log = link_step(build_dir, cmake_args)
    dead = dead_functions(log, build_dir)
    names = demangle({fn for _, fn in dead})
    allowed = {fn for _, fn in dead if fn in ALLOW}
    report = sorted((obj, names[fn]) for obj, fn in dead if fn not in ALLOW)
    stale = sorted(set(ALLOW) - allowed)
    terr, seen = table_step(ROOT, {fn for _, fn in dead})
    bad = 0
    if report:
        bad = 1
        print(f"dead code: {len(report)} function(s) of libozblas not reached from ozblas_* or a table:")
        for obj, fn in report:
            print(f"  {fn:40s} {obj[:-2] if obj.endswith('.o') else obj}")
    if terr:
        bad = 1
        print(f"dead table entries ({len(terr)}):")
        for e in terr:
            print("  " + e)
    if stale:
        bad = 1
        print("ALLOW (scripts/check_dead_code.py) names what is no longer dead or no longer exists: " + ", ".join(stale))
    if not bad:
        print(f"dead code: none (every function reached from ozblas_* or a table; {seen} table members called; "
              f"allowed for white-box tests: {', '.join(sorted(allowed)) or 'none'})")
    return bad


# ---------------------------------------------------------------- planted violations
PLANTED_C = r"""
static int ozb_planted_helper(int x) { return x * 3 + 1; }
int ozb_planted_used(int x);
int ozb_planted_used(int x) { return ozb_planted_helper(x) + 2; }
int ozb_planted_unreached(int x);
int ozb_planted_unreached(int x) { return ozb_planted_helper(x) - 7; }
int ozblas_planted_api(int x);
int ozblas_planted_api(int x) { return ozb_planted_used(x); }
"""


def self_test_unreached(cc):
    with tempfile.TemporaryDirectory(prefix="ozb_dead_") as tmp:
        odir = os.path.join(tmp, "CMakeFiles", "ozblas.dir", "src")
        os.makedirs(odir)
        src, obj = os.path.join(tmp, "planted.c"), os.path.join(odir, "planted.c.o")
        open(src, "w").write(PLANTED_C)
        subprocess.run([cc, "-O2", "-fPIC", "-ffunction-sections", "-c", src, "-o", obj], check=True)
        r = subprocess.run([cc, "-shared", "-o", os.path.join(tmp, "libplanted.so"), "CMakeFiles/ozblas.dir/src/planted.c.o",
                            f"-Wl,--version-script={MAP}", "-Wl,--gc-sections", "-Wl,--print-gc-sections"],
                           cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True)
        dead = {fn for _, fn in dead_functions(r.stdout, tmp)}
    if "ozb_planted_unreached" in dead and "ozb_planted_used" not in dead and "ozblas_planted_api" not in dead:
        print(f"self-test unreached: the linker step reports {sorted(dead)}, as it should")
        return 0
    print(f"self-test unreached: expected ozb_planted_unreached alone, got {sorted(dead)}\n{r.stdout}")
    return 1


def self_test_member():
    with tempfile.TemporaryDirectory(prefix="ozb_dead_") as tmp:
        for top in ("src", "kernels"):
            shutil.copytree(os.path.join(ROOT, top), os.path.join(tmp, top))
        plants = []
        for struct, header in TABLES[:2]:
            p = os.path.join(tmp, header)
            text = open(p, encoding="utf-8").read()
            end = re.search(r"\}\s*%s\s*;" % struct, text)
            text = (text[:end.start()] + "    int (*planted_uncalled)(void *stream);\n"
                    "    int (*planted_dead_only)(void *stream);\n" + text[end.start():])
            open(p, "w", encoding="utf-8").write(text)
            plants += [(f"{struct}.planted_uncalled", "never called"), (f"{struct}.planted_dead_only", "only from dead code")]
        open(os.path.join(tmp, "src", "cuda", "planted_calls.c"), "w").write(
            "int ozb_planted_dead_caller(const ozb_kl_table *kl, const ozb_dev_ops *ops)\n{\n"
            "    return kl->planted_dead_only(0) + ops->planted_dead_only(0);\n}\n")
        errors, _ = table_step(tmp, {"ozb_planted_dead_caller"})
    bad = 0
    for member, why in plants:
        hit = [e for e in errors if e.startswith(member + " ") and why in e]
        print(f"self-test member: {member}: " + (f"reported, as it should: {hit[0]}" if hit else f"NOT reported ({why})"))
        bad |= not hit
    return int(bad)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--self-test"]:
        what = args[1] if len(args) > 1 else ""
        cc = args[args.index("--cc") + 1] if "--cc" in args else os.environ.get("CC", "cc")
        if what == "unreached":
            sys.exit(self_test_unreached(cc))
        if what == "member":
            sys.exit(self_test_member())
        sys.exit("usage: check_dead_code.py --self-test unreached [--cc CC] | member")
    build_dir = os.path.join(ROOT, "build", "dead-code")
    if args[:1] == ["--build-dir"]:
        build_dir, args = os.path.abspath(args[1]), args[2:]
    if any(not a.startswith("-D") for a in args):
        sys.exit(__doc__)
    sys.exit(run(build_dir, args))
