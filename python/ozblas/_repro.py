"""check_reproducible: run a function under several thread counts and backends, compare the bits."""
from __future__ import annotations

import dataclasses
import itertools
import struct
from typing import Any, List, Optional, Tuple

import numpy as np

from ._ozblas import NotSupportedError


@dataclasses.dataclass(frozen=True)
class Difference:
    """Where the results of two settings first differ.

    ``path`` locates the array inside a result made of tuples, lists or dicts (empty for a
    single array or number); ``index`` is the first differing element in C order (None for
    numbers and for mismatched shapes or types); ``expected`` and ``got`` are the reference
    setting's and this setting's values there."""

    setting: dict
    reference: dict
    path: tuple
    index: Optional[tuple]
    expected: Any
    got: Any
    message: str

    def __str__(self):
        return self.message


@dataclasses.dataclass(frozen=True)
class ReproducibilityReport:
    """The outcome of check_reproducible; true (``bool(report)``) when every setting that ran
    gave the reference's bits."""

    reproducible: bool
    settings: List[dict]                 # the settings that ran, the reference first
    skipped: List[Tuple[dict, str]]      # settings that could not run, and why
    differences: List[Difference]        # one per setting that differed from the reference

    @property
    def first_difference(self) -> Optional[Difference]:
        return self.differences[0] if self.differences else None

    def __bool__(self):
        return self.reproducible

    def __str__(self):
        def fmt(s):
            return " ".join(f"{k}={v}" for k, v in s.items())
        if not self.settings:
            lines = ["nothing ran"]
        elif self.reproducible:
            lines = [f"bitwise reproducible: {len(self.settings)} settings gave the same bits ("
                     + "; ".join(fmt(s) for s in self.settings) + ")"]
        else:
            lines = [f"NOT reproducible: {len(self.differences)} of {len(self.settings) - 1} settings differ "
                     f"from the reference ({fmt(self.settings[0])})"]
            lines += ["  " + d.message for d in self.differences]
        why_settings = {}
        for s, why in self.skipped:
            why_settings.setdefault(why, []).append(fmt(s))
        lines += [f"  skipped {'; '.join(ss)}: {why}" for why, ss in why_settings.items()]
        return "\n".join(lines)


def _to_host(r):
    if isinstance(r, (tuple, list)):
        return type(r)(_to_host(v) for v in r)
    if isinstance(r, dict):
        return {k: _to_host(v) for k, v in r.items()}
    if hasattr(r, "__cuda_array_interface__") and hasattr(r, "get"):
        return r.get()
    return r


def _bits(v: float) -> str:
    return struct.pack("<d", v).hex()


def _describe(x) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{float(x)!r} ({float(x).hex()})"
    return repr(x)


def _first_difference(a, b, path=()):
    """(path, index, expected, got, what) of the first bitwise difference, or None."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b):
            return path, None, len(a), len(b), "lengths differ"
        for i, (u, v) in enumerate(zip(a, b)):
            d = _first_difference(u, v, path + (i,))
            if d:
                return d
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return path, None, sorted(a), sorted(b), "keys differ"
        for k in a:
            d = _first_difference(a[k], b[k], path + (k,))
            if d:
                return d
        return None
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return path, None, type(a).__name__, type(b).__name__, "types differ"
        if a.shape != b.shape or a.dtype != b.dtype:
            return path, None, (a.shape, str(a.dtype)), (b.shape, str(b.dtype)), "shapes or dtypes differ"
        if a.size == 0:
            return None
        ua = np.ascontiguousarray(a).view(np.uint8).reshape(a.size, -1)
        ub = np.ascontiguousarray(b).view(np.uint8).reshape(b.size, -1)
        ne = np.flatnonzero((ua != ub).any(axis=1))
        if ne.size == 0:
            return None
        idx = tuple(int(i) for i in np.unravel_index(int(ne[0]), a.shape))
        return path, idx, a[idx], b[idx], f"{int(ne.size)} of {a.size} elements differ"
    if isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating)):
        return None if _bits(float(a)) == _bits(float(b)) else (path, None, a, b, "values differ")
    if type(a) is not type(b) or a != b:
        return path, None, a, b, "values differ"
    return None


def _copy_arg(a):
    if isinstance(a, np.ndarray) or (hasattr(a, "__cuda_array_interface__") and hasattr(a, "copy")):
        return a.copy()
    return a


def check_reproducible(fn, *args, threads=(1, 2, 4), backends=("cpu", "cuda"), formats=None,
                       **kwargs) -> ReproducibilityReport:
    """Run ``fn(*args, **kwargs)`` under every combination of ``threads``, ``backends`` (and
    ``formats``, when given) and report whether all results are bitwise equal.

    ``fn`` should call the module-level routines (``ozblas.dot``, ``gemv``, ``gemm``,
    ``matmul``): each run sets their defaults with ``ozblas.config(threads=..., backend=...)``
    (keywords ``fn`` passes itself take precedence).  NumPy array arguments are copied for every
    run (CuPy arrays too), so ``fn`` may write into them.  Results may be numbers, NumPy (or CuPy) arrays, or
    tuples, lists and dicts of them; they are compared bit for bit (NaN payloads and the sign
    of zero included).  A setting that cannot run here (a CUDA backend without a GPU or without
    CuPy, a format this build lacks) is listed in ``skipped`` with the reason, not failed.

    Returns a ``ReproducibilityReport``: true when reproducible; ``differences`` gives, for each
    setting that differs from the first, the first differing element.
    """
    from . import config  # the package's context manager (no import cycle at load time)

    axes = [("backend", tuple(backends)), ("threads", tuple(threads))]
    if formats is not None:
        axes.append(("format", tuple(formats)))
    combos = [dict(zip([a for a, _ in axes], vals)) for vals in itertools.product(*[v for _, v in axes])]
    ran, skipped, diffs = [], [], []
    ref = None
    for s in combos:
        try:
            with config(**s):
                r = fn(*[_copy_arg(a) for a in args], **kwargs)
        except NotSupportedError as e:
            skipped.append((s, str(e)))
            continue
        r = _to_host(r)
        ran.append(s)
        if len(ran) == 1:
            ref = r
            continue
        d = _first_difference(ref, r)
        if d:
            path, idx, exp, got, what = d
            where = "".join(f"[{p!r}]" for p in path) + (f" at index {idx}" if idx is not None else "")
            msg = (f"{' '.join(f'{k}={v}' for k, v in s.items())}: {what}{where}: "
                   f"{_describe(got)} where the reference gave {_describe(exp)}")
            diffs.append(Difference(s, ran[0], path, idx, exp, got, msg))
    return ReproducibilityReport(not diffs and bool(ran), ran, skipped, diffs)
