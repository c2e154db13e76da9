"""The NumPy API: routines, layouts from strides, configuration, errors, reports, handles."""
import dataclasses
import threading

import numpy as np
import pytest
from conftest import rn, exact_dot, ref_gemm, same_bits

import ozblas


def test_issue_example():
    assert ozblas.dot([1e16, 1, -1e16], [1 + 2**-52, 1, 1], mode="cr") == 3.220446049250313


def test_version_and_exports():
    assert ozblas.__version__ == "0.1.0"
    for name in ozblas.__all__:
        assert hasattr(ozblas, name), name


@pytest.mark.parametrize("mode", ["double", "cr", "fixed"])
def test_routines_match_numpy(mode, rng):
    A, B = rng.standard_normal((9, 7)), rng.standard_normal((7, 5))
    x, y = rng.standard_normal(7), rng.standard_normal(9)
    assert abs(ozblas.dot(x, x, mode=mode) - x @ x) <= 1e-13 * (x @ x)
    np.testing.assert_allclose(ozblas.gemv(A, x, mode=mode), A @ x, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ozblas.gemm(A, B, mode=mode), A @ B, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ozblas.matmul(A, B, mode=mode), A @ B, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ozblas.gemv(A.T, y, mode=mode), A.T @ y, rtol=1e-12, atol=1e-13)


def test_cr_gemm_gemv_exact(rng):
    A, B, C = rng.standard_normal((4, 6)), rng.standard_normal((6, 3)), rng.standard_normal((4, 3))
    out = C.copy()
    r = ozblas.gemm(A, B, alpha=-1.5, beta=0.75, out=out, mode="cr")
    assert r is out
    assert same_bits(out, ref_gemm(A, B, -1.5, 0.75, C))
    x, y = rng.standard_normal(6), rng.standard_normal(4)
    yo = y.copy()
    ozblas.gemv(A, x, 3.0, -2.0, yo, mode="cr")
    assert same_bits(yo, np.array([rn(exact_dot(A[i], x, 3.0, -2.0, y[i])) for i in range(4)]))


# ---- layouts: transposes and increments from the strides ----

def layouts(M):
    """The same matrix in C order, Fortran order, as a transposed view, as a strided view
    with unit inner stride, and as a view with no unit stride (copied by the package)."""
    m, n = M.shape
    big = np.zeros((m + 3, n + 5))
    big[1:m + 1, 2:n + 2] = M
    bigF = np.asfortranarray(big)
    wide = np.zeros((m, 2 * n))
    wide[:, ::2] = M
    return {
        "C": np.ascontiguousarray(M), "F": np.asfortranarray(M), "T-view": np.ascontiguousarray(M.T).T,
        "C-sub": big[1:m + 1, 2:n + 2], "F-sub": bigF[1:m + 1, 2:n + 2], "no-unit": wide[:, ::2],
        "neg": np.ascontiguousarray(M[::-1, ::-1])[::-1, ::-1],
    }


@pytest.mark.parametrize("la", ["C", "F", "T-view", "C-sub", "F-sub", "no-unit", "neg"])
@pytest.mark.parametrize("lb", ["C", "F", "C-sub", "no-unit"])
def test_gemm_layouts(la, lb, rng):
    A, B = rng.standard_normal((5, 4)), rng.standard_normal((4, 3))
    ref = ref_gemm(A, B)
    a, b = layouts(A)[la], layouts(B)[lb]
    a0, b0 = a.copy(), b.copy()
    assert same_bits(ozblas.gemm(a, b, mode="cr"), ref)
    for lc in ("C", "F", "C-sub", "F-sub"):
        out = layouts(np.full((5, 3), np.nan))[lc]
        assert ozblas.gemm(a, b, out=out, mode="cr") is out
        assert same_bits(out, ref)
    assert same_bits(a, a0) and same_bits(b, b0)          # inputs untouched


@pytest.mark.parametrize("la", ["C", "F", "T-view", "C-sub", "F-sub", "no-unit", "neg"])
def test_gemv_layouts(la, rng):
    A, x = rng.standard_normal((6, 4)), rng.standard_normal(8)
    xs = x[::2]
    ref = np.array([rn(exact_dot(A[i], xs)) for i in range(6)])
    assert same_bits(ozblas.gemv(layouts(A)[la], xs, mode="cr"), ref)
    y = np.full(12, np.nan)
    ozblas.gemv(layouts(A)[la], xs, out=y[::-2], mode="cr")     # negative output stride
    assert same_bits(y[::-2], ref) and np.isnan(y[::2]).all()


