#!/usr/bin/env bash
# GEMMul8 (github.com/RIKEN-RCCS/GEMMul8: FP64 GEMM emulated by Ozaki scheme II on the INT8
# tensor cores) beside ozblas on the GPU.  Used by scripts/gpu_bundle.sh on this machine and by
# scripts/gpu_validate.sh's peer phases on the GPU machine, which has no network: the bundle
# carries GEMMul8's source and, where this machine built it, the harness binary.
# The harness is ../shared/peers/gemmul8/ (bench_gemmul8.cu, build.sh, README.md).
#
#   bash scripts/gpu_peer.sh check            finds GEMMul8's source and the harness (gpu_bundle.sh
#                                             runs it before building ozblas: a missing source
#                                             stops the bundle at once)
#   bash scripts/gpu_peer.sh bundle DIR       GEMMul8's library source at commit 71296f9 into
#                                             DIR/src, the harness into DIR; with
#                                             GPU_BUNDLE_GEMMUL8=1 also DIR/bin/gemmul8_bench
#   bash scripts/gpu_peer.sh build DIR        compiles DIR/src's library and DIR/bench_gemmul8.cu
#                                             into DIR/bin (nvcc, sm_90, no git, no network):
#                                             GEMMul8's library is one translation unit, about
#                                             10 minutes of one core wherever it is built
#   bash scripts/gpu_peer.sh table LOGDIR MD TXT
#                                             the three-way table (ozblas, GEMMul8, cuBLAS DGEMM)
#                                             from the peer phase's logs, as markdown and as text
#
# Environment:
#   GEMMUL8_PEER   the harness folder (default ../shared/peers/gemmul8, from the repository root)
#   GEMMUL8_SRC    GEMMul8's source (default $GEMMUL8_PEER/src), one of: a git clone or bare
#                  mirror of https://github.com/RIKEN-RCCS/GEMMul8 that holds commit 71296f9
#                  (exported at that commit); a tree exported from it (GEMMul8/Makefile inside;
#                  a previous bundle's peer/gemmul8/src is one); a .tar, .tar.gz or .tar.xz of
#                  such a tree (GitHub's archive of the commit is one)
#   GPU_BUNDLE_GEMMUL8=1  'bundle' builds the harness here as well (needs nvcc; CUDA_PATH,
#                  default /usr/local/cuda); the build is kept in build-gemmul8/ and reused while
#                  the commit, the harness and nvcc are unchanged
#   PEER_SIZES PEER_PHIS PEER_MODES   what 'table' lays out (gpu_validate.sh sets them)
set -uo pipefail
cd "$(dirname "$0")/.."
COMMIT=71296f9
PEER=${GEMMUL8_PEER:-../shared/peers/gemmul8}
SRC=${GEMMUL8_SRC:-$PEER/src}
die() { echo "gpu_peer: $*" >&2; exit 1; }

no_source() {
  die "GEMMul8's source is not at '$SRC'${1:+ ($1)}.
  The GPU machine has no network, so the bundle carries GEMMul8's source.  Set GEMMUL8_SRC to
  a git clone (or bare mirror) of https://github.com/RIKEN-RCCS/GEMMul8 holding commit $COMMIT,
  to a tree exported from it (GEMMul8/Makefile inside), or to a .tar[.gz|.xz] of one;
  or bundle ozblas alone with GPU_BUNDLE_PEER=0 (gpu_validate.sh's peer phase then times
  ozblas and cuBLAS only)."
}

# how SRC holds the source: 'git', 'tree DIR' or 'tar'; dies where it holds none
src_kind() {
  [ -e "$SRC" ] || no_source "no such file or folder"
  if [ -d "$SRC" ] && git -C "$SRC" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then echo git; return; fi
  if [ -f "$SRC/GEMMul8/Makefile" ] && [ -f "$SRC/GEMMul8/src/gemmul8.cu" ]; then echo "tree $SRC"; return; fi
  if [ -f "$SRC/Makefile" ] && [ -f "$SRC/src/gemmul8.cu" ]; then echo "tree $SRC/.."; return; fi
  case $SRC in *.tar|*.tar.gz|*.tgz|*.tar.xz) [ -f "$SRC" ] && { echo tar; return; } ;; esac
  if [ -d "$SRC" ] && git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
    no_source "a git repository without commit $COMMIT: fetch it there first"
  fi
  no_source "neither a git repository with commit $COMMIT nor a tree with GEMMul8/Makefile"
}

