"""ozblas: accurate and bitwise-reproducible BLAS (DOT, GEMV, GEMM) for NumPy arrays.

>>> import ozblas
>>> ozblas.dot([1e16, 1, -1e16], [1 + 2**-52, 1, 1], mode="cr")   # the exact result, rounded once
3.220446049250313

Routines: ``dot(x, y)``, ``gemv(A, x)``, ``gemm(A, B)``, ``matmul(A, B)``, float64 only (any
other dtype raises TypeError; Python lists and numbers are converted).  Transposes are read
from the strides: C- and Fortran-ordered matrices, transposed views (``A.T``) and strided
views with one unit stride go to the library without a copy; other layouts of inputs are
copied; ``out=`` must be a writable float64 array of such a layout (else ValueError).

Configuration, as keyword arguments of every routine or of a reusable ``Handle``:
``mode="double" | "cr" | "fixed"``, ``splits=``, ``fast=``, ``summation="nearsum" | "double"``,
``format="fp64" | "fp16" | "int8" | "crt"``, ``threads=``, ``backend="cpu" | "cuda"``,
``device=``, ``crt_scaling="fast" | "accurate"``, ``workspace_limit=``, ``parallel_threshold=``.
``with ozblas.config(**settings):`` sets the defaults of the current thread for a block.

Modes: ``"cr"`` returns every element correctly rounded (the exact result rounded once:
unique, the same bits everywhere); ``"double"`` (default) is at least as accurate as a
conventional DGEMM and bitwise reproducible (correctly rounded with the fp64, fp16 and int8
formats); ``"fixed"`` uses ``splits`` slices, reproducible per format.  ``Handle``'s docstring
states each guarantee; docs/CONTRACT.md has all of them.

The module-level routines use a default handle per configuration and per thread (created at
the first call, kept for the thread's life), so they are safe from any number of threads; a
``Handle`` serves one thread at a time.  The GIL is released during calls of 4096
multiply-adds or more.  ``last_report()`` is the report of the current thread's last call.

Errors: every library status is an exception carrying the library's message
(``InvalidValueError`` (a ValueError), ``AllocFailedError`` (a MemoryError),
``NotSupportedError``, ``ExecutionFailedError``, all ``OzblasError``; ``.status`` is the code).
"""
from __future__ import annotations

import contextlib
import threading

from . import _config
from ._config import Config, Report
from ._handle import Handle
from ._ozblas import (AllocFailedError, ExecutionFailedError, InvalidValueError, NotSupportedError,
                      OzblasError, cuda_unavailable_reason, status_string)
from ._repro import Difference, ReproducibilityReport, check_reproducible

__version__ = "0.1.0"

OzblasError.status = None
InvalidValueError.status = 1
AllocFailedError.status = 2
NotSupportedError.status = 3
ExecutionFailedError.status = 4

__all__ = ["dot", "gemv", "gemm", "matmul", "Handle", "config", "last_report", "Report", "Config",
           "check_reproducible", "ReproducibilityReport", "Difference", "OzblasError", "InvalidValueError",
           "AllocFailedError", "NotSupportedError", "ExecutionFailedError", "cuda_unavailable_reason",
           "status_string", "__version__"]

# ---- the default handles: one per configuration and thread ----

_tls = threading.local()
_MAX_CACHED = 64


class _State:
    __slots__ = ("defaults", "caches", "cache", "last")

    def __init__(self):
        self.defaults = {}
        self.caches = {(): {}}
        self.cache = self.caches[()]
        self.last = None


def _state() -> _State:
    try:
        return _tls.state
    except AttributeError:
        st = _tls.state = _State()
        return st


def _create(st: _State, key: tuple) -> Handle:
    cfg = dict(st.defaults)
    for name, value in zip(_config.KEYS, key):
        if value is not None:
            cfg[name] = value
    h = Handle(**cfg)
    if len(st.cache) >= _MAX_CACHED:
        st.cache.clear()
    st.cache[key] = h
    return h