def test_vector_strides(rng):
    x, y = rng.standard_normal(30), rng.standard_normal(30)
    for xs, ys in [(x[::3], y[:10]), (x[::-3], y[10:20]), (x[5:25:2], y[::-3][:10]),
                   (np.broadcast_to(x[3], (10,)), y[::3])]:
        assert same_bits(ozblas.dot(xs, ys, mode="cr"), rn(exact_dot(xs, ys)))
    raw = np.zeros(10, dtype=[("a", "f8"), ("b", "i4")])["a"]       # stride 12: copied
    raw[:] = x[:10]
    assert same_bits(ozblas.dot(raw, y[:10], mode="cr"), rn(exact_dot(x[:10], y[:10])))
    A = rng.standard_normal((4, 3))
    xb = np.broadcast_to(np.float64(0.5), (3,))                   # zero stride in GEMV: copied
    assert same_bits(ozblas.gemv(A, xb, mode="cr"), np.array([rn(exact_dot(A[i], xb)) for i in range(4)]))


def test_out_overlapping_inputs(rng):
    A, x = rng.standard_normal((5, 5)), rng.standard_normal(5)
    ref = ozblas.gemv(A, x, mode="cr")
    xo = x.copy()
    ozblas.gemv(A, xo, out=xo, mode="cr")
    assert same_bits(xo, ref)
    C = rng.standard_normal((5, 5))
    ref = ozblas.gemm(C, C, mode="cr")
    ozblas.gemm(C, C, out=C, mode="cr")
    assert same_bits(C, ref)


def test_lists_and_scalars():
    assert ozblas.dot([1, 2], [3, 4]) == 11.0
    assert ozblas.dot((1.5,), [True]) == 1.5
    assert same_bits(ozblas.gemm([[1, 2], [3, 4]], [[1], [1]]), np.array([[3.0], [7.0]]))
    assert ozblas.matmul([1.0, 2.0], [[1.0], [1.0]]).tolist() == [3.0]