check() {
  [ -f "$PEER/bench_gemmul8.cu" ] || die "no harness at $PEER/bench_gemmul8.cu (set GEMMUL8_PEER)"
  local kind; kind=$(src_kind) || exit 1
  if [ "${GPU_BUNDLE_GEMMUL8:-0}" = 1 ]; then
    nvcc_path >/dev/null || die "GPU_BUNDLE_GEMMUL8=1 needs nvcc (CUDA_PATH=${CUDA_PATH:-/usr/local/cuda})"
    command -v make >/dev/null && command -v g++ >/dev/null || die "GPU_BUNDLE_GEMMUL8=1 needs make and g++"
  fi
  echo "gpu_peer: GEMMul8 source: $SRC ($kind), harness: $PEER"
}

nvcc_path() {
  local c=${CUDA_PATH:-/usr/local/cuda}
  if [ -x "$c/bin/nvcc" ]; then echo "$c/bin/nvcc"; else command -v nvcc; fi
}

# GEMMul8's library source (Makefile, include/, src/), LICENSE and COMMIT into DEST
export_src() {
  local dest=$1 kind tmp top
  kind=$(src_kind) || exit 1
  rm -rf "$dest" && mkdir -p "$dest"
  case $kind in
  git)
    git -C "$SRC" archive "$COMMIT" GEMMul8/Makefile GEMMul8/include GEMMul8/src LICENSE | tar -x -C "$dest" \
      || die "git archive $COMMIT from $SRC failed"
    echo "$COMMIT" > "$dest/COMMIT" ;;
  tree*)
    top=${kind#tree }
    mkdir -p "$dest/GEMMul8"
    cp -r "$top/GEMMul8/Makefile" "$top/GEMMul8/include" "$top/GEMMul8/src" "$dest/GEMMul8/"
    [ -f "$top/LICENSE" ] && cp "$top/LICENSE" "$dest/"
    if [ -f "$top/COMMIT" ]; then cp "$top/COMMIT" "$dest/"; else echo "unknown (tree from $SRC)" > "$dest/COMMIT"; fi ;;
  tar)
    tmp=$(mktemp -d)
    tar -xf "$SRC" -C "$tmp" || die "cannot unpack $SRC"
    top=$(find "$tmp" -maxdepth 3 -path '*/GEMMul8/Makefile' | head -1)
    [ -n "$top" ] || { rm -rf "$tmp"; no_source "the archive holds no GEMMul8/Makefile"; }
    top=$(dirname "$(dirname "$top")")
    mkdir -p "$dest/GEMMul8"
    cp -r "$top/GEMMul8/Makefile" "$top/GEMMul8/include" "$top/GEMMul8/src" "$dest/GEMMul8/"
    [ -f "$top/LICENSE" ] && cp "$top/LICENSE" "$dest/"
    if [ -f "$top/COMMIT" ]; then cp "$top/COMMIT" "$dest/"; else echo "unknown (archive $(basename "$SRC"))" > "$dest/COMMIT"; fi
    rm -rf "$tmp" ;;
  esac
}

# the commands of ../shared/peers/gemmul8/build.sh, from an exported tree (DIR/src) instead of
# a git repository: GEMMul8's static library for sm_90, the harness linked with it and cuBLAS
build() {
  local dir=$1 nvcc cuda tmp commit
  [ -f "$dir/src/GEMMul8/Makefile" ] || die "no GEMMul8 source in $dir/src"
  [ -f "$dir/bench_gemmul8.cu" ] || die "no harness $dir/bench_gemmul8.cu"
  nvcc=$(nvcc_path) || die "no nvcc (CUDA_PATH=${CUDA_PATH:-/usr/local/cuda})"
  cuda=$(dirname "$(dirname "$nvcc")")
  commit=$(head -1 "$dir/src/COMMIT" 2>/dev/null || echo unknown)
  tmp=$(mktemp -d)
  cp -r "$dir/src/GEMMul8" "$tmp/"
  local t0=$SECONDS
  ( cd "$tmp/GEMMul8" && make -j"${JOBS:-2}" lib/libgemmul8.a BACKEND=cuda GPU_ARCH=90 GPU_MEM_MB=140000 CUDA_PATH="$cuda" ) \
    || { rm -rf "$tmp"; die "GEMMul8's library did not build"; }
  "$nvcc" -std=c++20 -O3 -gencode arch=compute_90,code=sm_90 -DGEMMUL8_COMMIT="\"${commit%% *}\"" \
      -I"$tmp/GEMMul8/include" -c "$dir/bench_gemmul8.cu" -o "$tmp/bench_gemmul8.o" \
    || { rm -rf "$tmp"; die "the harness did not compile"; }
  mkdir -p "$dir/bin"
  g++ -o "$dir/bin/gemmul8_bench" "$tmp/bench_gemmul8.o" "$tmp/GEMMul8/lib/libgemmul8.a" \
      -L"$cuda/lib64" -lcublasLt -lcublas -lcudart -ldl -lpthread -lrt -Wl,-rpath,/usr/local/cuda/lib64 -Wl,--as-needed \
    || { rm -rf "$tmp"; die "the harness did not link"; }
  strip "$dir/bin/gemmul8_bench" || true
  printf '#!/usr/bin/env bash\nLD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} "$(dirname "$0")/gemmul8_bench" "$@"\n' > "$dir/bin/run.sh"
  chmod +x "$dir/bin/run.sh"
  "$nvcc" --version | tail -1 > "$dir/bin/BUILT_WITH"
  rm -rf "$tmp"
  echo "gpu_peer: built $dir/bin/gemmul8_bench (GEMMul8 $commit, sm_90) in $((SECONDS - t0)) s"
}

