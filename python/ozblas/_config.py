"""Names of the settings and the report of the last call (the C library's enums, as strings)."""
from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

from ._ozblas import InvalidValueError

MODES = {"double": 0, "cr": 1, "correctly_rounded": 1, "fixed": 2}
FORMATS = {"fp64": 0, "fp16": 1, "int8": 2, "crt": 3, "crt_int8": 3}
SUMMATIONS = {"double": 0, "nearsum": 1}
CRT_SCALINGS = {"fast": 0, "accurate": 1}
BACKENDS = {"cpu": 0, "cuda": 1}

MODE_NAMES = {0: "double", 1: "cr", 2: "fixed"}
FORMAT_NAMES = {0: "fp64", 1: "fp16", 2: "int8", 3: "crt"}
SUMMATION_NAMES = {0: "double", 1: "nearsum"}
ROUTE_NAMES = {0: "slices", 1: "fused", 2: "error-free", 3: "deep error-free"}

# every configuration keyword, in the order of the module-level functions' cache keys
KEYS = ("mode", "splits", "fast", "summation", "format", "threads", "backend", "device",
        "crt_scaling", "workspace_limit", "parallel_threshold")


def code(table: dict, name: str, value) -> int:
    """The library's code of a setting given by name (InvalidValueError, a ValueError, if unknown)."""
    try:
        return table[value.lower() if isinstance(value, str) else value]
    except (KeyError, AttributeError, TypeError):
        choices = ", ".join(repr(k) for k in table)
        raise InvalidValueError(f"{name}={value!r}: must be one of {choices}") from None


def integer(name: str, value, low: int) -> int:
    """An integer setting (bool and float refused), >= low."""
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            import operator
            value = operator.index(value)
        except TypeError:
            raise TypeError(f"{name} must be an integer, got {type(value).__name__}") from None
    if value < low:
        raise InvalidValueError(f"{name}={value}: must be >= {low}")
    return int(value)


@dataclasses.dataclass(frozen=True)
class Report:
    """What the last routine called on a handle did (the C library's ozblas_info_t).

    slices_a, slices_b: the largest number of slices of op(A) and op(B) (DOT: x and y; GEMV:
    A and x); split_count and fast_mode: FIXED mode's d and whether fast mode skipped pairs;
    mode, summation, format: the configuration used; bits_per_slice: digit bits of the slice
    format; gemm_calls, slice_products, gemm_flops: the BLAS GEMMs that multiplied slices;
    blocks and block: tiles processed and their (m, n, k) sizes; exact_fallbacks: elements
    a method left to a slower exact one (the long accumulator, the correctly rounded
    completion); lazy_fixups: CORRECTLY_ROUNDED elements that needed the
    small slice pairs too; seconds_split, seconds_multiply, seconds_sum, seconds_total: the time
    split (0 for calls too small to pay for the clock reads); route: what computed a DOT/GEMV
    ("slices": the GEMM pipeline, "fused": the fused split-and-accumulate kernel,
    "error-free": certified error-free dot products, "deep error-free": their two-level form);
    bytes_to_device, bytes_to_host, host_staged: on CUDA handles, the bytes the call copied
    between host and device and whether its operands went through the host (0 on the CPU).
    """

    slices_a: int
    slices_b: int
    split_count: int
    fast_mode: bool
    mode: str
    summation: str
    format: str
    bits_per_slice: int
    gemm_calls: int
    slice_products: int
    gemm_flops: float
    blocks: int
    block: Tuple[int, int, int]
    exact_fallbacks: int
    lazy_fixups: int
    seconds_split: float
    seconds_multiply: float
    seconds_sum: float
    seconds_total: float
    route: str
    bytes_to_device: int = 0
    bytes_to_host: int = 0
    host_staged: bool = False

    @classmethod
    def from_info(cls, t: tuple) -> "Report":
        (sa, sb, d, fast, mode, summ, fmt, bits, gc, sp, gf, blocks, bm, bn, bk, ef, lf,
         ts, tm, tsum, tt, fused, b2d, b2h, staged) = t
        return cls(sa, sb, d, bool(fast), MODE_NAMES.get(mode, str(mode)), SUMMATION_NAMES.get(summ, str(summ)),
                   FORMAT_NAMES.get(fmt, str(fmt)), bits, gc, sp, gf, blocks, (bm, bn, bk), ef, lf,
                   ts, tm, tsum, tt, ROUTE_NAMES.get(fused, str(fused)), b2d, b2h, bool(staged))


@dataclasses.dataclass(frozen=True)
class Config:
    """A handle's configuration (None: the library's default for that setting)."""

    mode: str = "double"
    splits: Optional[int] = None
    fast: Optional[bool] = None
    summation: Optional[str] = None
    format: str = "fp64"
    threads: Optional[int] = None
    backend: str = "cpu"
    device: int = 0
    crt_scaling: Optional[str] = None
    workspace_limit: Optional[int] = None
    parallel_threshold: Optional[int] = None
