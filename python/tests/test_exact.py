"""Property-based: CORRECTLY_ROUNDED results equal the exact result (fractions.Fraction) rounded
once, bit for bit, on random and adversarial inputs (cancellation, subnormals, near overflow),
and special values follow IEEE rules on the exact computation (CONTRACT §2, §4)."""
import math

import numpy as np
from conftest import exact_dot, ref_element, ref_gemm, rn, same_bits
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ozblas

SETTINGS = settings(max_examples=150, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# |x| <= 2^500: sums of products stay below 2^1010 (no overflow); subnormals and -0.0 included
moderate = st.floats(min_value=-2.0**500, max_value=2.0**500, allow_nan=False, allow_infinity=False)
anyfinite = st.floats(allow_nan=False, allow_infinity=False)
subnormal = st.floats(min_value=-2.0**-1022, max_value=2.0**-1022, allow_nan=False)
huge = st.floats(min_value=2.0**1015, max_value=np.finfo(np.float64).max).flatmap(
    lambda v: st.sampled_from([v, -v]))
scalar = st.sampled_from([0.0, 1.0, -1.0, 0.5, 3.0, -0.1, 2.0**-30, 1e10])


def pairs(elements, max_size=16):
    return st.lists(st.tuples(elements, elements), max_size=max_size)


def check_dot(ps, **kw):
    x = np.array([a for a, _ in ps], dtype=np.float64)
    y = np.array([b for _, b in ps], dtype=np.float64)
    got = ozblas.dot(x, y, mode="cr", **kw)
    want = rn(exact_dot(x, y))
    assert same_bits(got, want), f"{got!r} ({got.hex()}) != RN(exact) {want!r} ({want.hex()})"


@SETTINGS
@given(pairs(moderate))
def test_dot_random(ps):
    check_dot(ps)


@SETTINGS
@given(pairs(anyfinite, 8))
def test_dot_full_range(ps):
    """Any finite inputs: products up to 2^2047 and down to 2^-2148; a result beyond the
    range is RN's +-inf, every other is RN(exact)."""
    check_dot(ps)


@SETTINGS
@given(st.lists(moderate, min_size=1, max_size=8), st.lists(st.floats(min_value=-2.0**-40, max_value=2.0**-40), max_size=6),
       st.randoms(use_true_random=False), st.sampled_from([1.0, -1.0, 3.0, 2.0**-7]))
def test_dot_cancellation(big, small, rnd, scale):
    """Terms that cancel exactly (v and -v) with small ones in between: the result is the sum
    of the small terms alone, which naive summation loses."""
    xs = big + [-v for v in big] + small
    rnd.shuffle(xs)
    check_dot([(v, scale) for v in xs])


@SETTINGS
@given(st.integers(min_value=1, max_value=900), st.integers(min_value=1, max_value=2**20), st.sampled_from([1.0, -1.0]))
def test_dot_classic_cancellation(e, k, s):
    """[2^e, 1, -2^e] . [1 + k 2^-52, 1, 1] = 1 + k 2^(e-52) (the issue's example at e = 53ish)."""
    big = s * 2.0**e
    check_dot([(big, 1.0 + k * 2.0**-52), (1.0, 1.0), (-big, 1.0)])


@SETTINGS
@given(pairs(subnormal, 10), pairs(st.floats(min_value=-4.0, max_value=4.0), 10))
def test_dot_subnormal(ps, qs):
    """Subnormal inputs times small ones (subnormal results) and times each other (results that
    underflow entirely: RN of a nonzero value below half the least subnormal is a signed zero)."""
    check_dot([(a, c) for (a, _), (c, _) in zip(ps, qs)])
    check_dot(ps)


@SETTINGS
@given(st.lists(huge, min_size=1, max_size=6), st.lists(st.sampled_from([1.0, -1.0, 0.5, 0.25, 2.0]), min_size=6, max_size=6))
def test_dot_near_overflow(xs, ys):
    """Terms near the largest float64: partial sums overflow where the result need not."""
    check_dot(list(zip(xs, ys)))
    m = np.finfo(np.float64).max
    check_dot([(xs[0], 1.0), (m, 1.0), (-m, 1.0)])        # 2 max overflows on the way, result finite


@SETTINGS
@given(st.data(), st.integers(1, 4), st.integers(1, 4), st.integers(0, 5), scalar, scalar)
def test_gemm_exact(data, m, n, k, alpha, beta):
    A = data.draw(arrays(np.float64, (m, k), elements=moderate))
    B = data.draw(arrays(np.float64, (k, n), elements=moderate))
    C = data.draw(arrays(np.float64, (m, n), elements=moderate))
    order = data.draw(st.sampled_from(["C", "F"]))
    out = np.array(C, order=order)
    ozblas.gemm(A, B, alpha, beta, out, mode="cr")
    assert same_bits(out, ref_gemm(A, B, alpha, beta, C))


@SETTINGS
@given(st.data(), st.integers(1, 6), st.integers(0, 6), scalar, scalar, st.booleans())
def test_gemv_exact(data, m, n, alpha, beta, transposed):
    A = data.draw(arrays(np.float64, (m, n), elements=moderate))
    x = data.draw(arrays(np.float64, (n,), elements=moderate))
    y = data.draw(arrays(np.float64, (m,), elements=moderate))
    a = np.asfortranarray(A) if transposed else A
    out = y.copy()
    ozblas.gemv(a, x, alpha, beta, out, mode="cr")
    want = np.array([ref_element(A[i], x, alpha, beta, y[i]) for i in range(m)])
    assert same_bits(out, want)


def ieee_dot(x, y):
    """The exact dot product under IEEE rules per term: NaN for a NaN, 0*Inf, or +Inf meeting
    -Inf; +-Inf where an infinite term is present; else RN(exact)."""
    infs = set()
    for a, b in zip(x, y):
        if math.isnan(a) or math.isnan(b):
            return math.nan
        if math.isinf(a) or math.isinf(b):
            if a == 0 or b == 0:
                return math.nan
            infs.add(math.copysign(1.0, a) * math.copysign(1.0, b))
    if len(infs) == 2:
        return math.nan
    if infs:
        return math.inf * infs.pop()
    return rn(exact_dot(x, y))


@SETTINGS
@given(pairs(st.one_of(moderate, st.sampled_from([math.inf, -math.inf, math.nan, 0.0])), 10),
       st.sampled_from(["cr", "double", "fixed"]))
def test_dot_special_values(ps, mode):
    x = [a for a, _ in ps]
    y = [b for _, b in ps]
    want = ieee_dot(x, y)
    got = ozblas.dot(x, y, mode=mode)
    if math.isnan(want):
        assert math.isnan(got)
    elif math.isinf(want):
        assert got == want
    else:
        assert math.isfinite(got)                     # no spurious NaN or Inf in any mode
        if mode == "cr":
            assert same_bits(got, want)