bundle() {
  local dir=$1
  check >/dev/null || exit 1
  mkdir -p "$dir"
  export_src "$dir/src"
  cp "$PEER/bench_gemmul8.cu" "$dir/"
  for f in build.sh README.md; do [ -f "$PEER/$f" ] && cp "$PEER/$f" "$dir/"; done
  if [ "${GPU_BUNDLE_GEMMUL8:-0}" = 1 ]; then
    local key cache
    key=$( { cat "$dir/src/COMMIT" "$dir/bench_gemmul8.cu"; "$(nvcc_path)" --version; } | sha256sum | cut -c1-16)
    cache=build-gemmul8/$key
    if [ ! -x "$cache/bin/gemmul8_bench" ]; then
      rm -rf "$cache" && mkdir -p "$cache"
      cp -r "$dir/src" "$dir/bench_gemmul8.cu" "$cache/"
      echo "gpu_peer: building GEMMul8 and its harness here (about 10 minutes of one core)"
      build "$cache" || exit 1
    else
      echo "gpu_peer: the harness built before ($cache) is reused"
    fi
    cp -r "$cache/bin" "$dir/"
  fi
  echo "gpu_peer: $dir: GEMMul8 $(head -1 "$dir/src/COMMIT"), harness$([ -x "$dir/bin/gemmul8_bench" ] && echo ", built for sm_90" || echo " (to be built on the GPU machine: gpu_validate.sh peer-build)")"
}

