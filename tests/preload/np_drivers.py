"""The LAPACK drivers NumPy calls, on fixed inputs: prints one SHA-256 per output (the
whole-program reproducibility test, tests/programs/repro_programs.sh, compares them across
OpenBLAS kernels and thread counts).  n from argv[1] (default 300)."""
import hashlib
import sys

import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
rng = np.random.default_rng(20261127)
A = rng.standard_normal((n, n))
B = rng.standard_normal((n, 3))
S = A @ A.T + n * np.eye(n)          # SPD, from a reproducible product (dsyrk under ozblas)
L = rng.standard_normal((n + n // 3, n))
y = rng.standard_normal(n + n // 3)


def h(name, v):
    v = np.ascontiguousarray(v)
    print(f"{name} {hashlib.sha256(v.tobytes()).hexdigest()[:16]}")


h("matmul_AAT", A @ A.T)
h("matmul_AB", A @ B)
h("solve", np.linalg.solve(A, B))
h("cholesky", np.linalg.cholesky(S))
w, V = np.linalg.eigh(S)
h("eigh_w", w)
h("eigh_V", np.abs(V))
h("svd_s", np.linalg.svd(A, compute_uv=False))
h("lstsq", np.linalg.lstsq(L, y, rcond=None)[0])
q, r = np.linalg.qr(A)
h("qr_r", np.abs(r))
h("inv", np.linalg.inv(A))
h("det", np.array([np.linalg.det(A)]))
