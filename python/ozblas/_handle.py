"""ozblas.Handle: one configured library handle (CPU or CUDA)."""
from __future__ import annotations

import os

import numpy as np

from . import _config as C
from ._ozblas import InvalidValueError, NotSupportedError, _Handle

_F64 = np.dtype(np.float64)


def _ndim(a) -> int:
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is not None:
        return len(cai["shape"])
    return np.ndim(a)


def _host_array(a):
    """The conversion rule of the C extension, in Python: float64 arrays as they are, Python
    sequences and numbers through numpy.asarray (integers and booleans to float64)."""
    if isinstance(a, np.ndarray):
        return a
    arr = np.asarray(a)
    if isinstance(a, (list, tuple, int, float)) and arr.dtype.kind in "iub":
        arr = arr.astype(np.float64)
    return arr


def _transpose(a):
    return a.T if hasattr(a, "T") else _host_array(a).T


class Handle(_Handle):
    """An ozblas handle: a fixed configuration, reused over calls.

    ``Handle(mode="double", splits=None, fast=None, summation=None, format="fp64",
    threads=None, backend="cpu", device=0, crt_scaling=None, workspace_limit=None,
    parallel_threshold=None)``; a setting left at None keeps the library's default.

    Modes and what each guarantees (docs/CONTRACT.md):

    - ``"double"`` (default): accuracy at least that of a conventional DGEMM/DDOT/DGEMV and
      every output element a function of its own row, column and the configuration alone, so
      the bits never depend on thread count, blocking, backend or how a product is cut into
      calls.  With the formats ``"fp64"``, ``"fp16"`` and ``"int8"`` every result is moreover
      correctly rounded (the same bits as ``"cr"``); with ``"crt"`` each element meets a quarter
      of the componentwise bound ``0.5 sqrt(k) u (|A||B|)_ij`` or is correctly rounded.
    - ``"cr"`` (correctly rounded): every finite output equals ``RN(alpha*sum + beta*c)``, the
      exact result rounded once to float64, bit for bit, for any finite inputs (subnormal and
      near-overflow results included).  Unique, hence identical on every machine, thread count,
      format and backend.
    - ``"fixed"``: exactly ``splits`` slices per input (``fast=True`` skips the pairs of small
      weight, ``summation="nearsum"`` rounds the sum of the computed products correctly,
      ``"double"`` sums them in float64 in a fixed order).  Bitwise reproducible per format.

    Special values follow IEEE rules on the exact computation per element (NaN for NaN inputs,
    ``0*Inf`` or ``Inf-Inf``; otherwise +-Inf where an infinite term is present); finite inputs
    never give a spurious NaN or Inf; an exact zero is +0.

    Formats (``format=``): ``"fp64"`` (double slices, the default), ``"fp16"``, ``"int8"``
    (integer slices; ``"int8"`` needs oneDNN), ``"crt"`` (Ozaki scheme II, residues modulo
    small coprime moduli).  ``threads=0`` or None: all cores; the thread count never changes a
    bit.  ``backend="cuda"``: a CUDA handle on GPU ``device``, taking CuPy (or any
    ``__cuda_array_interface__``) arrays; NumPy arrays are moved with CuPy and the result comes
    back as NumPy.  Creating one where no GPU (or no CUDA build) is present raises
    NotSupportedError with the reason.

    A handle serves one thread at a time (using it from two threads at once raises
    RuntimeError).  ``with Handle(...) as h:`` closes it at the end of the block.
    """

    def __init__(self, *, mode="double", splits=None, fast=None, summation=None, format="fp64",
                 threads=None, backend="cpu", device=0, crt_scaling=None, workspace_limit=None,
                 parallel_threshold=None):
        b = C.code(C.BACKENDS, "backend", backend)
        dev = C.integer("device", device, 0)
        settings = [("mode", C.code(C.MODES, "mode", mode))]
        settings.append(("engine", C.code(C.FORMATS, "format", format)))
        if splits is not None:
            settings.append(("split_count", C.integer("splits", splits, -2**31)))
        if fast is not None:
            settings.append(("fast_mode", int(bool(fast))))
        if summation is not None:
            settings.append(("summation", C.code(C.SUMMATIONS, "summation", summation)))
        if crt_scaling is not None:
            settings.append(("crt_scaling", C.code(C.CRT_SCALINGS, "crt_scaling", crt_scaling)))
        if threads is not None:
            settings.append(("num_threads", C.integer("threads", threads, -2**31)))
        if workspace_limit is not None:
            settings.append(("workspace_limit", C.integer("workspace_limit", workspace_limit, 0)))
        if parallel_threshold is not None:
            settings.append(("parallel_threshold", C.integer("parallel_threshold", parallel_threshold, -2**63)))
        # the emulated device (OZBLAS_CUDA_EMULATE=1, read when the handle is created) works in
        # host memory: NumPy arrays go straight to the library there
        host = b == 0 or os.environ.get("OZBLAS_CUDA_EMULATE") == "1"
        super().__init__(b, dev, host)
        try:
            for name, value in settings:
                self._set(name, value)
        except BaseException:
            self.close()
            raise
        mode_name = C.MODE_NAMES[C.MODES[mode.lower()]]
        fmt_name = C.FORMAT_NAMES[C.FORMATS[format.lower()]]
        self.config = C.Config(mode_name, splits, None if fast is None else bool(fast),
                               None if summation is None else summation.lower(), fmt_name, threads,
                               backend.lower(), dev, None if crt_scaling is None else crt_scaling.lower(),
                               workspace_limit, parallel_threshold)

    # dot(x, y), gemv(A, x, alpha=1.0, beta=0.0, out=None) and gemm(A, B, alpha=1.0, beta=0.0,
    # out=None) are the C extension's methods (see the module functions' docstrings).

    def matmul(self, A, B, out=None):
        """``A @ B`` with NumPy's matmul rules for 1-D and 2-D operands: matrix @ matrix is
        gemm, matrix @ vector and vector @ matrix are gemv, vector @ vector is dot (a float).
        Stacks of matrices (3-D and more) are not supported."""
        na, nb = _ndim(A), _ndim(B)
        if na == 0 or nb == 0:
            raise InvalidValueError("matmul: scalar operands are not allowed, use *")
        if na > 2 or nb > 2:
            raise InvalidValueError("matmul: stacks of matrices (3-D and more) are not supported")
        if na == 2 and nb == 2:
            return self.gemm(A, B, out=out)
        if na == 2:
            return self.gemv(A, B, out=out)
        if nb == 2:
            return self.gemv(_transpose(B), A, out=out)
        if out is not None:
            raise InvalidValueError("matmul: out= is not allowed for vector @ vector (the result is a float)")
        return self.dot(A, B)

    def report(self) -> C.Report:
        """The report of the last routine called on this handle (slices, GEMMs, time split)."""
        return C.Report.from_info(self._info())

    def products_name(self, format=None):
        """What computes the exact products of ``format`` (default: this handle's) here, e.g.
        "OpenBLAS DGEMM"; None where that format has no such products on this handle."""
        f = self.config.format if format is None else format
        return self._products_name(C.code(C.FORMATS, "format", f))

    @property
    def backend(self) -> str:
        return self.config.backend

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        cfg = ", ".join(f"{k}={v!r}" for k, v in vars(self.config).items()
                        if v is not None and not (k == "device" and self.config.backend == "cpu"))
        return f"ozblas.Handle({cfg}{', closed' if self.closed else ''})"

    # ---- CUDA handles on a real GPU: called by the C methods, which take device arrays ----

    def _device_args(self, arrays):
        """Device arrays for the C extension: CUDA arrays as they are (copied to a BLAS layout
        where theirs is none), host arrays moved with CuPy.  Returns (arrays, any_host)."""
        cp = _cupy()
        out, host = [], False
        for a in arrays:
            if not hasattr(a, "__cuda_array_interface__"):
                h = _host_array(a)
                if h.dtype != _F64:
                    raise TypeError(f"ozblas computes in float64 only, got an array of dtype {h.dtype}")
                a = cp.asarray(h)
                host = True
            elif not _blas_layout(a.__cuda_array_interface__):
                a = cp.asfortranarray(a) if len(a.__cuda_array_interface__["shape"]) == 2 else cp.ascontiguousarray(a)
            out.append(a)
        self._set_stream(cp.cuda.get_current_stream().ptr)
        return out, host

    def _device_dot(self, x, y):
        (x, y), _ = self._device_args((x, y))
        return self._dot(x, y)

    def _device_gemv(self, A, x, alpha=1.0, beta=0.0, out=None):
        (A, x), host = self._device_args((A, x))
        return self._device_out(self._gemv, (A, x), (_shape(A)[0],), alpha, beta, out, host)

    def _device_gemm(self, A, B, alpha=1.0, beta=0.0, out=None):
        (A, B), host = self._device_args((A, B))
        return self._device_out(self._gemm, (A, B), (_shape(A)[0], _shape(B)[1]), alpha, beta, out, host)

    def _device_out(self, routine, args, shape, alpha, beta, out, host):
        cp = _cupy()
        if out is None:
            if beta != 0:
                raise InvalidValueError("beta != 0 needs out= (the array that beta scales and the result replaces)")
            dev = cp.empty(shape, dtype=np.float64)
            routine(*args, alpha=alpha, beta=beta, out=dev)
            return dev.get() if host else dev
        if hasattr(out, "__cuda_array_interface__"):
            return routine(*args, alpha=alpha, beta=beta, out=out)
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be an array, got {type(out).__name__}")
        if not out.flags.writeable:
            raise InvalidValueError("out is read-only")
        dev = cp.asarray(out)
        routine(*args, alpha=alpha, beta=beta, out=dev)
        out[...] = dev.get()
        return out


def _shape(a):
    return tuple(a.__cuda_array_interface__["shape"])


def _blas_layout(cai) -> bool:
    """Whether a __cuda_array_interface__ describes a BLAS vector or column/row-major matrix."""
    shape = cai["shape"]
    strides = cai.get("strides")
    if strides is None:
        return True
    if any(s % 8 for s in strides):
        return False
    if len(shape) == 1:
        return True
    r, c = shape
    s0, s1 = strides
    if r == 0 or c == 0:
        return True
    if (r == 1 or s0 == 8) and (c == 1 or (s1 > 0 and s1 // 8 >= r)):
        return True
    return (c == 1 or s1 == 8) and (r == 1 or (s0 > 0 and s0 // 8 >= c))


def _cupy():
    try:
        import cupy
    except ImportError:
        raise NotSupportedError("a CUDA handle takes NumPy arrays through CuPy, which is not installed "
                                "(pip install cupy-cuda12x), or device arrays with __cuda_array_interface__") from None
    return cupy


