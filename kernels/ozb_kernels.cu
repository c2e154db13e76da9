/* CUDA kernels of the device backend.  The element operations are ozb_kernel_ops.h, shared
 * with the host emulation; compiled with --fmad=false (CMakeLists.txt), though nothing here
 * rounds: integer conversions and one multiplication by beta, as on the CPU. */
#include "ozb_kernels.h"
#include "ozb_kernel_ops.h"
#include "ozb_engine_ops.h"
#include "ozb_sum_ops.h"
#include "ozb_crt_ops.h"
#include "ozb_eft_ops.h"
#include "ozb_crcr_ops.h"
#include "ozb_shape_ops.h"
#ifdef OZB_HOST_KERNELS
#include "ozb_cuda_host.h"          /* the emulated device's host build (src/cuda/kernels_host.cc) */
#else
#include <cuda_runtime.h>
#define OZB_LAUNCH(k, g, b, st)      k<<<g, b, 0, st>>>
#define OZB_LAUNCH_SYNC(k, g, b, st) k<<<g, b, 0, st>>>   /* a kernel with __syncthreads */
#define OZB_BOUNDS(threads, blocks) __launch_bounds__(threads, blocks)
#endif

namespace {

constexpr int kThreads = OZB_KL_THREADS;

inline unsigned blocks_for(int64_t n) { return ozb_kl_blocks(n); }   /* ozb_launch.h */

__global__ void k_u8_to_s8_mod(const uint8_t *src, int8_t *dst, int64_t n, int32_t m)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = ozb_op_u8_to_s8_mod(src[i], m);
}

__global__ void k_u8_nibbles(const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        hi[i] = ozb_op_u8_hi(src[i]);
        lo[i] = ozb_op_u8_lo(src[i]);
    }
}

__global__ void k_hi_lo(const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = ozb_op_hi_lo(hi[i], lo[i]);
}

__global__ void k_scale(double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    const int64_t total = m * n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i;
        const int64_t j = ozb_op_divmod(e, m, &i);
        double *p = c + i * crs + j * ccs;
        *p = ozb_op_scale(beta == 0.0 ? 0.0 : *p, beta);
    }
}

/* One block of 128 threads per row i of A: each thread walks l with stride 128 keeping N
 * sums in registers (N <= 16, unrolled), then a shared-memory tree adds the 128 partial sums.
 * Every sum is an exact integer (ozb_kernel_ops.h), so this order gives the CPU's bits. */
constexpr int kSkinnyThreads = OZB_KL_SKINNY_THREADS;
constexpr int kSkinnyMaxN = 16;

__global__ void k_skinny_i32(const int32_t *A, const double *X, double *P, int64_t M, int N, int64_t kb, int64_t ldp)
{
    __shared__ double red[kSkinnyThreads];
    for (int64_t i = blockIdx.x; i < M; i += gridDim.x) {
        const int32_t *a = A + i * kb;
        double acc[kSkinnyMaxN];
#pragma unroll
        for (int j = 0; j < kSkinnyMaxN; j++) acc[j] = 0.0;
        for (int64_t l = threadIdx.x; l < kb; l += kSkinnyThreads) {
            const int32_t av = a[l];
#pragma unroll
            for (int j = 0; j < kSkinnyMaxN; j++)
                if (j < N) acc[j] = __dadd_rn(acc[j], ozb_op_i32_times(av, X[j * kb + l]));
        }
        for (int j = 0; j < N; j++) {
            double v = 0.0;
#pragma unroll
            for (int q = 0; q < kSkinnyMaxN; q++) v = q == j ? acc[q] : v;   /* constant indices only */
            red[threadIdx.x] = v;
            __syncthreads();
            for (int s = kSkinnyThreads / 2; s > 0; s >>= 1) {
                if ((int)threadIdx.x < s) red[threadIdx.x] = __dadd_rn(red[threadIdx.x], red[threadIdx.x + s]);
                __syncthreads();
            }
            if (threadIdx.x == 0) P[i + j * ldp] = red[0];
            __syncthreads();
        }
    }
}

__global__ void k_crt_fold(int32_t *acc, const int32_t *src, int64_t ne, int32_t m)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x)
        acc[e] = ozb_op_crt_fold(acc[e], src[e], m);
}

/* one thread per element; the constants (about 1.1 KB) travel as the kernel's parameter */
__global__ void k_crt_recon(const int32_t *C, int64_t ne, const ozb_op_crt_consts k, double *out)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x)
        out[e] = ozb_op_crt_recon(C + e, ne, &k);
}

/* ---- the device-resident engine: one item per thread (grid-stride), ozb_engine_ops.h ---- */

__global__ void k_meta_init(unsigned long long *mx, int *low, int64_t n)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n; q += (int64_t)gridDim.x * blockDim.x) {
        mx[q] = 0ull;
        low[q] = OZB_OP_LOW_NONE;
    }
}

/* maxima and minima: atomics in any order give the same entry */
__global__ void k_meta_acc(const ozb_op_side sd, unsigned long long *mx, int *low)
{
    const int64_t items = ozb_op_items(&sd);
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; w < items; w += (int64_t)gridDim.x * blockDim.x) {
        int64_t q;
        const ozb_op_rowmeta m = ozb_op_meta_item(&sd, w, &q);
        if (m.mx) atomicMax(mx + q, (unsigned long long)m.mx);
        if (m.low != OZB_OP_LOW_NONE) atomicMin(low + q, m.low);
    }
}

__global__ void k_meta_finish(const unsigned long long *mx, const int *low, int64_t n, int beta, int limit, int32_t *e,
                              int32_t *ns)
{
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < n; q += (int64_t)gridDim.x * blockDim.x) {
        const ozb_op_rowmeta m = { (uint64_t)mx[q], low[q] };
        ozb_op_meta_finish(m, beta, limit, e + q, ns + q);
    }
}