def test_matmul_dispatch(rng):
    A, B, x = rng.standard_normal((3, 4)), rng.standard_normal((4, 2)), rng.standard_normal(4)
    assert ozblas.matmul(A, B).shape == (3, 2)
    assert ozblas.matmul(A, x).shape == (3,)
    assert ozblas.matmul(rng.standard_normal(3), A).shape == (4,)
    assert isinstance(ozblas.matmul(x, x), float)
    out = np.empty((3, 2))
    assert ozblas.matmul(A, B, out=out) is out
    with pytest.raises(ValueError):
        ozblas.matmul(np.ones((2, 2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError):
        ozblas.matmul(1.0, A)


# ---- special values, BLAS conventions (CONTRACT §4) ----

def test_special_values():
    inf, nan = np.inf, np.nan
    assert ozblas.dot([inf, 1.0], [1.0, 2.0], mode="cr") == inf
    assert ozblas.dot([inf, 1.0], [-1.0, 2.0]) == -inf
    assert np.isnan(ozblas.dot([inf, -inf], [1.0, 1.0]))
    assert np.isnan(ozblas.dot([inf, 1.0], [0.0, 1.0]))
    assert np.isnan(ozblas.dot([nan, 1.0], [1.0, 1.0]))
    A = np.array([[1.0, 2.0], [inf, 1.0], [nan, 0.0]])
    y = ozblas.gemv(A, np.array([1.0, 1.0]), mode="cr")
    assert y[0] == 3.0 and y[1] == inf and np.isnan(y[2])           # the rest unaffected
    assert same_bits(ozblas.dot([1e308, 1e308, -1e308], [1.0, 1.0, 1.0], mode="cr"), 1e308)
    assert ozblas.dot([1.0, -1.0], [1.0, 1.0], mode="cr") == 0.0
    assert same_bits(ozblas.dot([1.0, -1.0], [1.0, 1.0], mode="cr"), 0.0)   # exact zero: +0


def test_beta_zero_and_alpha_zero():
    A = np.array([[1.0, 2.0], [3.0, 4.0]])
    out = np.full((2, 2), np.nan)
    ozblas.gemm(A, A, beta=0.0, out=out)                       # beta == 0: out not read
    assert same_bits(out, ref_gemm(A, A))
    An = np.full((2, 2), np.nan)
    C = np.ones((2, 2))
    ozblas.gemm(An, An, alpha=0.0, beta=2.0, out=C)           # alpha == 0: A, B not read
    assert same_bits(C, np.full((2, 2), 2.0))


def test_empty():
    assert same_bits(ozblas.dot(np.empty(0), np.empty(0)), 0.0)
    assert ozblas.gemm(np.empty((0, 3)), np.empty((3, 2))).shape == (0, 2)
    C = np.ones((2, 2))
    ozblas.gemm(np.empty((2, 0)), np.empty((0, 2)), beta=3.0, out=C)   # k = 0: beta C
    assert same_bits(C, np.full((2, 2), 3.0))
    C = np.full((2, 2), np.nan)
    ozblas.gemm(np.empty((2, 0)), np.empty((0, 2)), out=C)              # k = 0, beta = 0: zeros
    assert same_bits(C, np.zeros((2, 2)))
    assert ozblas.gemv(np.empty((3, 0)), np.empty(0)).tolist() == [0.0, 0.0, 0.0]
    y = np.array([np.nan, 1.0, 2.0, 3.0])
    ozblas.gemv(np.empty((2, 0)), np.empty(0), out=y[::2])          # n = 0, beta = 0: zeros
    assert y.tolist()[1::2] == [1.0, 3.0] and y.tolist()[::2] == [0.0, 0.0]
    y = np.array([1.0, 2.0, 3.0])
    ozblas.gemv(np.empty((3, 0)).T.T, np.empty(0), beta=-2.0, out=y[::-1])
    assert y.tolist() == [-2.0, -4.0, -6.0]
    assert ozblas.gemv(np.empty((0, 3)), np.ones(3)).shape == (0,)


# ---- argument errors ----

@pytest.mark.parametrize("bad", [np.ones(3, dtype=np.float32), np.ones(3, dtype=np.int64),
                                 np.ones(3, dtype=np.complex128), np.ones(3, dtype=">f8"),
                                 np.array(["a", "b", "c"]), [1j, 2, 3], ["1", "2", "3"],
                                 np.array([1.0, 2.0, 3.0], dtype=object)])
def test_float64_only(bad):
    with pytest.raises(TypeError, match="float64|complex"):
        ozblas.dot(bad, np.ones(3))


def test_shape_errors():
    with pytest.raises(ozblas.InvalidValueError, match="differ in length"):
        ozblas.dot(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="1-D"):
        ozblas.dot(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="inner dimensions"):
        ozblas.gemm(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError):
        ozblas.gemv(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="not supported"):
        ozblas.gemm(np.ones((2, 2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="beta"):
        ozblas.gemm(np.ones((2, 2)), np.ones((2, 2)), beta=1.0)
    with pytest.raises(TypeError):
        ozblas.dot(np.ones(2))
    with pytest.raises(TypeError):
        ozblas.gemm(np.ones((2, 2)), np.ones((2, 2)), gamma=1.0)
    with pytest.raises(TypeError):
        ozblas.gemm(np.ones((2, 2)), np.ones((2, 2)), alpha=1j)


def test_out_errors():
    A = np.ones((4, 4))
    with pytest.raises(TypeError, match="float64"):
        ozblas.gemm(A, A, out=np.ones((4, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="shape"):
        ozblas.gemm(A, A, out=np.ones((4, 3)))
    ro = np.ones((4, 4))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ozblas.gemm(A, A, out=ro)
    with pytest.raises(ValueError, match="BLAS layout"):
        ozblas.gemm(A, A, out=np.ones((8, 8))[::2, ::2])
    with pytest.raises(ValueError, match="stride"):
        ozblas.gemv(A, np.ones(4), out=np.lib.stride_tricks.as_strided(np.zeros(1), (4,), (0,)))
    with pytest.raises(TypeError):
        ozblas.gemm(A, A, out=[[0.0] * 4] * 4)


def test_status_exceptions():
    with pytest.raises(ozblas.InvalidValueError) as e:
        ozblas.dot([1.0], [1.0], mode="fixed", splits=0)
    assert isinstance(e.value, ValueError) and isinstance(e.value, ozblas.OzblasError)
    assert e.value.status == 1
    assert ozblas.status_string(1) in str(e.value)
    with pytest.raises(ozblas.InvalidValueError):
        ozblas.dot([1.0], [1.0], threads=-1)
    with pytest.raises(ozblas.InvalidValueError, match="mode"):
        ozblas.dot([1.0], [1.0], mode="exact")
    with pytest.raises(ozblas.InvalidValueError, match="format"):
        ozblas.Handle(format="bf16")
    with pytest.raises(TypeError):
        ozblas.Handle(splits=2.5)
    assert issubclass(ozblas.AllocFailedError, MemoryError)
    assert issubclass(ozblas.NotSupportedError, ozblas.OzblasError)
    assert issubclass(ozblas.ExecutionFailedError, ozblas.OzblasError)
    assert ozblas.NotSupportedError.status == 3 and ozblas.ExecutionFailedError.status == 4


# ---- handles, configuration, reports ----

def test_handle_context_manager_and_config():
    with ozblas.Handle(mode="fixed", splits=2, fast=True, summation="double", threads=1) as h:
        assert h.config.mode == "fixed" and h.config.splits == 2 and h.config.fast is True
        assert h._get("split_count") == 2 and h._get("fast_mode") == 1 and h._get("summation") == 0
        assert h._get("num_threads") == 1
        h.dot([1.0, 2.0], [3.0, 4.0])
        r = h.report()
        assert dataclasses.is_dataclass(r) and r.mode == "fixed" and r.split_count == 2
        assert "Handle(" in repr(h)
    assert h.closed
    with pytest.raises(ValueError, match="closed"):
        h.dot([1.0], [1.0])
    h.close()                                             # idempotent


def test_report_fields(rng):
    A = rng.standard_normal((64, 64))
    ozblas.gemm(A, A, mode="fixed", splits=3)
    r = ozblas.last_report()
    assert r.mode == "fixed" and r.slices_a == 3 and r.gemm_calls >= 1 and r.format == "fp64"
    assert r.seconds_total >= r.seconds_split >= 0.0
    assert len(r.block) == 3
    ozblas.dot(A[0], A[1], mode="cr")
    assert ozblas.last_report().mode == "cr"


def test_config_context():
    x = [1e16, 1, -1e16]
    y = [1 + 2**-52, 1, 1]
    with ozblas.config(mode="fixed", splits=1):
        r1 = ozblas.dot(x, y)
        assert ozblas.last_report().split_count in (0, 1) and ozblas.last_report().mode == "fixed"
        assert ozblas.dot(x, y, mode="cr") == 3.220446049250313     # a keyword wins
    assert ozblas.last_report().mode == "cr"
    ozblas.dot(x, y)
    assert ozblas.last_report().mode == "double"                      # restored
    assert isinstance(r1, float)
    with pytest.raises(TypeError):
        with ozblas.config(colour="blue"):
            pass


def test_default_handles_per_thread(rng):
    A = rng.standard_normal((200, 200))
    ref = ozblas.gemm(A, A.T, mode="cr")
    results, errors = [None] * 4, []

    def work(i):
        try:
            results[i] = ozblas.gemm(A, A.T, mode="cr")
        except Exception as e:  # pragma: no cover
            errors.append(e)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    assert all(same_bits(r, ref) for r in results)


def test_products_name_and_info():
    with ozblas.Handle() as h:
        assert isinstance(h.products_name(), str)
    assert ozblas.cuda_unavailable_reason(0) is None or isinstance(ozblas.cuda_unavailable_reason(0), str)


def test_handle_in_use_by_another_thread_raises():
    """A Handle serves one thread at a time: while one thread is in a call (the GIL released),
    another thread's call on the same handle raises RuntimeError instead of racing."""
    A = np.random.default_rng(3).standard_normal((700, 700))
    with ozblas.Handle(mode="cr") as h:
        done, seen = threading.Event(), []

        def big():
            try:
                seen.append(h.gemm(A, A))
            finally:
                done.set()
        t = threading.Thread(target=big)
        t.start()
        raised = False
        while not done.is_set() and not raised:
            try:
                h.dot([1.0], [1.0])
            except RuntimeError as e:
                raised = "another thread" in str(e)
        t.join()
        if not raised:
            pytest.skip("the other thread's call ended before this thread could try")
        assert len(seen) == 1 and seen[0].shape == (700, 700)
