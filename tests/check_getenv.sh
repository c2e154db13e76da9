#!/usr/bin/env bash
# No library source but src/core/knobs.c calls getenv (the interposer's own configuration,
# src/preload, excepted): every knob is in the one list, read once per handle.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=$(grep -rln --include='*.c' --include='*.h' --include='*.cu' --include='*.inc' 'getenv *(' src kernels |
      grep -v -e '^src/core/knobs\.c$' -e '^src/preload/' || true)
if [ -n "$bad" ]; then echo "FAIL: getenv outside src/core/knobs.c: $bad"; echo "0 passed, 1 failed"; exit 1; fi
echo "getenv only in src/core/knobs.c"
echo "1 passed, 0 failed"