def _handle(key: tuple) -> Handle:
    try:
        st = _tls.state
    except AttributeError:
        st = _state()
    h = st.cache.get(key)
    if h is None:
        h = _create(st, key)
    st.last = h
    return h


def dot(x, y, *, mode=None, splits=None, fast=None, summation=None, format=None, threads=None,
        backend=None, device=None, crt_scaling=None, workspace_limit=None, parallel_threshold=None) -> float:
    """``x . y`` of two 1-D float64 vectors of one length, as a float.

    Any strides: negative and zero strides (broadcasts) are passed as BLAS increments.  With
    ``mode="cr"`` the result is the exact dot product rounded once; the other keywords are the
    configuration (see the module docstring and ``Handle``).
    """
    return _handle((mode, splits, fast, summation, format, threads, backend, device, crt_scaling,
                    workspace_limit, parallel_threshold)).dot(x, y)


def gemv(A, x, alpha=1.0, beta=0.0, out=None, *, mode=None, splits=None, fast=None, summation=None,
         format=None, threads=None, backend=None, device=None, crt_scaling=None, workspace_limit=None,
         parallel_threshold=None):
    """``out = alpha * A @ x + beta * out`` for an m x n matrix A and a vector x of length n.

    A C-ordered A goes to the library as the transpose of its Fortran-ordered storage (no copy);
    ``A.T`` is the transposed product.  ``out`` (length m, writable float64, nonzero stride) is
    required when ``beta != 0`` and is returned; without it a new array is returned.
    """
    return _handle((mode, splits, fast, summation, format, threads, backend, device, crt_scaling,
                    workspace_limit, parallel_threshold)).gemv(A, x, alpha, beta, out)


def gemm(A, B, alpha=1.0, beta=0.0, out=None, *, mode=None, splits=None, fast=None, summation=None,
         format=None, threads=None, backend=None, device=None, crt_scaling=None, workspace_limit=None,
         parallel_threshold=None):
    """``out = alpha * A @ B + beta * out`` for an m x k matrix A and a k x n matrix B.

    Transposes come from the strides (``A.T``, C or Fortran order: no copy).  ``out`` (m x n,
    writable float64, C- or Fortran-ordered rows or columns) is required when ``beta != 0`` and
    is returned; without it a new C-ordered array is returned.
    """
    return _handle((mode, splits, fast, summation, format, threads, backend, device, crt_scaling,
                    workspace_limit, parallel_threshold)).gemm(A, B, alpha, beta, out)


def matmul(A, B, out=None, *, mode=None, splits=None, fast=None, summation=None, format=None,
           threads=None, backend=None, device=None, crt_scaling=None, workspace_limit=None,
           parallel_threshold=None):
    """``A @ B`` with NumPy's rules for 1-D and 2-D operands (gemm, gemv or dot)."""
    return _handle((mode, splits, fast, summation, format, threads, backend, device, crt_scaling,
                    workspace_limit, parallel_threshold)).matmul(A, B, out)


def _clear_default_handles():
    """Drop the current thread's default handles (they are created again at the next call)."""
    st = _state()
    for cache in st.caches.values():
        cache.clear()
    st.last = None


def last_report():
    """The report (``Report``) of the current thread's last module-level call, or None."""
    h = _state().last
    return None if h is None else h.report()


@contextlib.contextmanager
def config(**settings):
    """``with ozblas.config(mode="cr", threads=2): ...``: defaults of the module-level routines
    in the current thread for the block (keywords given to a call still take precedence)."""
    unknown = set(settings) - set(_config.KEYS)
    if unknown:
        raise TypeError(f"config() got unknown settings {sorted(unknown)}; known: {list(_config.KEYS)}")
    st = _state()
    saved = st.defaults, st.cache
    new = dict(st.defaults)
    new.update({k: v for k, v in settings.items() if v is not None})
    st.defaults = new
    st.cache = st.caches.setdefault(tuple(sorted(new.items())), {})
    try:
        yield
    finally:
        st.defaults, st.cache = saved
