#!/usr/bin/env python3
"""Per-call overhead of the Python package over the C call (issue 40's target: at most 1.5 us
above the C call for a 16-element DOT).

In one process, interleaved batches: ozblas_ddot itself called in a C loop on the same handle
and arrays (ozblas._ozblas._time_c_ddot), Handle.dot, the module-level ozblas.dot (default
configuration and with the mode as a keyword), and numpy.dot for scale.  Each batch is `calls`
calls; a cell is the median over the batches, with the range.  The Python figures include the
loop's own cost (a few ns per iteration), so the overhead is not understated.

    python bench/py_overhead.py [--n 16] [--batches 15] [--calls 20000]
(run with the package installed: pip install .)
"""
import argparse
import itertools
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import ozblas
from ozblas import _ozblas


def cpu_info():
    model, flags = platform.processor() or "?", []
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            k, _, v = line.partition(":")
            if k.strip() == "Model name":
                model = v.strip()
            if k.strip() == "Flags":
                flags = [f for f in v.split() if f.startswith("avx512") or "vnni" in f or f in ("avx2", "fma")]
    except (OSError, subprocess.CalledProcessError):
        pass
    return model, flags


def timed(f, x, y, calls):
    rep = itertools.repeat(None, calls)
    t0 = time.perf_counter()
    for _ in rep:
        f(x, y)
    return (time.perf_counter() - t0) / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--batches", type=int, default=15)
    ap.add_argument("--calls", type=int, default=20000)
    a = ap.parse_args()
    rng = np.random.default_rng(7)
    x, y = rng.random(a.n) - 0.5, rng.random(a.n) - 0.5
    model, flags = cpu_info()
    commit = "?"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip() or "?"
    except OSError:
        pass
    print(f"- machine: {model}, {os.cpu_count()} cores; CPU features: {' '.join(flags)}")
    print(f"- Python {platform.python_version()} ({sys.executable}), NumPy {np.__version__}, ozblas {ozblas.__version__} "
          f"at {commit}; GIL released from {_ozblas.GIL_RELEASE_WORK} multiply-adds")
    print(f"- DOT n={a.n}; median of {a.batches} interleaved batches of {a.calls} calls (range in parentheses), ns per call")
    print()
    print("| mode | C ozblas_ddot | Handle.dot | ozblas.dot(x, y) | ozblas.dot(x, y, mode=...) | numpy.dot | "
          "Handle.dot - C | ozblas.dot - C | ozblas.dot(mode=) - C |")
    print("|---|---|---|---|---|---|---|---|---|")
    worst = 0.0
    for mode in ("double", "cr", "fixed"):
        h = ozblas.Handle(mode=mode)
        with ozblas.config(mode=mode):
            ozblas.dot(x, y)        # the thread's default handle for this mode exists before timing
        ozblas.dot(x, y, mode=mode)

        cols = {k: [] for k in ("c", "h", "m", "mk", "np")}
        for _ in range(3):          # warm-up
            _ozblas._time_c_ddot(h, x, y, 1000)
            timed(h.dot, x, y, 1000)
        for _ in range(a.batches):
            cols["c"].append(_ozblas._time_c_ddot(h, x, y, a.calls))
            cols["h"].append(timed(h.dot, x, y, a.calls))
            with ozblas.config(mode=mode):
                cols["m"].append(timed(ozblas.dot, x, y, a.calls))
            cols["mk"].append(timed(lambda u, v: ozblas.dot(u, v, mode=mode), x, y, a.calls))
            cols["np"].append(timed(np.dot, x, y, a.calls))

        def cell(k):
            v = [t * 1e9 for t in cols[k]]
            return statistics.median(v), f"{statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})"
        med = {k: cell(k)[0] for k in cols}
        d = (med["h"] - med["c"], med["m"] - med["c"], med["mk"] - med["c"])
        worst = max(worst, *d)
        print(f"| {mode} | {cell('c')[1]} | {cell('h')[1]} | {cell('m')[1]} | {cell('mk')[1]} | {cell('np')[1]} | "
              f"{d[0]:.0f} | {d[1]:.0f} | {d[2]:.0f} |")
        h.close()
    print()
    print(f"largest median overhead above the C call: {worst:.0f} ns (target: at most 1500 ns)")
    return 0 if worst <= 1500 else 1


if __name__ == "__main__":
    sys.exit(main())