__global__ void k_split(const ozb_op_side sd, int type, int beta, const int32_t *e, const int32_t *ns, int s,
                        int64_t kbp, int rowfast, void *S, int64_t items)
{
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; w < items; w += (int64_t)gridDim.x * blockDim.x)
        ozb_op_split_item(&sd, type, beta, e, ns, s, kbp, rowfast, S, w);
}

/* The INT8 split of a column-major side (rs == 1, the TN layout: k contiguous per slice row)
 * by tiles of 32 rows x 32 k-positions, as k_crt_residues_cm: the warp reads along the rows,
 * the digits go through shared memory and leave along k; k_split's one item a thread would
 * store bytes kbp apart.  The same digits (ozb_op_split_x, ozb_op_digit). */
__global__ void k_split_s8_cm(const ozb_op_side sd, int beta, const int32_t *e, const int32_t *ns, int s, int64_t kbp,
                              int8_t *S, int64_t nkb)
{
    constexpr int T = OZB_KL_RES_TILE;
    __shared__ int8_t sh[OZB_OP_SPLIT_MAXS][T][T + 1];
    const int tx = (int)threadIdx.x % T, ty = (int)threadIdx.x / T, ny = (int)blockDim.x / T;
    const int64_t tr = (sd.rows + T - 1) / T, tl = (kbp + T - 1) / T, tiles = tr * tl * nkb;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t r0 = tile % tr * T, l0 = tile / tr % tl * T, kk = tile / (tr * tl);
        for (int j = ty; j < T; j += ny) {                 /* row r0 + tx, position l0 + j */
            if (r0 + tx >= sd.rows || l0 + j >= kbp) continue;
            int er, nr;
            double x = ozb_op_split_x(&sd, e, ns, r0 + tx, l0 + j, kk, &er, &nr);
            for (int t = 0; t < s; t++) {
                double d = 0.0;
                if (t < nr) ozb_op_digit(x, er - (t + 1) * beta, &d, &x);
                sh[t][j][tx] = (int8_t)d;                  /* |d| <= 127: exact */
            }
        }
        __syncthreads();
        for (int t = 0; t < s; t++)
            for (int j = ty; j < T; j += ny) {             /* row r0 + j, position l0 + tx */
                if (r0 + j >= sd.rows || l0 + tx >= kbp) continue;
                S[((kk * s + t) * sd.rows + r0 + j) * kbp + l0 + tx] = sh[t][tx][j];
            }
        __syncthreads();
    }
}

/* the ACCURATE bound's quantization of a column-major side by the same tiles */
__global__ void k_crt_quant_cm(const ozb_op_side sd, const int32_t *e, int bits, int64_t kbp, int8_t *lo, int8_t *hi)
{
    constexpr int T = OZB_KL_RES_TILE;
    __shared__ int32_t sh[T][T + 1];
    const int tx = (int)threadIdx.x % T, ty = (int)threadIdx.x / T, ny = (int)blockDim.x / T;
    const int64_t tr = (sd.rows + T - 1) / T, tl = (kbp + T - 1) / T, tiles = tr * tl;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t r0 = tile % tr * T, l0 = tile / tr % tl * T;
        for (int j = ty; j < T; j += ny)
            if (r0 + tx < sd.rows && l0 + j < kbp) sh[j][tx] = ozb_op_crt_quant_elem(&sd, e, bits, r0 + tx, l0 + j);
        __syncthreads();
        for (int j = ty; j < T; j += ny) {
            if (r0 + j >= sd.rows || l0 + tx >= kbp) continue;
            const int32_t qi = sh[tx][j], ql = qi > 127 ? 127 : qi;
            lo[(r0 + j) * kbp + l0 + tx] = (int8_t)ql;
            if (hi) hi[(r0 + j) * kbp + l0 + tx] = (int8_t)(qi - ql);
        }
        __syncthreads();
    }
}

/* an item's sums into P: digit pair (t, u) at P[base + t rows + u M] */
__device__ __forceinline__ void fused_add(double *P, const double acc[OZB_OP_FUSED_HALF][OZB_OP_FUSED_MAXS], int t0,
                                          int nsa, int sb, int64_t base, int64_t rows, int64_t M)
{
#pragma unroll
    for (int t = 0; t < OZB_OP_FUSED_HALF; t++)
#pragma unroll
        for (int u = 0; u < OZB_OP_FUSED_MAXS; u++)
            if (t0 + t < nsa && u < sb && acc[t][u] != 0.0) atomicAdd(P + base + (t0 + t) * rows + u * M, acc[t][u]);
}

/* every partial sum is an integer below 2^53 (ozb_kernel_ops.h), so the atomic additions
 * are exact and their order does not matter.  Two threads per item, each half of op(A)'s
 * digits (4 x 8 sums in registers, not 8 x 8: 116-120 registers, so two blocks of 256 fit an
 * SM; the neighbouring threads load the same elements) */
__global__ void OZB_BOUNDS(kThreads, 2) k_fused(const ozb_op_side sd, int beta, const int32_t *eA, const int32_t *nsA, int sa,
                        const double *SX, int sb, int64_t kbp, double *P)
{
    const int64_t items = 2 * ozb_op_items(&sd), M = (int64_t)sa * sd.rows;
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; w < items; w += (int64_t)gridDim.x * blockDim.x) {
        double acc[OZB_OP_FUSED_HALF][OZB_OP_FUSED_MAXS];
        int nsa;
        int64_t kk, r;
        const int t0 = (int)(w & 1) * OZB_OP_FUSED_HALF;   /* the two halves of an item: neighbouring threads */
        ozb_op_fused_item(&sd, beta, eA, nsA, SX, sb, kbp, w >> 1, t0, acc, &nsa, &kk, &r);
        fused_add(P, acc, t0, nsa, sb, kk * M * sb + r, sd.rows, M);
    }
}