# ---- the table --------------------------------------------------------------------------
# LOGDIR holds peer-gemmul8.txt (the harness's output) and peer/oz-N-PHI-MODE.txt with
# peer/oz-N-PHI-MODE.status (one ozblas-bench --backend cuda case each, and how it ended)
table() {
  local logs=$1 md=$2 txt=$3 rows
  rows=$(mktemp)
  local g8=$logs/peer-gemmul8.txt sizes phis
  # what was asked for and what the logs hold (an earlier command's phi or size included)
  sizes=$( { printf '%s\n' ${PEER_SIZES:-4096 8192 16384}; ls "$logs/peer" 2>/dev/null | sed -n 's/^oz-\([0-9]*\)-.*\.status$/\1/p'; } | sort -un)
  phis=$( { printf '%s\n' ${PEER_PHIS:-1 0.5 2 4}; [ -f "$g8" ] && echo 1
            ls "$logs/peer" 2>/dev/null | sed -n 's/^oz-[0-9]*-\(.*\)-[a-z]*\.status$/\1/p'; } | sort -gu)
  for n in $sizes; do
    for phi in $phis; do
      local cbline
      cbline=$(for mode in ${PEER_MODES:-double cr}; do awk '$1 == "gemm" && NF >= 11' "$logs/peer/oz-$n-$phi-$mode.txt" 2>/dev/null; done | head -1)
      [ -n "$cbline" ] && echo "$cbline" | awk -v n="$n" -v phi="$phi" 'BEGIN{OFS="\t"} {
        e = ($7 == "nan" || $7 == "-nan") ? "-" : $7 " ulp";
        print n, phi, "cuBLAS DGEMM (ozblas-bench run)", $(NF-1), "1.00", e, ""}' >> "$rows"
      for mode in ${PEER_MODES:-double cr}; do
        local f=$logs/peer/oz-$n-$phi-$mode.txt st line label
        st=$(cat "$logs/peer/oz-$n-$phi-$mode.status" 2>/dev/null || echo "not run")
        line=$(awk '$1 == "gemm" && NF >= 11' "$f" 2>/dev/null | head -1)
        case $mode in double) label="ozblas DOUBLE, CRT_INT8" ;; cr) label="ozblas CORRECTLY_ROUNDED, CRT_INT8" ;; *) label="ozblas $mode" ;; esac
        if [ -n "$line" ]; then
          echo "$line" | awk -v n="$n" -v phi="$phi" -v lab="$label" -v st="$st" 'BEGIN{OFS="\t"} {
            e = ($6 == "nan" || $6 == "-nan") ? "-" : $6 " ulp";
            note = ($8 == "NO") ? "GPU result differs from the CPU handle" : "";
            if (st !~ /^rc=0/) note = note (note ? "; " : "") st;
            print n, phi, lab, $(NF-2), $NF, e, note}' >> "$rows"
        else
          printf '%s\t%s\t%s\t-\t-\t-\t%s\n' "$n" "$phi" "$label" "$st" >> "$rows"
        fi
      done
      if [ "$phi" = 1 ]; then
        if [ -f "$g8" ] && grep -q "^cublas_dgemm,$n," "$g8"; then
          awk -F, -v n="$n" 'BEGIN{OFS="\t"} $2 == n && ($1 == "cublas_dgemm" || $1 ~ /^gemmul8_/) {
            lab = $1 == "cublas_dgemm" ? "cuBLAS DGEMM (GEMMul8 harness run)" : \
                  "GEMMul8 " substr($1, 9) ", " $3 " moduli";
            print n, "1", lab, $4, sprintf("%.2f", $5), $6 " cw", ""}' "$g8" >> "$rows"
        else
          local why="not run"
          [ -f "$logs/peer-gemmul8.status" ] && why=$(cat "$logs/peer-gemmul8.status")
          grep -q "^# SKIP n=$n:" "$g8" 2>/dev/null && why=$(grep "^# SKIP n=$n:" "$g8" | head -1 | cut -c3-)
          printf '%s\t1\tGEMMul8\t-\t-\t-\t%s\n' "$n" "$why" >> "$rows"
        fi
      fi
    done
  done
  local gpu date oz g8c
  gpu=$(tail -1 "$logs/gpu.txt" 2>/dev/null | cut -d, -f1)
  [ -n "$gpu" ] || gpu=$(sed -n 's/^# gpu: //p' "$g8" 2>/dev/null | head -1)
  date=$(date -u +%F)
  oz=$(sed -n 's/^ozblas: //p' gpu-bundle/BUILD_INFO 2>/dev/null | head -1)
  g8c=$(sed -n 's/^# gemmul8_commit: //p' "$g8" 2>/dev/null | head -1)
  {
    echo "# ozblas, GEMMul8 and cuBLAS DGEMM on ${gpu:-the GPU} ($date)"
    echo
    echo "ozblas ${oz:-(commit not recorded)}: \`ozblas-bench --backend cuda --routine gemm --engine crt\`, one case"
    echo "a run (CUDA-event median of >= 10 calls after ${PEER_WARMUP:-1} warm-up, against cuBLAS DGEMM in the same run)."
    echo "GEMMul8 ${g8c:-(not run)}: the harness of shared/peers/gemmul8 (\`gemmul8_bench ${GEMMUL8_ARGS:---fast=14,16 --accu=14,16}\`,"
    echo "CUDA-event medians, its own cuBLAS DGEMM run); its inputs are phi = 1 only."
    echo "Both generate (rand - 0.5) exp(phi randn) inputs, square, N/N, alpha = 1, beta = 0, but not the same numbers."
    echo "Ratio: ms / ms of cuBLAS DGEMM in the same run.  Error: 'ulp' = ozblas-bench's max error in ulps of"
    echo "RN(exact) (MPFR) on sampled elements, '-' where run with --no-check (n > ${PEER_CHECK_MAX:-4096});"
    echo "'cw' = the harness's componentwise max |C - exact| / (|A||B|)_ij on 64 sampled elements."
    echo
    echo "| n | phi | method | ms | x cuBLAS | error | note |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
    awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7}' "$rows"
    if grep -q 'phases_ms' "$g8" 2>/dev/null; then
      echo
      echo "GEMMul8's phases (its own timers, median ms): quantization / INT8 GEMMs / requantization / dequantization"
      echo
      echo "| method | n | moduli | phases (ms) |"
      echo "| --- | --- | --- | --- |"
      sed -n 's/^# detail,\([^,]*\),n=\([0-9]*\),moduli=\([0-9]*\),.*phases_ms([^)]*)=\([0-9./]*\).*/| \1 | \2 | \3 | \4 |/p' "$g8"
    fi
  } > "$md"
  {
    echo "peer table (ms; x = ratio to cuBLAS DGEMM of the same run; ulp = max ulps of RN(exact), cw = componentwise):"
    awk -F'\t' '{printf "  %-6s %-4s %-38s %10s %7s  %-12s %s\n", $1, $2, $3, $4, $5, $6, $7}' "$rows"
  } > "$txt"
  rm -f "$rows"
}

case ${1:-} in
  check)  check ;;
  bundle) [ $# -eq 2 ] || die "usage: gpu_peer.sh bundle DIR"; bundle "$2" ;;
  build)  [ $# -eq 2 ] || die "usage: gpu_peer.sh build DIR"; build "$2" ;;
  table)  [ $# -eq 4 ] || die "usage: gpu_peer.sh table LOGDIR MD TXT"; table "$2" "$3" "$4" ;;
  *) die "usage: gpu_peer.sh check | bundle DIR | build DIR | table LOGDIR MD TXT" ;;
esac
