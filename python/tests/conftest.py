"""Shared helpers: exact references with fractions.Fraction, bitwise comparison, format checks.

Run against the installed package (pip install . then pytest python/tests); nothing here puts
the source tree on sys.path."""
import math
import struct
from fractions import Fraction

import numpy as np
import pytest

import ozblas

FORMATS = ("fp64", "fp16", "int8", "crt")


def rn(q: Fraction) -> float:
    """q rounded to the nearest float64, ties to even (CPython's int/int division is correctly
    rounded, subnormals included); beyond the range: +-inf.  An exact zero is +0; a nonzero q
    that rounds to zero keeps its sign."""
    try:
        return q.numerator / q.denominator
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def exact_dot(x, y, alpha=1.0, beta=0.0, c=0.0):
    s = sum((Fraction(float(a)) * Fraction(float(b)) for a, b in zip(x, y)), Fraction(0))
    r = Fraction(alpha) * s
    if beta != 0:
        r += Fraction(beta) * Fraction(c)
    return r


def ref_element(x, y, alpha=1.0, beta=0.0, c=0.0) -> float:
    """A correctly rounded GEMM/GEMV element: RN(alpha x.y + beta c) (finite inputs), with the
    BLAS conventions of CONTRACT §4: alpha == 0 or an empty x.y gives beta*c, computed as a
    float64 product (so -0.0 where beta*c is a negative zero), and beta == 0 does not read c."""
    if alpha == 0 or len(x) == 0:
        return 0.0 if beta == 0 else float(beta) * float(c)
    return rn(exact_dot(x, y, alpha, beta, c))


def ref_gemm(A, B, alpha=1.0, beta=0.0, C=None):
    """RN(alpha * A B + beta * C) per element, exactly (finite inputs)."""
    A, B = np.asarray(A), np.asarray(B)
    m, n = A.shape[0], B.shape[1]
    out = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            out[i, j] = ref_element(A[i, :], B[:, j], alpha, beta, 0.0 if C is None else C[i, j])
    return out


def bits(a) -> bytes:
    """The bytes of a float or float64 array (C order), for bitwise comparison."""
    if isinstance(a, (float, np.floating)):
        return struct.pack("<d", float(a))
    return np.ascontiguousarray(a, dtype=np.float64).tobytes()


def same_bits(a, b) -> bool:
    return bits(a) == bits(b)


def format_available(fmt: str) -> bool:
    try:
        with ozblas.Handle(format=fmt) as h:
            h.dot([1.0], [1.0])
        return True
    except ozblas.NotSupportedError:
        return False


@pytest.fixture(params=FORMATS)
def fmt(request):
    if not format_available(request.param):
        pytest.skip(f"format {request.param} is not in this build (INT8 and CRT need oneDNN)")
    return request.param


@pytest.fixture
def rng():
    return np.random.default_rng(20261127)
