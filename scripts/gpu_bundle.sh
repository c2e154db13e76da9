#!/usr/bin/env bash
# Builds ozblas with the CUDA backend here and packs what the lent GPU machine needs to run
# the test suite and ozblas-bench there: that machine has CUDA and cuBLAS but none of the
# Debian libraries (OpenBLAS, oneDNN, MPFR, GMP, Check) and cannot fetch them.  The bundle also
# carries the GEMMul8 peer (gpu_validate.sh's peer phase): GEMMul8's source at commit 71296f9
# and the harness of ../shared/peers/gemmul8, and with GPU_BUNDLE_GEMMUL8=1 the harness built
# here for sm_90, since the GPU machine has no network (scripts/gpu_peer.sh does this part).
#   bash scripts/gpu_bundle.sh        -> gpu-bundle.tar.xz (carry it with the device tool)
#   then on the GPU machine: bash scripts/gpu_validate.sh [PHASE...]
# Environment:
#   GEMMUL8_SRC=PATH      GEMMul8's source (default ../shared/peers/gemmul8/src): a git clone or
#                         bare mirror of https://github.com/RIKEN-RCCS/GEMMul8 holding commit
#                         71296f9, a tree exported from it (GEMMul8/Makefile inside) or a .tar,
#                         .tar.gz or .tar.xz of one; absent, the bundle stops before building
#   GEMMUL8_PEER=DIR      the harness (default ../shared/peers/gemmul8: bench_gemmul8.cu, build.sh)
#   GPU_BUNDLE_GEMMUL8=1  build GEMMul8 and the harness here with nvcc (CUDA_PATH, default
#                         /usr/local/cuda): about 10 minutes of one core (GEMMul8's library is one
#                         translation unit), kept in build-gemmul8/ and reused while the commit,
#                         the harness and nvcc are unchanged.  Without it the GPU machine builds
#                         it (gpu_validate.sh peer-build: the same 10 minutes, a device-tool
#                         command of its own, out of the session's device time)
#   GPU_BUNDLE_PEER=0     leave the peer out (the peer phase then times ozblas and cuBLAS only)
# The device tool carries at most 64 MiB: the size is printed last.
set -euo pipefail
cd "$(dirname "$0")/.."
peer=${GPU_BUNDLE_PEER:-1}
[ "$peer" = 1 ] && bash scripts/gpu_peer.sh check     # a missing GEMMul8 source stops here, before the build
bash scripts/deps.sh
command -v xz >/dev/null || { echo "gpu_bundle: needs xz (apt-get install xz-utils)"; exit 1; }
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DOZBLAS_WERROR=ON >/dev/null
cmake --build build-gpu -j"$(nproc)"
grep -q "OZBLAS_HAVE_CUDA:INTERNAL=ON\|ozblas: CUDA backend" build-gpu/CMakeCache.txt 2>/dev/null || true
rm -rf gpu-bundle && mkdir -p gpu-bundle/bin gpu-bundle/lib
bins="build-gpu/bench/ozblas-bench build-gpu/bench/ozblas-blas3-cuda"
for t in build-gpu/tests/test_*; do [ -x "$t" ] && [ -f "$t" ] && bins="$bins $t"; done
cp $bins gpu-bundle/bin/
cp -P build-gpu/libozblas.so* gpu-bundle/lib/
# every shared library the binaries use, except the C library itself and the CUDA/driver ones
for b in $bins build-gpu/libozblas.so; do
  ldd "$b" | awk '/=> \// {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so|libcuda\.so|libcublas' | while read -r lib; do
  cp -L "$lib" gpu-bundle/lib/
done
[ "$peer" = 1 ] && bash scripts/gpu_peer.sh bundle gpu-bundle/peer/gemmul8
{ echo "ozblas: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src kernels include bench CMakeLists.txt 2>/dev/null || echo ' + uncommitted changes')"
  echo "built: $(date -u +%FT%TZ) on $(uname -m), $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | tail -1)"
  if [ "$peer" = 1 ]; then
    echo "gemmul8: $(head -1 gpu-bundle/peer/gemmul8/src/COMMIT)$([ -x gpu-bundle/peer/gemmul8/bin/gemmul8_bench ] && echo ', harness built' || echo ', harness to be built (gpu_validate.sh peer-build)')"
  else
    echo "gemmul8: not bundled (GPU_BUNDLE_PEER=0)"
  fi
} > gpu-bundle/BUILD_INFO
tar -cJf gpu-bundle.tar.xz gpu-bundle
echo "gpu_bundle: $(du -h gpu-bundle.tar.xz | cut -f1) in gpu-bundle.tar.xz ($(ls gpu-bundle/bin | wc -l) programs; $(tail -1 gpu-bundle/BUILD_INFO))"