/* the DOT: both sides split in registers (ozb_op_fused_dot_item), P and the atomics as k_fused */
__global__ void k_fused_dot(const ozb_op_side sd, const ozb_op_side sy, int beta, const int32_t *eA, const int32_t *nsA,
                            int sa, const int32_t *eB, const int32_t *nsB, int sb, double *P)
{
    const int64_t items = 2 * ozb_op_items(&sd), M = (int64_t)sa * sd.rows;
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; w < items; w += (int64_t)gridDim.x * blockDim.x) {
        double acc[OZB_OP_FUSED_HALF][OZB_OP_FUSED_MAXS];
        int nsa;
        int64_t kk, r;
        const int t0 = (int)(w & 1) * OZB_OP_FUSED_HALF;
        ozb_op_fused_dot_item(&sd, &sy, beta, eA, nsA, eB, nsB, sb, w >> 1, t0, acc, &nsa, &kk, &r);
        fused_add(P, acc, t0, nsa, sb, kk * M * sb + r, sd.rows, M);
    }
}

/* ---- the CRT format ---- */
/* Row scales, kRowsPerBlock (8) rows a block (one thread a row kept 6 % of an H100 busy at
 * m = 16384): thread (row, lane) takes the row's elements l = lane, lane + 32, ... in
 * ascending order (lanes fastest along a contiguous row, rows fastest for a column-major
 * side: each 32-byte sector read is used whole), the largest bits are combined by max
 * (order-free) and the 32 lane partials go through shared memory into ozb_op_lane_tree: the
 * lane order of the CPU's loops (kernels/ozb_engine_ops.h), the same bits.  The row loop is
 * uniform in the block (barriers). */
constexpr int kLanes = OZB_OP_SUM_LANES, kRowsPerBlock = kThreads / OZB_OP_SUM_LANES;

/* rows fastest where consecutive rows are adjacent in memory (row stride 1, the summed index
 * strided), else lanes fastest */
__device__ inline void row_lane(int64_t row_stride, int64_t sum_stride, int *lane, int *rr)
{
    const int t = (int)threadIdx.x;
    const bool rows_fast = row_stride == 1 && sum_stride != 1;
    *lane = rows_fast ? t / kRowsPerBlock : t % kLanes;
    *rr = rows_fast ? t % kRowsPerBlock : t / kLanes;
}

__global__ void k_crt_rows(const ozb_op_side sd, ozb_op_crt_row *out)
{
    __shared__ unsigned long long smx[kRowsPerBlock][kLanes];
    __shared__ double s2[kRowsPerBlock][kLanes], s1[kRowsPerBlock][kLanes];
    int lane, rr;
    row_lane(sd.rs, sd.cs, &lane, &rr);
    for (int64_t r0 = (int64_t)blockIdx.x * kRowsPerBlock; r0 < sd.rows; r0 += (int64_t)gridDim.x * kRowsPerBlock) {
        const int64_t r = r0 + rr;
        const bool in = r < sd.rows;
        const double *row = sd.p + (in ? r : 0) * sd.rs;
        unsigned long long mx = 0;
        for (int64_t l = lane; in && l < sd.k; l += kLanes) {
            const unsigned long long b = ozb_op_bits(row[l * sd.cs]) & OZB_OP_ABS;
            mx = b > mx ? b : mx;
        }
        smx[rr][lane] = mx;
        __syncthreads();
        for (int i = 0; i < kLanes; i++) mx = smx[rr][i] > mx ? smx[rr][i] : mx;
        const int32_t e = ozb_op_crt_row_exp(mx);
        double a2 = 0.0, a1 = 0.0;
        if (in && ozb_op_usable(e)) {
            double g[2];
            ozb_op_pow2_pair(-e, g);
            for (int64_t l = lane; l < sd.k; l += kLanes) {
                const double x = row[l * sd.cs] * g[0] * g[1];
                a2 += x * x;
                a1 += fabs(x);
            }
        }
        s2[rr][lane] = a2;
        s1[rr][lane] = a1;
        __syncthreads();
        if (in && lane == 0) {
            ozb_op_crt_row o = {e, 0, 0.0};
            if (ozb_op_usable(e)) o = ozb_op_crt_row_finish(e, s2[rr], s1[rr]);   /* the partials in place */
            out[r] = o;
        }
        __syncthreads();
    }
}

__global__ void k_crt_residues(const ozb_op_side sd, const double *f1, const double *f2, const ozb_op_crt_res rc,
                               int64_t kbp, int8_t *out, int64_t items)
{
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; w < items; w += (int64_t)gridDim.x * blockDim.x)
        ozb_op_crt_res_item(&sd, f1, f2, &rc, kbp, out, w);
}

/* The same residues for a column-major side (rs == 1), by tiles of 32 rows x 32 k-positions:
 * the threads of a warp read along the rows (consecutive doubles), the residues go through
 * shared memory and leave along k (consecutive bytes).  k_crt_residues' one item a thread
 * stores bytes kbp apart there: 4.05 ms against 0.43 ms for the row-major side of a
 * 4096^3 DOUBLE GEMM on an H100 (Nsight Compute).  The same values: each is
 * computed by the same element operation, and the tile loop is uniform in the block. */
