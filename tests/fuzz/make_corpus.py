#!/usr/bin/env python3
"""Writes the seed corpus tests/fuzz/corpus/ for fuzz_ozblas.c (deterministic).

Each input is the decoder's header (see LLVMFuzzerTestOneInput) and a routine part; the
values of the inputs then come from the generator that the bytes seed.  Header:
 routine, mode, split, flags (fast|sum<<1|scaling<<2|engine<<3|engine2<<5), threads/workspace,
 exponent base (int8 * 8), exponent spread, special-value density, NULL-pointer byte."""
import os, sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
os.makedirs(out, exist_ok=True)
files = {}

def hdr(routine, mode, split=3, fast=0, summ=1, scaling=0, engine=0, engine2=0, tw=0, ebase=0,
        espread=10, special=0, null=0):
    return bytes([routine, mode, split, fast | summ << 1 | scaling << 2 | engine << 3 | engine2 << 5,
                  tw, ebase & 0xff, espread, special, null])

MODES = {"double": 0, "cr": 1, "fixed": 2}
ENG = {"fp64": 0, "fp16": 1, "int8": 2, "crt": 3}

for mname, mode in MODES.items():
    for ename, eng in ENG.items():
        e2 = (eng + 1) % 4
        # ddot n=17 incx=1 incy=-1; dgemv T 9x13 lda+2; dgemm N,T 7x5x11
        files[f"ddot-{mname}-{ename}"] = hdr(0, mode, engine=eng, engine2=e2, tw=2) + bytes([17, 0, 4])
        files[f"dgemv-{mname}-{ename}"] = hdr(1, mode, engine=eng, engine2=e2, fast=1, tw=5) + \
            bytes([130, 9, 9, 13, 200, 0, 6, 3 + 16 * 5, 9, 8 + 16 * 3])
        files[f"dgemm-{mname}-{ename}"] = hdr(2, mode, engine=eng, engine2=e2, summ=0, tw=3) + \
            bytes([0, 130, 7, 7, 5, 11, 0, 0, 170, 8, 9])

# special values, wide exponent spread, subnormals, near overflow
files["ddot-cr-specials"] = hdr(0, 1, special=240) + bytes([30, 30, 0, 0])
files["dgemv-double-specials"] = hdr(1, 0, special=230) + bytes([0, 5, 12, 12, 0, 0, 0, 8, 8])
files["dgemm-fixed-specials"] = hdr(2, 2, split=4, special=250, engine=3) + bytes([130, 0, 6, 6, 6, 9, 0, 0, 0, 8, 8])
files["dgemm-cr-subnormal"] = hdr(2, 1, ebase=-128, espread=40) + bytes([0, 0, 9, 9, 9, 9, 0, 0, 0, 3, 8])
files["dgemm-cr-overflow"] = hdr(2, 1, ebase=126, espread=8) + bytes([0, 0, 9, 9, 9, 9, 0, 0, 0, 3, 8])
files["dgemm-double-overflow"] = hdr(2, 0, ebase=126, espread=8) + bytes([0, 0, 9, 9, 9, 9, 0, 0, 0, 3, 8])
files["ddot-cr-spread"] = hdr(0, 1, ebase=0, espread=224 + 7) + bytes([40, 1, 0])
files["dgemv-cr-spread"] = hdr(1, 1, espread=224 + 7, engine=1) + bytes([0, 30, 20, 20, 0, 0, 8, 8])
# long inner dimensions (k-blocking), threaded sizes
files["ddot-double-long"] = hdr(0, 0, tw=1) + bytes([240, 0x10, 0x0f, 0, 0])
files["dgemv-fixed-long"] = hdr(1, 2, split=5, engine=2, tw=7) + bytes([130, 245, 0x80, 0x0c, 2, 0, 0, 0, 8, 8])
files["dgemm-cr-long"] = hdr(2, 1, engine=3) + bytes([0, 0, 240, 3, 4, 0x00, 0x0b, 0, 0, 0, 8, 8])
files["dgemm-double-threads"] = hdr(2, 0, tw=9) + bytes([0, 0, 230, 10, 10, 20, 0, 0, 0, 8, 8])
files["dgemm-fixed-crt-threads"] = hdr(2, 2, split=8, engine=3, scaling=1, tw=3) + bytes([0, 130, 230, 5, 5, 5, 0, 0, 0, 8, 8])
# invalid arguments and NULL pointers
files["dgemm-invalid-ld"] = hdr(2, 0) + bytes([0, 0, 9, 9, 9, 250, 0, 0, 8, 8])
files["dgemm-negative-k"] = hdr(2, 1) + bytes([0, 0, 9, 9, 252, 0, 0, 0, 8, 8])
files["dgemm-invalid-trans"] = hdr(2, 2) + bytes([250, 0, 9, 9, 9, 0, 0, 0, 8, 8])
files["dgemv-zero-incx"] = hdr(1, 0) + bytes([0, 9, 9, 9, 0, 10, 0, 8, 8])
files["dgemv-null-y"] = hdr(1, 1, null=244) + bytes([0, 9, 9, 9, 0, 0, 0, 8, 8])
files["ddot-null-x"] = hdr(0, 0, null=241) + bytes([9, 0, 0])
files["dgemv-alpha0-null-a"] = hdr(1, 0, null=241) + bytes([0, 9, 9, 9, 0, 0, 0, 0, 8])
files["setters"] = hdr(0, 0, tw=252) + bytes([1, 5, 0, 0])

for name, data in files.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(files)} inputs in {out}")
