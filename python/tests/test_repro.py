"""Bitwise reproducibility: across thread counts, workspace limits and layouts for every mode
and format; across formats where the contract says so (CORRECTLY_ROUNDED in every format;
DOUBLE with fp64, fp16 and int8 is correctly rounded); and check_reproducible itself."""
import numpy as np
import pytest
from conftest import FORMATS, format_available, same_bits
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ozblas

SETTINGS = settings(max_examples=12, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def data(seed, shape, phi):
    """Random values whose exponents spread with phi (phi = 0: all near 1)."""
    r = np.random.default_rng(seed)
    return (r.random(shape) - 0.5) * np.exp(phi * r.standard_normal(shape))


def run_all(kw, seed, m, n, k, phi):
    A, B = data(seed, (m, k), phi), data(seed + 1, (k, n), phi)
    x, y = data(seed + 2, k, phi), data(seed + 3, m, phi)
    C = data(seed + 4, (m, n), phi)
    out = C.copy()
    ozblas.gemm(A, B, 0.5, -1.25, out, **kw)
    yo = y.copy()
    ozblas.gemv(A, x, -2.0, 0.5, yo, **kw)
    return ozblas.dot(x, x[::-1], **kw), yo, out, ozblas.gemm(A.T, y[:, None], **kw)


MODES = [dict(mode="cr"), dict(mode="double"), dict(mode="fixed", splits=2),
         dict(mode="fixed", splits=4, fast=True), dict(mode="fixed", splits=3, summation="double")]


@pytest.mark.parametrize("cfg", MODES, ids=lambda c: "-".join(str(v) for v in c.values()))
@SETTINGS
@given(seed=st.integers(0, 2**31), m=st.integers(1, 40), n=st.integers(1, 40), k=st.integers(1, 300),
       phi=st.sampled_from([0.0, 1.0, 4.0]))
def test_threads_and_workspace(fmt, cfg, seed, m, n, k, phi):
    ref = run_all(dict(cfg, format=fmt, threads=1), seed, m, n, k, phi)
    for extra in (dict(threads=2, parallel_threshold=1), dict(threads=4, parallel_threshold=1),
                  dict(threads=3, workspace_limit=65536)):
        got = run_all(dict(cfg, format=fmt, **extra), seed, m, n, k, phi)
        for r, g in zip(ref, got):
            assert same_bits(r, g), (cfg, fmt, extra)


def test_threads_large():
    """Large enough for every routine's parallel paths at the default threshold."""
    A, x = data(1, (600, 600), 2.0), data(2, 600, 2.0)
    for mode in ("cr", "double", "fixed"):
        ref = (ozblas.gemm(A, A.T, mode=mode, threads=1), ozblas.gemv(A, x, mode=mode, threads=1),
               ozblas.dot(A.ravel(), A.T.ravel(), mode=mode, threads=1))
        for t in (2, 4):
            got = (ozblas.gemm(A, A.T, mode=mode, threads=t), ozblas.gemv(A, x, mode=mode, threads=t),
                   ozblas.dot(A.ravel(), A.T.ravel(), mode=mode, threads=t))
            assert all(same_bits(r, g) for r, g in zip(ref, got)), (mode, t)


@SETTINGS
@given(seed=st.integers(0, 2**31), m=st.integers(1, 30), n=st.integers(1, 30), k=st.integers(1, 200),
       phi=st.sampled_from([0.0, 2.0, 6.0]))
def test_formats_cr_and_double(seed, m, n, k, phi):
    """CORRECTLY_ROUNDED: the same bits in every format; DOUBLE with fp64, fp16 and int8 too."""
    ref = run_all(dict(mode="cr", format="fp64"), seed, m, n, k, phi)
    for fmt in FORMATS:
        if not format_available(fmt):
            continue
        configs = [dict(mode="cr", format=fmt)] + ([dict(mode="double", format=fmt)] if fmt != "crt" else [])
        for cfg in configs:
            got = run_all(cfg, seed, m, n, k, phi)
            assert all(same_bits(r, g) for r, g in zip(ref, got)), cfg


@SETTINGS
@given(seed=st.integers(0, 2**31), m=st.integers(1, 12), n=st.integers(1, 12), k=st.integers(1, 40))
def test_layouts_cr(seed, m, n, k):
    """A correctly rounded result is unique: C, Fortran and transposed layouts agree."""
    A, B = data(seed, (m, k), 3.0), data(seed + 1, (k, n), 3.0)
    ref = ozblas.gemm(A, B, mode="cr")
    for a in (A, np.asfortranarray(A), np.ascontiguousarray(A.T).T):
        for b in (B, np.asfortranarray(B)):
            for out in (np.empty((m, n)), np.empty((m, n), order="F")):
                assert same_bits(ozblas.gemm(a, b, out=out, mode="cr"), ref)


# ---- check_reproducible ----

def test_check_reproducible_passes():
    A, B = data(5, (40, 30), 2.0), data(6, (30, 20), 2.0)
    rep = ozblas.check_reproducible(lambda a, b: (ozblas.matmul(a, b, mode="fixed"), ozblas.dot(a[0], b[:, 0])),
                                    A, B, backends=("cpu",))
    assert rep and rep.reproducible and len(rep.settings) == 3 and not rep.differences
    assert "bitwise reproducible" in str(rep)


def test_check_reproducible_reports_first_difference():
    calls = []

    def drifting(x):
        calls.append(1)
        out = x.copy()
        out[1, 2] += len(calls) * 2.0**-40       # differs from the second run on
        x[:] = np.nan                            # arguments are copied for each run
        return {"r": [out]}
    x = np.ones((3, 4))
    rep = ozblas.check_reproducible(drifting, x, threads=(1, 2), backends=("cpu",))
    assert not rep
    d = rep.first_difference
    assert d.index == (1, 2) and d.path == ("r", 0) and d.setting == {"backend": "cpu", "threads": 2}
    assert d.expected == 1.0 + 2.0**-40 and d.got == 1.0 + 2.0**-39
    assert "NOT reproducible" in str(rep) and "(1, 2)" in str(rep)
    assert not np.isnan(x).any()


def test_check_reproducible_bits_not_values():
    seq = iter([0.0, -0.0])
    rep = ozblas.check_reproducible(lambda: next(seq), threads=(1, 2), backends=("cpu",))
    assert not rep                                   # +0 and -0 are different bits


def test_check_reproducible_skips_unavailable_backend(monkeypatch):
    monkeypatch.delenv("OZBLAS_CUDA_EMULATE", raising=False)
    x = data(9, 100, 1.0)
    rep = ozblas.check_reproducible(lambda v: ozblas.dot(v, v), x, threads=(1, 2))
    assert rep.reproducible
    if ozblas.cuda_unavailable_reason(0) is not None:
        assert [s["backend"] for s, _ in rep.skipped] == ["cuda", "cuda"]
        assert "skipped" in str(rep)


def test_check_reproducible_formats():
    x = data(3, 500, 3.0)
    rep = ozblas.check_reproducible(lambda v: ozblas.dot(v, v[::-1], mode="cr"), x, threads=(1, 2),
                                    backends=("cpu",), formats=FORMATS)
    assert rep.reproducible
    assert len(rep.settings) + len(rep.skipped) == 8
