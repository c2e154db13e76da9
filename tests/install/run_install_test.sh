#!/usr/bin/env bash
# install_package: cmake --install into a temporary prefix; a separate project built against it
# with find_package(ozblas) (shared and static targets) and with pkg-config (shared and
# static); every program run; the interposer installed and working from the prefix.
#   run_install_test.sh BUILD_DIR CONSUMER_SRC LIBDIR SANITIZED PRELOAD_BUILT
set -euo pipefail
build=$1 src=$2 libdir=$3 san=$4 preload=$5
if [ "$san" = 1 ]; then
  echo "skipped: the sanitized build's libraries need the ASan runtime in every consumer"; exit 77
fi
tmp=$(mktemp -d /tmp/ozblas-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
lib=$prefix/$libdir
for f in include/ozblas.h "$libdir/libozblas.so" "$libdir/libozblas.a" "$libdir/cmake/ozblas/ozblasConfig.cmake" \
         "$libdir/cmake/ozblas/ozblasConfigVersion.cmake" "$libdir/pkgconfig/ozblas.pc"; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
if [ "$preload" = 1 ]; then
  [ -f "$lib/libozblas_preload.so" ] || { echo "FAIL: libozblas_preload.so not installed"; exit 1; }
  [ -f "$lib/ozblas/libblas.so.3" ] || { echo "FAIL: the libblas.so.3 alternative (lib/ozblas/libblas.so.3) not installed"; exit 1; }
  [ -x "$prefix/bin/ozblas-run" ] || { echo "FAIL: ozblas-run not installed"; exit 1; }
fi
echo "installed: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"

echo "== CMake: find_package(ozblas) =="
cmake -S "$src" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/cm" -j2 >/dev/null
"$tmp/cm/consumer_shared"
"$tmp/cm/consumer_static"
# (ldd's output is captured first: with pipefail, grep -q closing the pipe early made ldd
# fail with SIGPIPE now and then, and the check with it)
deps=$(ldd "$tmp/cm/consumer_shared")
grep -q "$lib/libozblas.so" <<<"$deps" || { echo "FAIL: consumer_shared does not use the installed libozblas.so"; exit 1; }

echo "== pkg-config =="
export PKG_CONFIG_PATH=$lib/pkgconfig
pkg-config --exists ozblas
cc=${CC:-cc}
# shellcheck disable=SC2046
$cc -O2 -o "$tmp/pc_shared" "$src/main.c" $(pkg-config --cflags --libs ozblas) -Wl,-rpath,"$lib"
"$tmp/pc_shared"
deps=$(ldd "$tmp/pc_shared")
grep -q "$lib/libozblas.so" <<<"$deps" || { echo "FAIL: pc_shared does not use the installed libozblas.so"; exit 1; }
# static: the archive itself, then everything pkg-config --static lists after -lozblas
# shellcheck disable=SC2046
$cc -O2 -o "$tmp/pc_static" "$src/main.c" $(pkg-config --cflags ozblas) "$lib/libozblas.a" \
    $(pkg-config --static --libs ozblas | sed 's/-lozblas\b//')
"$tmp/pc_static"
deps=$(ldd "$tmp/pc_static")
if grep -q libozblas.so <<<"$deps"; then echo "FAIL: pc_static uses libozblas.so"; exit 1; fi

if [ "$preload" = 1 ]; then
  echo "== the installed interposer =="
  cat > "$tmp/client.c" <<'C'
#include <stdio.h>
double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy);
int main(void)
{
    const double x[3] = { 1e16, 1.0, -1e16 }, y[3] = { 1.0 + 0x1p-52, 1.0, 1.0 };
    const int n = 3, one = 1;
    double r = ddot_(&n, x, &one, y, &one);
    printf("ddot_ = %.17g\n", r);
    return r == 1.0 + 1e16 * 0x1p-52 ? 0 : 1;
}
C
  $cc -O2 -o "$tmp/client" "$tmp/client.c" -lblas
  if "$tmp/client" >/dev/null; then echo "FAIL: the plain BLAS gave the exact answer (the test case is wrong)"; exit 1; fi
  out=$(OZBLAS_PRELOAD_VERBOSE=1 LD_PRELOAD="$lib/libozblas_preload.so" "$tmp/client" 2>&1)
  echo "$out"
  grep -q "ozblas_preload: ddot_ n=3 mode=correctly_rounded format=fp64 -> ozblas" <<<"$out" || { echo "FAIL: not intercepted"; exit 1; }
fi
echo "install_package: all passed"
