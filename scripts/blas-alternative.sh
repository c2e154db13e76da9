#!/usr/bin/env bash
# Registers ozblas as the system's libblas.so.3 (Debian's update-alternatives, as OpenBLAS and
# BLIS do), and Debian's reference LAPACK as liblapack.so.3, so that every program linked
# against libblas.so.3 / liblapack.so.3 (NumPy, SciPy, R, Fortran) gets its double BLAS from
# ozblas with no preload and no launcher; `remove` undoes both.  Needs root.
#   scripts/blas-alternative.sh install [LIBDIR]   LIBDIR: where `cmake --install` put ozblas
#                                                  (default /usr/local/lib); priority 10, so
#                                                  OpenBLAS (100) stays the automatic choice:
#                                                  the script selects ozblas explicitly
#   scripts/blas-alternative.sh remove [LIBDIR]    back to the automatic choice
# The mode and the other settings are the interposer's OZBLAS_PRELOAD_* variables.
set -euo pipefail
action=${1:-}
libdir=${2:-/usr/local/lib}
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
ours="$libdir/ozblas/libblas.so.3"
ref_lapack="/usr/lib/$arch/lapack/liblapack.so.3"
case "$action" in
  install)
    [ -f "$ours" ] || { echo "no $ours (cmake --install with OZBLAS_BLAS_ALTERNATIVE=ON)" >&2; exit 1; }
    [ -f "$ref_lapack" ] || { echo "no reference LAPACK at $ref_lapack (apt-get install liblapack3)" >&2; exit 1; }
    update-alternatives --install "/usr/lib/$arch/libblas.so.3" "libblas.so.3-$arch" "$ours" 10
    update-alternatives --set "libblas.so.3-$arch" "$ours"
    update-alternatives --set "liblapack.so.3-$arch" "$ref_lapack"
    echo "libblas.so.3 -> ozblas, liblapack.so.3 -> the reference LAPACK";;
  remove)
    update-alternatives --remove "libblas.so.3-$arch" "$ours" || true
    update-alternatives --auto "libblas.so.3-$arch"
    update-alternatives --auto "liblapack.so.3-$arch"
    echo "libblas.so.3 and liblapack.so.3 back to their automatic choice";;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2;;
esac
