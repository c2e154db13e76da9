"""NumPy (Debian's, on the system BLAS) under libozblas_preload.so; driven by run_numpy.sh.

  numpy_client.py compute   A @ B (both layouts, a transposed view), matrix @ vector, np.dot:
                            checks CORRECTLY_ROUNDED results against exact Fraction references,
                            prints one SHA-256 per result (run_numpy.sh compares them across
                            OPENBLAS_NUM_THREADS=1 and 2)
  numpy_client.py threads   8 Python threads calling A @ B, A @ v and np.dot at once on mixed
                            data (ordinary, subnormal range, +-900 exponents, Inf/NaN,
                            cancellation): every result must be the bits of the call made alone
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


def mixed(rng, shape, cls, side):
    """one operand of a data class; the two sides get opposite exponents where that matters"""
    v = rng.standard_normal(shape) * np.exp2(rng.integers(-10, 11, size=shape))
    if cls == "subnormal" and side == 0:
        v = np.ldexp(rng.random(shape) - 0.5, -1060)
    elif cls == "exp900":
        v = np.ldexp(v, 900 if side == 0 else -900)
    elif cls == "nonfinite":
        p = rng.random(shape)
        v = np.where(p < 0.01, np.inf, np.where(p < 0.02, -np.inf, np.where(p < 0.03, np.nan, v)))
    elif cls == "cancellation" and v.shape[-1] >= 2:
        h = v.shape[-1] // 2          # second half of the inner dimension cancels the first
        if side == 0:
            v[..., h:2 * h] = v[..., :h] * (1 + np.ldexp(rng.random(v[..., :h].shape) - 0.5, -40))
        else:
            v[..., h:2 * h] = -v[..., :h]
    return v


def threads():
    """the same calls alone, then from 8 threads at once: the same bits"""
    import os
    import threading
    import time
    seed = int(os.environ.get("OZBLAS_TEST_SEED", "0") or 0) or int(time.time())
    secs = float(os.environ.get("OZBLAS_TORTURE_SECONDS", "6"))
    print(f"numpy threads: seed {seed} (OZBLAS_TEST_SEED reruns it)")
    rng = np.random.default_rng(seed)
    classes = ["ordinary", "subnormal", "exp900", "nonfinite", "cancellation"]
    calls = []
    for i in range(36):
        cls = classes[i % len(classes)]
        kind = ("matmul", "matvec", "dot")[int(rng.integers(0, 3))]
        big = rng.integers(0, 4) == 0
        if kind == "dot":
            n = int(rng.integers(30000, 120000) if big else rng.integers(1, 2000))
            a, b = mixed(rng, (n,), cls, 0), mixed(rng, (n,), cls, 1)
        elif kind == "matvec":
            m, k = (int(rng.integers(150, 300)), int(rng.integers(150, 300))) if big else \
                   (int(rng.integers(1, 100)), int(rng.integers(2, 100)))
            a, b = mixed(rng, (m, k), cls, 0), mixed(rng, (k,), cls, 1)
        else:
            if rng.integers(0, 3) == 0:   # tall-skinny
                m, n, k = int(rng.integers(200, 1200)), int(rng.integers(2, 6)), int(rng.integers(2, 150))
            elif big:
                m, n, k = (int(x) for x in rng.integers(100, 200, size=3))
            else:
                m, n, k = (int(x) for x in rng.integers(2, 50, size=3))
            a, b = mixed(rng, (m, k), cls, 0), np.ascontiguousarray(mixed(rng, (n, k), cls, 1).T)
        calls.append((kind, a, b))

    def call(c):
        kind, a, b = c
        with np.errstate(all="ignore"):
            r = np.dot(a, b) if kind == "dot" else a @ b
        return np.asarray(r, dtype=np.float64).tobytes()

    alone = [call(c) for c in calls]
    failures, count = [], [0]
    lock = threading.Lock()
    deadline = time.monotonic() + secs

    def work(t):
        r = np.random.default_rng(seed * 31 + t)
        n = 0
        while time.monotonic() < deadline:
            i = int(r.integers(0, len(calls)))
            if call(calls[i]) != alone[i]:
                with lock:
                    failures.append((t, i, calls[i][0]))
            n += 1
        with lock:
            count[0] += n

    ths = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    print(f"numpy threads: 8 threads, {count[0]} calls, {len(failures)} with other bits than the call alone")
    for t, i, kind in failures[:5]:
        print(f"FAIL: thread {t}, call {i} ({kind}): other bits than alone")
    return 1 if failures else 0


def naive():
    d = np.dot(X, Y)
    m = (np.vstack([X, X]) @ np.column_stack([Y, Y]))[0, 0]
    print(f"without the interposer: dot {d!r}, matmul {m!r}, exact {EXACT!r}")
    if d == EXACT or m == EXACT:
        print("FAIL: the plain BLAS gave the exact answer; the demonstration case is wrong")
        return 1
    return 0


if __name__ == "__main__":
    MODES = {"compute": compute, "threads": threads, "naive": naive}
    sys.exit(MODES[sys.argv[1] if len(sys.argv) > 1 else "naive"]())