__global__ void k_crt_residues_cm(const ozb_op_side sd, const double *f1, const double *f2, const ozb_op_crt_res rc,
                                  int64_t kbp, int8_t *out, int64_t nkb)
{
    constexpr int T = OZB_KL_RES_TILE;
    __shared__ int8_t sh[OZB_OP_CRT_MAXMOD][T][T + 1];
    const int tx = (int)threadIdx.x % T, ty = (int)threadIdx.x / T, ny = (int)blockDim.x / T;
    const int64_t tr = (sd.rows + T - 1) / T, tl = (kbp + T - 1) / T, tiles = tr * tl * nkb;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t r0 = tile % tr * T, l0 = tile / tr % tl * T, kk = tile / (tr * tl);
        for (int j = ty; j < T; j += ny) {                 /* row r0 + tx, position l0 + j */
            if (r0 + tx >= sd.rows || l0 + j >= kbp) continue;
            double xh, xl;
            int e2;
            ozb_op_crt_res_prep(&sd, f1, f2, &rc, r0 + tx, l0 + j, kk, &xh, &xl, &e2);
            for (int t = 0; t < rc.s; t++) sh[t][j][tx] = ozb_op_crt_res_t(&rc, t, xh, xl, e2);
        }
        __syncthreads();
        for (int t = 0; t < rc.s; t++)
            for (int j = ty; j < T; j += ny) {             /* row r0 + j, position l0 + tx */
                if (r0 + j >= sd.rows || l0 + tx >= kbp) continue;
                out[((kk * rc.s + t) * sd.rows + r0 + j) * kbp + l0 + tx] = sh[t][tx][j];
            }
        __syncthreads();
    }
}

__global__ void k_crt_quant(const ozb_op_side sd, const int32_t *e, int bits, int64_t kbp, int8_t *lo, int8_t *hi,
                            int64_t items)
{
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; w < items; w += (int64_t)gridDim.x * blockDim.x)
        ozb_op_crt_quant_item(&sd, e, bits, kbp, lo, hi, w);
}

__global__ void k_crt_bound_acc(const int32_t *Ulo, const int32_t *Uhi, double *Ud, int first, int64_t ne)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x)
        ozb_op_crt_bound_acc(Ulo, Uhi, Ud, first, e);
}

__global__ void k_crt_zmax(const double *Ud, int64_t mbb, int64_t ne, int64_t i0, int64_t j0, const int32_t *eB,
                           const int32_t *cB, unsigned long long *Z)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t il;
        const unsigned long long b = (unsigned long long)ozb_op_crt_z_item(Ud, mbb, j0, eB, cB, e, &il);
        if (b) atomicMax(Z + i0 + il, b);
    }
}

__global__ void k_crt_hats(const ozb_op_side sd, const int32_t *e, const int32_t *hs, int64_t kbp, int8_t *out,
                           int64_t items)
{
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; w < items; w += (int64_t)gridDim.x * blockDim.x)
        ozb_op_crt_hat_item(&sd, e, hs, kbp, out, w);
}

/* the flagged elements counted in a double (exact below 2^53; the order of the additions of
 * ones does not matter) */
__global__ void k_crt_cert(const ozb_op_crt_cert_args g, double *count)
{
    const int64_t ne = g.mbb * g.nbb;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x)
        if (ozb_op_crt_cert_item(&g, e)) atomicAdd(count, 1.0);
}

__global__ void k_crt_flagged(const uint8_t *flags, int64_t ne, int64_t cap, double *count, int64_t *pos)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x)
        if (flags[e]) {
            const int64_t q = (int64_t)atomicAdd(count, 1.0);
            if (q < cap) pos[q] = e;
        }
}

/* the window of the flagged elements of an m-row array (rows fastest), as maxima only:
 * win[0] = max(m - 1 - i), win[1] = max i, win[2] = max(n - 1 - j), win[3] = max j (0 where
 * none is flagged) */
__global__ void k_crt_window(const uint8_t *flags, int64_t m, int64_t ne, unsigned long long *win)
{
    const int64_t n = ne / m;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x)
        if (flags[e]) {
            const int64_t j = e / m, i = e - j * m;
            const unsigned long long v[4] = { (unsigned long long)(m - 1 - i), (unsigned long long)i,
                                              (unsigned long long)(n - 1 - j), (unsigned long long)j };
            /* the maxima only grow, so a value read stale is at most the current one: an
             * atomic is skipped only where it would change nothing (few of many contend) */
            for (int q = 0; q < 4; q++)
                if (v[q] > win[q]) atomicMax(&win[q], v[q]);
        }
}

__global__ void k_crt_out(const ozb_op_crt_out_args g)
{
    const int64_t ne = g.mbb * g.nbb;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x)
        ozb_op_crt_out_item(&g, e);
}

/* one thread per output element.  FIXED mode's fixed-order binary64 sum needs no
 * accumulator; the exact sum's long accumulator (1.9 KB) is each thread's own slot of a
 * scratch array in global memory, set up once per thread and cleaned by each rounding:
 * kept off the stack, so that no kernel needs a large stack frame (the driver would
 * otherwise grow every thread's stack for the rest of the process) */
__global__ void k_sum_double(const ozb_op_sum_args g)
{
    const int64_t total = g.mb * g.nb;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i;
        const int64_t j = ozb_op_divmod(e, g.mb, &i);
        g.c[(g.i0 + i) * g.crs + (g.j0 + j) * g.ccs] = ozb_op_sum_elem(&g, i, j, nullptr);
    }
}

/* The exact sum of few elements over many k-blocks (a DOT: one element, up to 2^16 k-blocks):
 * one block per element, thread t adds the k-blocks kk = t (mod blockDim) into its own
 * accumulator, a tree merges them (exact digit additions, so any split and any order give
 * the one accumulator) and thread 0 rounds.  Threads beyond the k-blocks idle. */
