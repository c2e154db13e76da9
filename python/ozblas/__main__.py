"""python -m ozblas run [options] (script.py | -m module | -c code) [args...]
python -m ozblas info

`run` runs an unchanged Python program with the BLAS interposer shipped in this package
(libozblas_preload.so) preloaded: the program's ddot, dgemv and dgemm (cblas_* and the
Fortran ddot_, dgemv_, dgemm_) come from ozblas, correctly rounded by default, every other
BLAS routine from the program's own BLAS.  It sets LD_PRELOAD and the interposer's
OZBLAS_PRELOAD_* variables and replaces itself with the interpreter.  This is the stand-in
for the drop-in launcher `ozblas-run`, which is pending: options may change when it lands.

Options of `run`:
  --mode cr|double|fixed   OZBLAS_PRELOAD_MODE (default cr: correctly rounded)
  --format fp64|fp16|int8|crt, --splits N, --fast, --threads N, --min-size N
                           OZBLAS_PRELOAD_FORMAT, _SPLIT, _FAST, _THREADS, _MIN_SIZE
  --verbose, --profile     OZBLAS_PRELOAD_VERBOSE=1 (one line per call), _PROFILE=1
  --python PATH            the interpreter to run (default: this one)

The interposer sees only BLAS calls made through the standard symbol names.  NumPy wheels
from PyPI call a bundled OpenBLAS under renamed symbols (scipy_openblas64_...), which it
cannot see; a NumPy built against the system BLAS (Debian's python3-numpy, e.g.
`--python /usr/bin/python3`) is intercepted.  `run` warns when it detects the former.
A program run this way that also calls ozblas's own functions gets their slice products
(cblas_dgemm inside the extension) through the interposer too: the same bits, more time.
"""
from __future__ import annotations

import os
import sys

_MODES = {"cr": "correctly_rounded", "correctly_rounded": "correctly_rounded", "double": "double", "fixed": "fixed"}
_VALUED = {"--mode": "OZBLAS_PRELOAD_MODE", "--format": "OZBLAS_PRELOAD_FORMAT", "--splits": "OZBLAS_PRELOAD_SPLIT",
           "--threads": "OZBLAS_PRELOAD_THREADS", "--min-size": "OZBLAS_PRELOAD_MIN_SIZE", "--python": None}
_FLAGS = {"--fast": ("OZBLAS_PRELOAD_FAST", "1"), "--verbose": ("OZBLAS_PRELOAD_VERBOSE", "1"),
          "--profile": ("OZBLAS_PRELOAD_PROFILE", "1")}


def preload_path() -> str:
    """The interposer shipped in the package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libozblas_preload.so")


def _usage(out=sys.stderr, code=2):
    print(__doc__.strip(), file=out)
    return code


def _pypi_numpy_blas() -> str | None:
    """The bundled BLAS of a PyPI NumPy wheel in this interpreter, if that is what it uses."""
    import importlib.util
    try:
        spec = importlib.util.find_spec("numpy")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    libs = os.path.join(os.path.dirname(os.path.dirname(spec.origin)), "numpy.libs")
    if os.path.isdir(libs):
        for f in sorted(os.listdir(libs)):
            if "openblas" in f:
                return os.path.join(libs, f)
    return None


def _run(argv) -> int:
    env = dict(os.environ)
    env["OZBLAS_PRELOAD_MODE"] = "correctly_rounded"
    python = sys.executable
    i = 0
    while i < len(argv):
        a = argv[i]
        opt, eq, val = a.partition("=")
        if opt in _VALUED:
            if not eq:
                if i + 1 >= len(argv):
                    print(f"ozblas run: {opt} needs a value", file=sys.stderr)
                    return 2
                val = argv[i + 1]
                i += 1
            if opt == "--mode":
                if val.lower() not in _MODES:
                    print(f"ozblas run: --mode {val}: one of cr, double, fixed", file=sys.stderr)
                    return 2
                val = _MODES[val.lower()]
            if opt == "--python":
                python = val
            else:
                env[_VALUED[opt]] = val
            i += 1
        elif a in _FLAGS:
            k, v = _FLAGS[a]
            env[k] = v
            i += 1
        elif a in ("-h", "--help"):
            return _usage(sys.stdout, 0)
        elif a == "--":
            i += 1
            break
        elif a.startswith("--"):
            print(f"ozblas run: unknown option {a}", file=sys.stderr)
            return 2
        else:
            break
    rest = argv[i:]
    if not rest:
        return _usage()
    if rest[0] in ("-m", "-c"):
        if len(rest) < 2:
            print(f"ozblas run: {rest[0]} needs an argument", file=sys.stderr)
            return 2
        cmd = [python] + rest
    else:
        if not os.path.exists(rest[0]):
            print(f"ozblas run: {rest[0]}: no such file", file=sys.stderr)
            return 2
        cmd = [python] + rest
    lib = preload_path()
    if not os.path.exists(lib):
        print(f"ozblas run: {lib} is missing (a build without the interposer)", file=sys.stderr)
        return 1
    env["LD_PRELOAD"] = lib + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        bundled = _pypi_numpy_blas()
        if bundled:
            print(f"ozblas run: warning: this NumPy calls its bundled BLAS ({os.path.basename(bundled)}) under "
                  "renamed symbols that the interposer cannot see, so NumPy's own dot/matmul are not "
                  "intercepted; use a NumPy built against the system BLAS (e.g. --python /usr/bin/python3 "
                  "with Debian's python3-numpy)", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe(python, cmd, env)
    except OSError as e:
        print(f"ozblas run: cannot run {python}: {e}", file=sys.stderr)
        return 1
    return 0  # not reached


def _info() -> int:
    import ozblas
    print(f"ozblas {ozblas.__version__} ({os.path.dirname(os.path.abspath(ozblas.__file__))})")
    with ozblas.Handle() as h:
        for f in ("fp64", "fp16", "int8", "crt"):
            print(f"  {f:5s} products: {h.products_name(f) or '-'}")
    why = ozblas.cuda_unavailable_reason(0)
    print(f"  cuda: {'available' if why is None else why}")
    print(f"  interposer: {preload_path()}{'' if os.path.exists(preload_path()) else ' (missing)'}")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        return _usage(sys.stdout if argv else sys.stderr, 0 if argv else 2)
    if argv[0] == "run":
        return _run(argv[1:])
    if argv[0] == "info":
        return _info()
    print(f"ozblas: unknown command {argv[0]!r} (run, info)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
