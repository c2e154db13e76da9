"""NumPy (Debian's, on the system BLAS) under libozblas_preload.so; driven by run_numpy.sh.

  numpy_client.py compute   A @ B (both layouts, a transposed view), matrix @ vector, np.dot:
                            checks CORRECTLY_ROUNDED results against exact Fraction references,
                            prints one SHA-256 per result (run_numpy.sh compares them across
                            OPENBLAS_NUM_THREADS=1 and 2)
  numpy_client.py naive     without the interposer: the ill-conditioned cases give the naive,
                            wrong answer
"""
import hashlib
import sys
from fractions import Fraction

import numpy as np

EXACT = 1.0 + 1e16 * 2.0**-52          # x.y below, exactly a double
X = np.array([1e16, 1.0, -1e16])
Y = np.array([1.0 + 2.0**-52, 1.0, 1.0])   # no summation order gives x.y in binary64


def data(rng, shape):
    """wide exponent range and both signs: rounding and cancellation matter"""
    return rng.standard_normal(shape) * np.exp2(rng.integers(-20, 21, size=shape))


def exact_matmul(a, b):
    """RN(exact a @ b), element by element with Fractions (float(Fraction) rounds correctly)"""
    fa = [[Fraction(v) for v in row] for row in a.tolist()]
    fb = [[Fraction(v) for v in row] for row in b.T.tolist()]
    return np.array([[float(sum(p * q for p, q in zip(r, c))) for c in fb] for r in fa])


def same_bits(u, v):
    u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    return u.shape == v.shape and u.tobytes() == v.tobytes()


def digest(v):
    return hashlib.sha256(np.ascontiguousarray(v, dtype=np.float64).tobytes()).hexdigest()[:16]


def compute():
    rng = np.random.default_rng(2026)
    failures = []
    A, B = data(rng, (23, 17)), data(rng, (17, 19))
    v, w = data(rng, 17), data(rng, 17)
    results = {
        "A@B (C order)": A @ B,
        "A@B (Fortran order)": np.asfortranarray(A) @ np.asfortranarray(B),
        "A.T.T@B (transposed view)": np.ascontiguousarray(A.T).T @ B,
        "A@v": A @ v,
        "dot(v,w)": np.dot(v, w),
        "ill-conditioned dot": np.dot(X, Y),
        "ill-conditioned matvec": np.vstack([X, X[::-1]]) @ Y,
        "ill-conditioned matmul": np.vstack([X, X]) @ np.column_stack([Y, Y]),
    }
    ref_ab = exact_matmul(A, B)
    refs = {
        "A@B (C order)": ref_ab,
        "A@B (Fortran order)": ref_ab,
        "A.T.T@B (transposed view)": ref_ab,
        "A@v": exact_matmul(A, v.reshape(-1, 1)).ravel(),
        "dot(v,w)": exact_matmul(v.reshape(1, -1), w.reshape(-1, 1))[0, 0],
        "ill-conditioned dot": EXACT,
        "ill-conditioned matvec": exact_matmul(np.vstack([X, X[::-1]]), Y.reshape(-1, 1)).ravel(),
        "ill-conditioned matmul": np.full((2, 2), EXACT),
    }
    for name, r in results.items():
        ok = same_bits(r, refs[name])
        print(f"{name}: {digest(r)} {'correctly rounded' if ok else 'NOT correctly rounded'}")
        if not ok:
            failures.append(name)
    # bigger products, where OpenBLAS threads would split the work: bits printed for comparison
    big_a, big_b = data(rng, (300, 256)), data(rng, (256, 280))
    print(f"300x256 @ 256x280: {digest(big_a @ big_b)}")
    print(f"300x256 @ vector: {digest(big_a @ big_b[:, 0])}")
    print(f"dot n=100000: {digest(np.dot(data(rng, 100000), data(rng, 100000)))}")
    if failures:
        print("FAIL: not correctly rounded:", ", ".join(failures))
        return 1
    return 0


def naive():
    d = np.dot(X, Y)
    m = (np.vstack([X, X]) @ np.column_stack([Y, Y]))[0, 0]
    print(f"without the interposer: dot {d!r}, matmul {m!r}, exact {EXACT!r}")
    if d == EXACT or m == EXACT:
        print("FAIL: the plain BLAS gave the exact answer; the demonstration case is wrong")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(compute() if sys.argv[1:] == ["compute"] else naive())