__global__ void k_sum_wide(const ozb_op_sum_args g, ozb_longacc *la)
{
    const int t = (int)threadIdx.x, T = (int)blockDim.x;
    /* one accumulator per thread that has a k-block (t < nkb) */
    ozb_longacc *base = la + blockIdx.x * (int64_t)(g.nkb < T ? g.nkb : T), *acc = base + t;   /* ozb_kl_sum_wide_slots */
    if (t < g.nkb) ozb_op_la_init(acc);
    const int64_t total = g.mb * g.nb;
    for (int64_t e = blockIdx.x; e < total; e += gridDim.x) {
        int64_t i;
        const int64_t j = ozb_op_divmod(e, g.mb, &i);
        if (t < g.nkb) ozb_op_sum_part(&g, i, j, t, T, acc);
        __syncthreads();
        for (int s = T / 2; s > 0; s >>= 1) {
            if (t < s && t + s < g.nkb) ozb_op_la_merge(acc, base + t + s);
            __syncthreads();
        }
        if (t == 0) g.c[(g.i0 + i) * g.crs + (g.j0 + j) * g.ccs] = ozb_op_sum_finish(&g, i, j, acc);
        __syncthreads();
    }
}

__global__ void k_sum_exact(const ozb_op_sum_args g, ozb_longacc *la)
{
    ozb_longacc *acc = la + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x);
    ozb_op_la_init(acc);
    const int64_t total = g.mb * g.nb;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i;
        const int64_t j = ozb_op_divmod(e, g.mb, &i);
        g.c[(g.i0 + i) * g.crs + (g.j0 + j) * g.ccs] = ozb_op_sum_elem(&g, i, j, acc);
    }
}

/* The certified DOT (ozb_eft_ops.h; geometry ozb_launch.h's ozb_kl_eft_plan): partial chains
 * part[q m + i] of row i's chunk q, by rows (a thread a row and chunk) ... */
__global__ void k_eft_rows(const ozb_op_eft_args g, ozb_eft_acc *part)
{
    const int64_t items = g.m * g.nq;
    for (int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; w < items; w += (int64_t)gridDim.x * blockDim.x) {
        int64_t i;
        const int64_t q = ozb_op_divmod(w, g.m, &i);
        ozb_eft_acc acc;
        ozb_op_eft_init(&acc);
        ozb_op_eft_chunk(&g, i, q, 0, 1, &acc);
        part[w] = acc;
    }
}

/* ... or by blocks (a block a row and chunk, its threads' chains merged by a tree) */
__global__ void OZB_BOUNDS(kThreads, 4) k_eft_blocks(const ozb_op_eft_args g, ozb_eft_acc *part)
{
    __shared__ ozb_eft_acc red[kThreads];
    const int64_t items = g.m * g.nq;
    for (int64_t w = blockIdx.x; w < items; w += gridDim.x) {           /* the same w in the whole block */
        int64_t i;
        const int64_t q = ozb_op_divmod(w, g.m, &i);
        ozb_eft_acc acc;
        ozb_op_eft_init(&acc);
        ozb_op_eft_chunk(&g, i, q, threadIdx.x, blockDim.x, &acc);
        red[threadIdx.x] = acc;
        __syncthreads();
        for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
            if (threadIdx.x < h) ozb_op_eft_merge(&red[threadIdx.x], &red[threadIdx.x + h]);
            __syncthreads();
        }
        if (threadIdx.x == 0) part[w] = red[0];
        __syncthreads();                                                /* red is reused */
    }
}

/* the finish: a warp of lanes a row merges its nq chunks, lane 0 certifies (ozb_op_eft_finish)
 * and writes res[i], or sets *bad (a plain store of the same value by every uncertified row) */
__global__ void k_eft_finish(const ozb_op_eft_args g, const ozb_eft_acc *part, double *res, int *bad)
{
    __shared__ ozb_eft_acc red[kThreads];
    const unsigned lane = threadIdx.x % 32, slot = threadIdx.x / 32;
    for (int64_t i0 = blockIdx.x * (int64_t)OZB_KL_EFT_FROWS; i0 < g.m; i0 += (int64_t)gridDim.x * OZB_KL_EFT_FROWS) {
        const int64_t i = i0 + slot;
        ozb_eft_acc acc;
        ozb_op_eft_init(&acc);
        if (i < g.m)
            for (int64_t q = lane; q < g.nq; q += 32) ozb_op_eft_merge(&acc, &part[q * g.m + i]);
        red[threadIdx.x] = acc;
        __syncthreads();
        for (unsigned h = 16; h > 0; h /= 2) {
            if (lane < h) ozb_op_eft_merge(&red[threadIdx.x], &red[threadIdx.x + h]);
            __syncthreads();
        }
        if (lane == 0 && i < g.m) {
            double r = 0.0;
            if (ozb_op_eft_finish(&red[threadIdx.x], g.depth, g.alpha, g.beta, g.beta != 0.0 ? g.c[i * g.crs] : 0.0, &r))
                res[i] = r;
            else
                *bad = 1;
        }
        __syncthreads();
    }
}

/* the correctly rounded CRT's output (ozb_crcr_ops.h), one element a thread */
__global__ void k_crcr_recon(const ozb_op_crcr_args g)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < g.ne; e += (int64_t)gridDim.x * blockDim.x)
        ozb_op_crcr_elem(&g, e);
}

__global__ void k_crcr_ka(const uint64_t *mx, const int32_t *low, int32_t *ka, int *ok, int64_t rows)
{
    for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < rows; r += (int64_t)gridDim.x * blockDim.x)
        ozb_op_crcr_ka(mx, low, ka, ok, r);
}

/* the certified results over C, unless a row was declined (skip set and *skip: C untouched) */
__global__ void k_eft_put(const double *res, int64_t m, double *c, int64_t crs, const int *skip)
{
    if (skip && *skip) return;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m; i += (int64_t)gridDim.x * blockDim.x)
        c[i * crs] = res[i];
}

