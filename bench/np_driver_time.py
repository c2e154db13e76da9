"""One NumPy linalg driver on fixed inputs: prints its best time over `reps` calls (seconds),
after two untimed calls where reps > 1 (the first calls of a process pay for its thread pools
and workspaces growing).
bench/numpy_drivers.sh runs it plain and under ozblas-run.
  np_driver_time.py DRIVER N [REPS]     DRIVER: solve cholesky eigh svd lstsq"""
import sys
import time

import numpy as np

which, n = sys.argv[1], int(sys.argv[2])
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
rng = np.random.default_rng(1)
A = rng.standard_normal((n, n))
B = rng.standard_normal((n, 1))
S = A @ A.T + n * np.eye(n) if which == "cholesky" else None
f = {"solve": lambda: np.linalg.solve(A, B), "cholesky": lambda: np.linalg.cholesky(S),
     "eigh": lambda: np.linalg.eigh(A + A.T), "svd": lambda: np.linalg.svd(A, compute_uv=False),
     "lstsq": lambda: np.linalg.lstsq(A, B, rcond=None)}[which]
if reps > 1:
    f()
    f()
best = float("inf")
for _ in range(reps):
    t = time.perf_counter()
    f()
    best = min(best, time.perf_counter() - t)
print(f"{best:.6f}")
