#!/usr/bin/env bash
# Builds ozblas with the CUDA backend here and packs what the lent GPU machine needs to run
# the test suite and ozblas-bench there: that machine has CUDA and cuBLAS but none of the
# Debian libraries (OpenBLAS, oneDNN, MPFR, GMP, Check) and cannot fetch them.
#   bash scripts/gpu_bundle.sh        -> gpu-bundle.tar.xz (carry it with the device tool)
#   then on the GPU machine: bash scripts/gpu_validate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
command -v xz >/dev/null || { echo "gpu_bundle: needs xz (apt-get install xz-utils)"; exit 1; }
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DOZBLAS_WERROR=ON >/dev/null
cmake --build build-gpu -j"$(nproc)"
grep -q "OZBLAS_HAVE_CUDA:INTERNAL=ON\|ozblas: CUDA backend" build-gpu/CMakeCache.txt 2>/dev/null || true
rm -rf gpu-bundle && mkdir -p gpu-bundle/bin gpu-bundle/lib
bins="build-gpu/bench/ozblas-bench"
for t in build-gpu/tests/test_*; do [ -x "$t" ] && [ -f "$t" ] && bins="$bins $t"; done
cp $bins gpu-bundle/bin/
cp -P build-gpu/libozblas.so* gpu-bundle/lib/
# every shared library the binaries use, except the C library itself and the CUDA/driver ones
for b in $bins build-gpu/libozblas.so; do
  ldd "$b" | awk '/=> \// {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so|libcuda\.so|libcublas' | while read -r lib; do
  cp -L "$lib" gpu-bundle/lib/
done
tar -cJf gpu-bundle.tar.xz gpu-bundle
echo "gpu_bundle: $(du -h gpu-bundle.tar.xz | cut -f1) in gpu-bundle.tar.xz ($(ls gpu-bundle/bin | wc -l) programs)"