/* the level-3 shapes (ozb_shape_ops.h): one thread an element of the window */
__global__ void k_shape(ozb_op_shape s)
{
    const int64_t total = s.m * s.n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i;
        const int64_t j = ozb_op_divmod(e, s.m, &i);
        ozb_op_shape_elem(&s, i, j);
    }
}

/* a triangular solve's in-block rows (ozb_shape_ops.h): one thread a column */
__global__ void k_subst(ozb_op_subst g)
{
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < g.nrhs; j += (int64_t)gridDim.x * blockDim.x)
        ozb_op_subst_col(&g, j);
}

/* Inf and NaN in a window (ozb_shape_ops.h): one thread an element, then one a column */
__global__ void k_nonfinite_any(ozb_op_nonfinite g)
{
    const int64_t total = g.m * g.n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t i;
        const int64_t j = ozb_op_divmod(e, g.m, &i);
        ozb_op_nonfinite_elem(&g, i, j);
    }
}

__global__ void k_nonfinite_cols(ozb_op_nonfinite g)
{
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < g.n; j += (int64_t)gridDim.x * blockDim.x)
        ozb_op_nonfinite_col(&g, j);
}

inline int launched() { return (int)cudaGetLastError(); }

static int kl_u8_to_s8_mod(const uint8_t *src, int8_t *dst, int64_t n, int32_t m, void *stream)
{
    if (n <= 0) return 0;
    OZB_LAUNCH(k_u8_to_s8_mod, blocks_for(n), kThreads, (cudaStream_t)stream)(src, dst, n, m);
    return launched();
}

static int kl_u8_nibbles(const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n, void *stream)
{
    if (n <= 0) return 0;
    OZB_LAUNCH(k_u8_nibbles, blocks_for(n), kThreads, (cudaStream_t)stream)(src, hi, lo, n);
    return launched();
}

static int kl_hi_lo(const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n, void *stream)
{
    if (n <= 0) return 0;
    OZB_LAUNCH(k_hi_lo, blocks_for(n), kThreads, (cudaStream_t)stream)(hi, lo, dst, n);
    return launched();
}

static int kl_skinny_i32(const int32_t *A, const double *X, double *P, int64_t M, int64_t N, int64_t kb, int64_t ldp,
                                 void *stream)
{
    if (M <= 0 || N <= 0) return 0;
    if (N > kSkinnyMaxN) return (int)cudaErrorInvalidValue;
    OZB_LAUNCH_SYNC(k_skinny_i32, ozb_kl_skinny_grid(M), kSkinnyThreads, (cudaStream_t)stream)(A, X, P, M, (int)N, kb, ldp);
    return launched();
}

static int kl_crt_fold(int32_t *acc, const int32_t *src, int64_t ne, int32_t m, void *stream)
{
    if (ne <= 0) return 0;
    OZB_LAUNCH(k_crt_fold, blocks_for(ne), kThreads, (cudaStream_t)stream)(acc, src, ne, m);
    return launched();
}

static int kl_crt_recon(const int32_t *C, int64_t ne, const void *k, double *out, void *stream)
{
    if (ne <= 0) return 0;
    OZB_LAUNCH(k_crt_recon, blocks_for(ne), kThreads, (cudaStream_t)stream)(C, ne, *(const ozb_op_crt_consts *)k, out);
    return launched();
}

static int kl_scale(double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta, void *stream)
{
    if (m <= 0 || n <= 0 || beta == 1.0) return 0;
    OZB_LAUNCH(k_scale, blocks_for(m * n), kThreads, (cudaStream_t)stream)(c, crs, ccs, m, n, beta);
    return launched();
}

