#!/usr/bin/env python3
"""Plots ozblas/OpenBLAS time ratios against size from bench/sweep.sh's CSV, one panel per
routine (DOT, GEMV N, GEMV T, GEMM), one line per mode and thread count; prints a markdown
table of the same ratios.  A case measured in several processes (sweep.sh's third argument)
is the median of its ratios, with their range in the table.
    python3 bench/plot_sweep.py sweep.csv sweep.png > sweep.md"""
import csv
import sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def panel_of(r):
    if r["routine"] == "dot":
        return "ddot"
    if r["routine"] == "gemv":
        return "dgemv " + r["transa"]
    return "dgemm"


def main():
    rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok" and r["ratio"]]
    runs = defaultdict(list)            # (panel, mode, threads, n) -> ratios of its processes
    for r in rows:
        runs[(panel_of(r), r["mode"], r["threads"], int(r["n"]))].append(float(r["ratio"]))
    series = defaultdict(list)          # (panel, mode, threads) -> [(n, median ratio)]
    spread = {}
    for (p, mode, t, n), v in runs.items():
        v.sort()
        med = v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])
        series[(p, mode, t)].append((n, med))
        spread[(p, mode, t, n)] = (v[0], v[-1], len(v))
    panels = ["ddot", "dgemv N", "dgemv T", "dgemm"]
    fig, axes = plt.subplots(1, 4, figsize=(18, 4.5))
    for ax, p in zip(axes, panels):
        for (pp, mode, t), pts in sorted(series.items()):
            if pp != p:
                continue
            pts.sort()
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o",
                    linestyle="-" if t == "1" else "--", label=f"{mode}, {t} thr")
        ax.set_xscale("log", base=2 if p != "ddot" else 10)
        ax.set_yscale("log")
        ax.axhline(1.0, color="gray", linewidth=0.8)
        ax.set_title(p + " (n)")
        ax.set_xlabel("n")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("time ozblas / OpenBLAS")
    axes[-1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=90)
    print("# Size sweep: time ozblas / OpenBLAS (medians, same run)\n")
    print("| routine | n | DOUBLE 1 thr | CR 1 thr | DOUBLE 2 thr | CR 2 thr |")
    print("|---|---|---|---|---|---|")
    sizes = defaultdict(dict)
    for (p, mode, t), pts in series.items():
        for n, y in pts:
            sizes[(p, n)][(mode, t)] = y
    for p in panels:
        for (pp, n) in sorted(k for k in sizes if k[0] == p):
            d = sizes[(pp, n)]
            def cell(m, t):
                if (m, t) not in d:
                    return "-"
                lo, hi, cnt = spread[(pp, m, t, n)]
                return "%.1f" % d[(m, t)] + (" (%.1f-%.1f)" % (lo, hi) if cnt > 1 else "")
            print(f"| {p} | {n} | {cell('double', '1')} | {cell('cr', '1')} | {cell('double', '2')} | {cell('cr', '2')} |")


if __name__ == "__main__":
    main()
