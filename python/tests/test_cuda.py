"""The CUDA backend from Python: a clean NotSupportedError without a GPU, the emulated device
(OZBLAS_CUDA_EMULATE=1: host memory, the real kernels) bit for bit against the CPU, and CuPy
arrays where CuPy and a GPU are present (skipped otherwise)."""
import numpy as np
import pytest
from conftest import same_bits

import ozblas


@pytest.fixture(autouse=True)
def fresh_default_handles():
    ozblas._clear_default_handles()        # the emulation knob is read when a handle is created
    yield
    ozblas._clear_default_handles()


def test_no_gpu_is_a_clean_error(monkeypatch):
    monkeypatch.delenv("OZBLAS_CUDA_EMULATE", raising=False)
    why = ozblas.cuda_unavailable_reason(0)
    if why is None:
        pytest.skip("a GPU is present")
    with pytest.raises(ozblas.NotSupportedError) as e:
        ozblas.Handle(backend="cuda")
    assert why in str(e.value) and e.value.status == 3
    with pytest.raises(ozblas.NotSupportedError):
        ozblas.dot([1.0], [1.0], backend="cuda")
    with pytest.raises(ozblas.InvalidValueError):
        ozblas.Handle(backend="tpu")


@pytest.fixture
def emulated(monkeypatch):
    monkeypatch.setenv("OZBLAS_CUDA_EMULATE", "1")
    try:
        ozblas.Handle(backend="cuda").close()
    except ozblas.NotSupportedError as e:
        pytest.skip(f"no emulated device in this build: {e}")


@pytest.mark.parametrize("cfg", [dict(mode="cr"), dict(mode="double"), dict(mode="fixed", splits=3),
                                 dict(mode="cr", format="fp16")], ids=str)
def test_emulated_device_matches_cpu(emulated, cfg, rng):
    A, B = rng.standard_normal((33, 17)) * np.exp(3 * rng.standard_normal((33, 17))), rng.standard_normal((17, 9))
    x = rng.standard_normal(17)
    with ozblas.Handle(backend="cuda", **cfg) as g, ozblas.Handle(**cfg) as c:
        assert g.backend == "cuda"
        assert same_bits(g.dot(x, x[::-1]), c.dot(x, x[::-1]))
        assert same_bits(g.gemv(A, x), c.gemv(A, x))
        assert same_bits(g.gemv(A.T, A[:, 0]), c.gemv(A.T, A[:, 0]))
        assert same_bits(g.gemm(A, B), c.gemm(A, B))
        assert same_bits(g.gemm(np.asfortranarray(A), B, out=np.empty((33, 9), order="F")), c.gemm(A, B))
        assert g.report().mode == c.report().mode
        assert c.report().bytes_to_device == 0 and not c.report().host_staged


def test_emulated_check_reproducible(emulated, rng):
    A, B = rng.standard_normal((20, 30)), rng.standard_normal((30, 10))
    rep = ozblas.check_reproducible(lambda a, b: ozblas.matmul(a, b, mode="cr"), A, B, threads=(1, 2))
    assert rep.reproducible and not rep.skipped
    assert [s["backend"] for s in rep.settings] == ["cpu", "cpu", "cuda", "cuda"]


def _cupy_or_skip():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    if ozblas.cuda_unavailable_reason(0) is not None:
        pytest.skip(f"no GPU: {ozblas.cuda_unavailable_reason(0)}")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy sees no GPU")
    except Exception as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"CuPy cannot reach a GPU: {e}")
    return cp


def test_cupy_arrays(monkeypatch, rng):
    monkeypatch.delenv("OZBLAS_CUDA_EMULATE", raising=False)
    cp = _cupy_or_skip()
    A, B = rng.standard_normal((64, 48)), rng.standard_normal((48, 32))
    x = rng.standard_normal(48)
    with ozblas.Handle(backend="cuda", mode="cr") as g, ozblas.Handle(mode="cr") as c:
        dA, dB, dx = cp.asarray(A), cp.asarray(B), cp.asarray(x)
        r = g.gemm(dA, dB)
        assert isinstance(r, cp.ndarray) and same_bits(r.get(), c.gemm(A, B))
        assert same_bits(g.gemm(dA.T, dA).get(), c.gemm(A.T, A))
        assert same_bits(g.gemv(dA, dx).get(), c.gemv(A, x))
        assert same_bits(g.dot(dx, dx), c.dot(x, x))
        out = cp.zeros((64, 32), order="F")
        assert g.gemm(dA, dB, out=out) is out and same_bits(out.get(), c.gemm(A, B))
        host = g.gemm(A, B)                         # NumPy in, NumPy out (moved with CuPy)
        assert isinstance(host, np.ndarray) and same_bits(host, c.gemm(A, B))
        with pytest.raises(TypeError):
            c.dot(dx, dx)                           # a CPU handle refuses device arrays
        with pytest.raises(TypeError):
            g.dot(cp.ones(3, dtype=cp.float32), cp.ones(3, dtype=cp.float32))
