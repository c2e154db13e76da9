#!/usr/bin/env bash
# libozblas.so exports ozblas_* and nothing else (cmake/ozblas.map): the public API and
# libozblas_mpi's internal interface (src/eft/ozblas_parts.h).  The linker's own symbols of a
# shared object (_init, _fini, _edata, _end, __bss_start), where a toolchain exports them, pass.
#   scripts/check_exports.sh LIB.so                 check LIB.so (ctest check_exports)
#   scripts/check_exports.sh --self-test CC MAP     plant an exported ozb_planted_leak in a small
#                                                   shared object: the check must fail on it, and
#                                                   pass once MAP hides it (ctest check_exports_plant)
set -euo pipefail

check() {   # LIB: 0 when it exports ozblas_* alone; the others listed
    local lib=$1 bad
    [ -f "$lib" ] || { echo "check_exports: no $lib"; return 2; }
    bad=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' |
          grep -Ev '^(ozblas_.*|_init|_fini|_edata|_end|__bss_start)$' || true)
    if [ -n "$bad" ]; then
        echo "check_exports: $lib exports $(echo "$bad" | wc -l) symbol(s) beyond ozblas_* (cmake/ozblas.map):"
        echo "$bad" | sed 's/^/  /' | head -50
        return 1
    fi
    echo "check_exports: $lib exports $(nm -D --defined-only "$lib" | grep -c ' ozblas_') ozblas_* symbols and nothing else"
}

if [ "${1:-}" = --self-test ]; then
    cc=${2:?usage: check_exports.sh --self-test CC MAP}; map=${3:?usage: check_exports.sh --self-test CC MAP}
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    cat > "$tmp/planted.c" <<'EOF'
int ozb_planted_leak(int x);
int ozb_planted_leak(int x) { return x + 1; }
int ozblas_planted_api(int x);
int ozblas_planted_api(int x) { return ozb_planted_leak(x); }
EOF
    "$cc" -shared -fPIC -o "$tmp/leaky.so" "$tmp/planted.c"
    "$cc" -shared -fPIC -o "$tmp/mapped.so" "$tmp/planted.c" "-Wl,--version-script=$map"
    if out=$(check "$tmp/leaky.so"); then
        echo "self-test: the planted export ozb_planted_leak passed the check:"; echo "$out"; exit 1
    fi
    echo "$out" | grep -qx '  ozb_planted_leak' || { echo "self-test: ozb_planted_leak not named:"; echo "$out"; exit 1; }
    echo "self-test: the check fails on the planted export, as it should:"; echo "$out"
    check "$tmp/mapped.so" || { echo "self-test: $map does not hide ozb_planted_leak"; exit 1; }
    echo "self-test: $map hides it"
    exit 0
fi
check "${1:?usage: check_exports.sh LIB.so | --self-test CC MAP}"