static int kl_meta(const void *side, int beta, int limit, uint64_t *mx, int32_t *low, int32_t *e, int32_t *ns,
                           void *stream)
{
    const ozb_op_side sd = *(const ozb_op_side *)side;
    const int64_t n = sd.nkb * sd.rows, items = ozb_op_items(&sd);
    if (n <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    OZB_LAUNCH(k_meta_init, blocks_for(n), kThreads, st)((unsigned long long *)mx, (int *)low, n);
    if (items > 0) OZB_LAUNCH(k_meta_acc, blocks_for(items), kThreads, st)(sd, (unsigned long long *)mx, (int *)low);
    OZB_LAUNCH(k_meta_finish, blocks_for(n), kThreads, st)((const unsigned long long *)mx, (const int *)low, n, beta, limit, e, ns);
    return launched();
}

static int kl_split(const void *side, int type, int beta, const int32_t *e, const int32_t *ns, int s, int64_t kbp,
                            int rowfast, void *S, int64_t items, void *stream)
{
    if (items <= 0) return 0;
    const ozb_op_side sd = *(const ozb_op_side *)side;
    if (type == 2 && !rowfast && sd.rs == 1 && sd.rows > 1 && s <= OZB_OP_SPLIT_MAXS) {   /* INT8, column-major: by tiles */
        const int64_t nkb = items / (sd.rows * kbp);
        OZB_LAUNCH_SYNC(k_split_s8_cm, ozb_kl_res_blocks(ozb_kl_res_tiles(sd.rows, kbp, nkb)), kThreads,
                        (cudaStream_t)stream)(sd, beta, e, ns, s, kbp, (int8_t *)S, nkb);
        return launched();
    }
    OZB_LAUNCH(k_split, blocks_for(items), kThreads, (cudaStream_t)stream)(sd, type, beta, e, ns, s, kbp, rowfast, S, items);
    return launched();
}

static int kl_fused(const void *side, int beta, const int32_t *eA, const int32_t *nsA, int sa, const double *SX,
                            int sb, int64_t kbp, double *P, void *stream)
{
    const ozb_op_side sd = *(const ozb_op_side *)side;
    const int64_t items = ozb_op_items(&sd);
    if (items <= 0) return 0;
    OZB_LAUNCH(k_fused, blocks_for(2 * items), kThreads, (cudaStream_t)stream)(sd, beta, eA, nsA, sa, SX, sb, kbp, P);
    return launched();
}

static int kl_fused_dot(const void *side, const void *yside, int beta, const int32_t *eA, const int32_t *nsA, int sa,
                        const int32_t *eB, const int32_t *nsB, int sb, double *P, void *stream)
{
    const ozb_op_side sd = *(const ozb_op_side *)side;
    const int64_t items = ozb_op_items(&sd);
    if (items <= 0) return 0;
    OZB_LAUNCH(k_fused_dot, blocks_for(2 * items), kThreads, (cudaStream_t)stream)(sd, *(const ozb_op_side *)yside, beta, eA, nsA,
                                                                             sa, eB, nsB, sb, P);
    return launched();
}

static int kl_sum(const void *g, void *la, void *stream)
{
    const ozb_op_sum_args a = *(const ozb_op_sum_args *)g;
    const int64_t total = a.mb * a.nb;
    if (total <= 0) return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const int wide = ozb_kl_sum_wide(total, a.nkb, a.exact);
    if (a.exact && !la) return (int)cudaErrorInvalidValue;
    if (wide) {
        OZB_LAUNCH_SYNC(k_sum_wide, total, wide, st)(a, (ozb_longacc *)la);
    } else if (a.exact) {
        OZB_LAUNCH(k_sum_exact, ozb_kl_sum_accumulators(total, a.nkb, 1) / OZB_KL_SUM_BLOCK, OZB_KL_SUM_BLOCK, st)(
            a, (ozb_longacc *)la);
    } else {
        OZB_LAUNCH(k_sum_double, ozb_kl_sum_blocks(total), OZB_KL_SUM_BLOCK, st)(a);
    }
    return launched();
}

static int kl_crt_rows(const void *side, void *out, void *stream)
{
    const ozb_op_side sd = *(const ozb_op_side *)side;
    if (sd.rows <= 0) return 0;
    OZB_LAUNCH_SYNC(k_crt_rows, blocks_for(sd.rows * kLanes), kThreads, (cudaStream_t)stream)(sd, (ozb_op_crt_row *)out);
    return launched();
}

static int kl_crt_residues(const void *side, const double *f1, const double *f2, const void *rc, int64_t kbp,
                                   int8_t *out, int64_t items, void *stream)
{
    if (items <= 0) return 0;
    const ozb_op_side sd = *(const ozb_op_side *)side;
    if (sd.rs == 1 && sd.rows > 1) {                       /* column-major: coalesced by tiles */
        const int64_t nkb = items / (sd.rows * kbp);
        OZB_LAUNCH_SYNC(k_crt_residues_cm, ozb_kl_res_blocks(ozb_kl_res_tiles(sd.rows, kbp, nkb)), kThreads,
                        (cudaStream_t)stream)(sd, f1, f2, *(const ozb_op_crt_res *)rc, kbp, out, nkb);
        return launched();
    }
    OZB_LAUNCH(k_crt_residues, blocks_for(items), kThreads, (cudaStream_t)stream)(sd, f1, f2, *(const ozb_op_crt_res *)rc,
                                                                             kbp, out, items);
    return launched();
}

static int kl_crt_out(const void *g, void *stream)
{
    const ozb_op_crt_out_args a = *(const ozb_op_crt_out_args *)g;
    const int64_t ne = a.mbb * a.nbb;
    if (ne <= 0) return 0;
    OZB_LAUNCH(k_crt_out, blocks_for(ne), kThreads, (cudaStream_t)stream)(a);
    return launched();
}

static int kl_crt_quant(const void *side, const int32_t *e, int bits, int64_t kbp, int8_t *lo, int8_t *hi,
                                int64_t items, void *stream)
{
    if (items <= 0) return 0;
    const ozb_op_side sd = *(const ozb_op_side *)side;
    if (sd.rs == 1 && sd.rows > 1) {                       /* column-major: by tiles */
        OZB_LAUNCH_SYNC(k_crt_quant_cm, ozb_kl_res_blocks(ozb_kl_res_tiles(sd.rows, kbp, 1)), kThreads, (cudaStream_t)stream)(
            sd, e, bits, kbp, lo, hi);
        return launched();
    }
    OZB_LAUNCH(k_crt_quant, blocks_for(items), kThreads, (cudaStream_t)stream)(sd, e, bits, kbp, lo, hi, items);
    return launched();
}

static int kl_crt_bound_acc(const int32_t *Ulo, const int32_t *Uhi, double *Ud, int first, int64_t ne, void *stream)
{
    if (ne <= 0) return 0;
    OZB_LAUNCH(k_crt_bound_acc, blocks_for(ne), kThreads, (cudaStream_t)stream)(Ulo, Uhi, Ud, first, ne);
    return launched();
}

static int kl_crt_zmax(const double *Ud, int64_t mbb, int64_t nbb, int64_t i0, int64_t j0, const int32_t *eB,
                               const int32_t *cB, uint64_t *Z, void *stream)
{
    const int64_t ne = mbb * nbb;
    if (ne <= 0) return 0;
    OZB_LAUNCH(k_crt_zmax, blocks_for(ne), kThreads, (cudaStream_t)stream)(Ud, mbb, ne, i0, j0, eB, cB, (unsigned long long *)Z);
    return launched();
}

static int kl_eft_dot(const void *args, void *part, double *res, int *bad, void *stream)
{
    const ozb_op_eft_args g = *(const ozb_op_eft_args *)args;
    if (g.m <= 0 || g.k <= 0) return 0;
    const ozb_kl_eft_geom geo = ozb_kl_eft_plan(g.m, g.k, g.rows);
    cudaStream_t st = (cudaStream_t)stream;
    if (g.rows) OZB_LAUNCH(k_eft_rows, geo.grid, kThreads, st)(g, (ozb_eft_acc *)part);
    else OZB_LAUNCH_SYNC(k_eft_blocks, geo.grid, kThreads, st)(g, (ozb_eft_acc *)part);
    int e = launched();
    if (e) return e;
    OZB_LAUNCH_SYNC(k_eft_finish, geo.fgrid, 32 * OZB_KL_EFT_FROWS, st)(g, (const ozb_eft_acc *)part, res, bad);
    return launched();
}

static int kl_crt_hats(const void *side, const int32_t *e, const int32_t *hs, int64_t kbp, int8_t *out, int64_t items,
                       void *stream)
{
    if (items <= 0) return 0;
    OZB_LAUNCH(k_crt_hats, blocks_for(items), kThreads, (cudaStream_t)stream)(*(const ozb_op_side *)side, e, hs, kbp, out,
                                                                              items);
    return launched();
}

static int kl_crt_cert(const void *g, double *count, void *stream)
{
    const ozb_op_crt_cert_args a = *(const ozb_op_crt_cert_args *)g;
    const int64_t ne = a.mbb * a.nbb;
    if (ne <= 0) return 0;
    OZB_LAUNCH(k_crt_cert, blocks_for(ne), kThreads, (cudaStream_t)stream)(a, count);
    return launched();
}

static int kl_crt_flagged(const uint8_t *flags, int64_t ne, int64_t cap, double *count, int64_t *pos, void *stream)
{
    if (ne <= 0) return 0;
    OZB_LAUNCH(k_crt_flagged, blocks_for(ne), kThreads, (cudaStream_t)stream)(flags, ne, cap, count, pos);
    return launched();
}

static int kl_crt_window(const uint8_t *flags, int64_t m, int64_t ne, unsigned long long *win, void *stream)
{
    if (ne <= 0) return 0;
    OZB_LAUNCH(k_crt_window, blocks_for(ne), kThreads, (cudaStream_t)stream)(flags, m, ne, win);
    return launched();
}

static int kl_crcr_recon(const void *args, void *stream)
{
    const ozb_op_crcr_args g = *(const ozb_op_crcr_args *)args;
    if (g.ne <= 0) return 0;
    OZB_LAUNCH(k_crcr_recon, blocks_for(g.ne), kThreads, (cudaStream_t)stream)(g);
    return launched();
}

static int kl_crcr_ka(const uint64_t *mx, const int32_t *low, int32_t *ka, int *ok, int64_t rows, void *stream)
{
    if (rows <= 0) return 0;
    OZB_LAUNCH(k_crcr_ka, blocks_for(rows), kThreads, (cudaStream_t)stream)(mx, low, ka, ok, rows);
    return launched();
}

static int kl_eft_put(const double *res, int64_t m, double *c, int64_t crs, const int *skip, void *stream)
{
    if (m <= 0) return 0;
    OZB_LAUNCH(k_eft_put, blocks_for(m), kThreads, (cudaStream_t)stream)(res, m, c, crs, skip);
    return launched();
}

static int kl_shape(const void *args, void *stream)
{
    const ozb_op_shape s = *(const ozb_op_shape *)args;
    if (s.m <= 0 || s.n <= 0) return 0;
    OZB_LAUNCH(k_shape, blocks_for(s.m * s.n), kThreads, (cudaStream_t)stream)(s);
    return launched();
}

static int kl_nonfinite_any(const void *args, void *stream)
{
    const ozb_op_nonfinite g = *(const ozb_op_nonfinite *)args;
    if (g.m <= 0 || g.n <= 0) return 0;
    OZB_LAUNCH(k_nonfinite_any, blocks_for(g.m * g.n), kThreads, (cudaStream_t)stream)(g);
    return launched();
}

static int kl_nonfinite_cols(const void *args, void *stream)
{
    const ozb_op_nonfinite g = *(const ozb_op_nonfinite *)args;
    if (g.m <= 0 || g.n <= 0) return 0;
    OZB_LAUNCH(k_nonfinite_cols, blocks_for(g.n), kThreads, (cudaStream_t)stream)(g);
    return launched();
}

static int kl_subst(const void *args, void *stream)
{
    const ozb_op_subst g = *(const ozb_op_subst *)args;
    if (g.nrhs <= 0 || g.bs <= 0) return 0;
    OZB_LAUNCH(k_subst, blocks_for(g.nrhs), kThreads, (cudaStream_t)stream)(g);
    return launched();
}

}  // namespace

extern "C" const ozb_kl_table *OZB_KL_TABLE(void)
{
    static const ozb_kl_table t = {
        kl_u8_to_s8_mod,
        kl_u8_nibbles,
        kl_hi_lo,
        kl_skinny_i32,
        kl_crt_fold,
        kl_crt_recon,
        kl_scale,
        kl_meta,
        kl_split,
        kl_fused,
        kl_fused_dot,
        kl_crt_rows,
        kl_crt_residues,
        kl_crt_out,
        kl_crt_quant,
        kl_crt_bound_acc,
        kl_crt_zmax,
        kl_sum,
        kl_eft_dot,
        kl_eft_put,
        kl_crcr_recon,
        kl_crcr_ka,
        kl_crt_hats,
        kl_crt_cert,
        kl_crt_flagged,
        kl_crt_window,
        kl_shape,
        kl_subst,
        kl_nonfinite_any,
        kl_nonfinite_cols,
    };
    return &t;
}
