/* The emulated device (dev_ops.h): host memory, the device layer's calls with the same
 * arguments, GEMMs by plain loops in the device's number types and the kernels' element
 * operations (kernels/ozb_*_ops.h) in host loops.  OZBLAS_CUDA_EMULATE=1 when a CUDA handle
 * is created picks it, so that the host test suite runs every line of the CUDA backend
 * except the CUDA calls themselves. */
#include "cuda/dev_ops.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int  enter(ozb_dev *d) { (void)d; return -1; }
static void leave(ozb_dev *d, int token) { (void)d; (void)token; }
static void close_emu(ozb_dev *d) { (void)d; }
static void set_stream(ozb_dev *d, void *stream) { (void)d; (void)stream; }
static void *alloc(ozb_dev *d, size_t bytes) { (void)d; return aligned_alloc(256, bytes); }
static void release(ozb_dev *d, void *p) { (void)d; free(p); }
static int  sync_emu(ozb_dev *d) { (void)d; return 0; }
static int  mem_free(ozb_dev *d, size_t *free_bytes) { (void)d; (void)free_bytes; return -1; }   /* no device limit */
static int  zero(ozb_dev *d, void *p, size_t bytes) { (void)d; memset(p, 0, bytes); return 0; }

static int copy2d(ozb_dev *d, int to_dev, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  size_t height)
{
    (void)d; (void)to_dev;
    for (size_t r = 0; r < height; r++) memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return 0;
}

/* binary16 bits -> float (normal and zero values only: the FP16 digits are integers of at
 * most 11 bits) */
static float f16_value(uint16_t h)
{
    const int e = (h >> 10) & 31;
    const float mag = e == 0 ? 0.0f : (float)(1024 + (h & 0x3ff)) * (float)ldexp(1.0, e - 25);
    return (h & 0x8000) ? -mag : mag;
}

/* One loop per number type (the switch used to sit in the inner loop: a 10491 x 10760 x 128
 * INT8 product of a fuzz input took 40 s).  When both operands run along k contiguously (the
 * "TN" layout every slice product uses) the inner loop is a unit-stride dot product that the
 * compiler vectorizes.  INT8 and FP64 sums are exact integers in any order (the callers' bit
 * budgets); the INT8 sum wraps modulo 2^32 like the int32 accumulator of cuBLAS.  FP16
 * products are summed in k order in float, as before. */
static int gemm(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                const void *B, int64_t ldb, void *C, int64_t ldc)
{
    (void)d;
    const int64_t al = ta ? 1 : lda, ai = ta ? lda : 1;    /* A(i, l) = A[i * ai + l * al] */
    const int64_t bl = tb ? ldb : 1, bj = tb ? 1 : ldb;    /* B(l, j) = B[l * bl + j * bj] */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            const int64_t a0 = i * ai, b0 = j * bj;
            switch (type) {
            case OZB_DT_F64: {
                const double *a = (const double *)A + a0, *b = (const double *)B + b0;
                double s = 0.0;
                if (al == 1 && bl == 1) for (int64_t l = 0; l < k; l++) s += a[l] * b[l];
                else                    for (int64_t l = 0; l < k; l++) s += a[l * al] * b[l * bl];
                ((double *)C)[i + j * ldc] = s;
                break;
            }
            case OZB_DT_F16: {
                const uint16_t *a = (const uint16_t *)A + a0, *b = (const uint16_t *)B + b0;
                float s = 0.0f;
                for (int64_t l = 0; l < k; l++) s += f16_value(a[l * al]) * f16_value(b[l * bl]);
                ((float *)C)[i + j * ldc] = s;
                break;
            }
            case OZB_DT_S8: {
                const int8_t *a = (const int8_t *)A + a0, *b = (const int8_t *)B + b0;
                uint32_t s = 0;
                if (al == 1 && bl == 1) for (int64_t l = 0; l < k; l++) s += (uint32_t)((int32_t)a[l] * b[l]);
                else                    for (int64_t l = 0; l < k; l++) s += (uint32_t)((int32_t)a[l * al] * b[l * bl]);
                ((int32_t *)C)[i + j * ldc] = (int32_t)s;
                break;
            }
            }
        }
    return 0;
}

static int gemm_batched(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A,
                        int64_t lda, int64_t sa, const void *B, int64_t ldb, int64_t sb, void *C, int64_t ldc,
                        int64_t sc, int64_t batch)
{
    const size_t eb = type == OZB_DT_F64 ? 8 : type == OZB_DT_F16 ? 2 : 1, ob = type == OZB_DT_F64 ? 8 : 4;
    for (int64_t b = 0; b < batch; b++)
        gemm(d, type, ta, tb, m, n, k, (const char *)A + eb * (size_t)(b * sa), lda, (const char *)B + eb * (size_t)(b * sb),
             ldb, (char *)C + ob * (size_t)(b * sc), ldc);
    return 0;
}

static int u8_to_s8_mod(ozb_dev *d, const uint8_t *src, int8_t *dst, int64_t n, int32_t m)
{
    (void)d;
    for (int64_t i = 0; i < n; i++) dst[i] = ozb_op_u8_to_s8_mod(src[i], m);
    return 0;
}

static int u8_nibbles(ozb_dev *d, const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n)
{
    (void)d;
    for (int64_t i = 0; i < n; i++) { hi[i] = ozb_op_u8_hi(src[i]); lo[i] = ozb_op_u8_lo(src[i]); }
    return 0;
}

static int hi_lo(ozb_dev *d, const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n)
{
    (void)d;
    for (int64_t i = 0; i < n; i++) dst[i] = ozb_op_hi_lo(hi[i], lo[i]);
    return 0;
}

static int skinny_i32(ozb_dev *d, const int32_t *A, const double *X, double *P, int64_t M, int64_t N, int64_t kb,
                      int64_t ldp)
{
    (void)d;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0.0;
            for (int64_t l = 0; l < kb; l++) s += ozb_op_i32_times(A[i * kb + l], X[j * kb + l]);
            P[i + j * ldp] = s;
        }
    return 0;
}

static int crt_fold(ozb_dev *d, int32_t *acc, const int32_t *src, int64_t ne, int32_t m)
{
    (void)d;
    for (int64_t e = 0; e < ne; e++) acc[e] = ozb_op_crt_fold(acc[e], src[e], m);
    return 0;
}

static int crt_recon(ozb_dev *d, const int32_t *C, int64_t ne, const void *consts, double *out)
{
    (void)d;
    for (int64_t e = 0; e < ne; e++) out[e] = ozb_op_crt_recon(C + e, ne, (const ozb_op_crt_consts *)consts);
    return 0;
}

static int scale(ozb_dev *d, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    (void)d;
    if (beta == 1.0) return 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) { double *p = c + i * crs + j * ccs; *p = ozb_op_scale(beta == 0.0 ? 0.0 : *p, beta); }
    return 0;
}

static int meta(ozb_dev *d, const ozb_op_side *sd, int beta, int limit, uint64_t *mx, int32_t *low, int32_t *e,
                int32_t *ns)
{
    (void)d;
    const int64_t nslot = sd->nkb * sd->rows;
    for (int64_t q = 0; q < nslot; q++) { mx[q] = 0; low[q] = OZB_OP_LOW_NONE; }
    for (int64_t w = 0; w < ozb_op_items(sd); w++) {
        int64_t q;
        const ozb_op_rowmeta m = ozb_op_meta_item(sd, w, &q);
        if (m.mx > mx[q]) mx[q] = m.mx;
        if (m.low < low[q]) low[q] = m.low;
    }
    for (int64_t q = 0; q < nslot; q++) {
        const ozb_op_rowmeta m = { mx[q], low[q] };
        ozb_op_meta_finish(m, beta, limit, &e[q], &ns[q]);
    }
    return 0;
}

static int split(ozb_dev *d, const ozb_op_side *sd, int type, int beta, const int32_t *e, const int32_t *ns, int s,
                 int64_t kbp, int rowfast, void *S, int64_t items)
{
    (void)d;
    for (int64_t w = 0; w < items; w++) ozb_op_split_item(sd, type, beta, e, ns, s, kbp, rowfast, S, w);
    return 0;
}

static int fused(ozb_dev *d, const ozb_op_side *sd, int beta, const int32_t *eA, const int32_t *nsA, int sa,
                 const double *SX, int sb, int64_t kbp, double *P)
{
    (void)d;
    double acc[OZB_OP_FUSED_MAXS][OZB_OP_FUSED_MAXS];
    const int64_t M = (int64_t)sa * sd->rows;
    for (int64_t w = 0; w < ozb_op_items(sd); w++) {
        int nsa;
        int64_t kk, r;
        ozb_op_fused_item(sd, beta, eA, nsA, SX, sb, kbp, w, acc, &nsa, &kk, &r);
        for (int t = 0; t < nsa; t++)
            for (int u = 0; u < sb; u++) P[kk * M * sb + t * sd->rows + r + u * M] += acc[t][u];   /* exact integers */
    }
    return 0;
}

static int colsums(ozb_dev *d, const ozb_op_side *sd, const double *g, double sc, double sc2, double *w)
{
    (void)d;
    for (int64_t l = 0; l < sd->k; l++) w[l] = ozb_op_colsum_item(sd, g, sc, sc2, l);
    return 0;
}

static int local_weights(ozb_dev *d, const ozb_op_side *sd, const double *sg, double *v, double *u)
{
    (void)d;
    for (int64_t l = 0; l < sd->k; l++) ozb_op_local_weights_item(sd, sg, l, v, u);
    return 0;
}

static int vmax(ozb_dev *d, const double *w, int64_t k, uint64_t *slot, double *host_max)
{
    (void)d; (void)slot;
    double mx = 0.0;
    for (int64_t l = 0; l < k; l++) mx = w[l] > mx ? w[l] : mx;
    *host_max = mx;
    return 0;
}

static int crit(ozb_dev *d, const ozb_op_side *sd, const double *v, const double *u, const int32_t *e, int32_t *ns,
                int32_t *dA, int beta, double sfac, int dhyp, int64_t items)
{
    (void)d;
    for (int64_t w = 0; w < items; w++) ozb_op_crit_item(sd, v, u, e, ns, dA, beta, sfac, dhyp, w);
    return 0;
}

static int sum(ozb_dev *d, const ozb_op_sum_args *g)
{
    (void)d;
    ozb_longacc *acc = malloc(sizeof *acc);
    if (!acc) return -2;
    ozb_op_la_init(acc);
    for (int64_t j = 0; j < g->nb; j++)
        for (int64_t i = 0; i < g->mb; i++)
            g->c[(g->i0 + i) * g->crs + (g->j0 + j) * g->ccs] = ozb_op_sum_elem(g, i, j, acc);
    free(acc);
    return 0;
}

static int crt_rows(ozb_dev *d, const ozb_op_side *sd, ozb_op_crt_row *out)
{
    (void)d;
    for (int64_t r = 0; r < sd->rows; r++) out[r] = ozb_op_crt_rowscale(sd->p + r * sd->rs, sd->cs, sd->k);
    return 0;
}

static int crt_dots(ozb_dev *d, const ozb_op_side *sd, const int32_t *e, const double *v, double *dot)
{
    (void)d;
    for (int64_t i = 0; i < sd->rows; i++) dot[i] = ozb_op_crt_dot_item(sd, e, v, i);
    return 0;
}

static int crt_residues(ozb_dev *d, const ozb_op_side *sd, const double *f1, const double *f2, const ozb_op_crt_res *rc,
                        int64_t kbp, int8_t *out, int64_t items)
{
    (void)d;
    for (int64_t w = 0; w < items; w++) ozb_op_crt_res_item(sd, f1, f2, rc, kbp, out, w);
    return 0;
}

static int crt_out(ozb_dev *d, const ozb_op_crt_out_args *g)
{
    (void)d;
    for (int64_t e = 0; e < g->mbb * g->nbb; e++) ozb_op_crt_out_item(g, e);
    return 0;
}

static int crt_quant(ozb_dev *d, const ozb_op_side *sd, const int32_t *e, int bits, int64_t kbp, int8_t *lo, int8_t *hi,
                     int64_t items)
{
    (void)d;
    for (int64_t w = 0; w < items; w++) ozb_op_crt_quant_item(sd, e, bits, kbp, lo, hi, w);
    return 0;
}

static int crt_bound_acc(ozb_dev *d, const int32_t *Ulo, const int32_t *Uhi, double *Ud, int first, int64_t ne)
{
    (void)d;
    for (int64_t e = 0; e < ne; e++) ozb_op_crt_bound_acc(Ulo, Uhi, Ud, first, e);
    return 0;
}

static int crt_zmax(ozb_dev *d, const double *Ud, int64_t mbb, int64_t nbb, int64_t i0, int64_t j0, const int32_t *eB,
                    const int32_t *cB, uint64_t *Z)
{
    (void)d;
    for (int64_t e = 0; e < mbb * nbb; e++) {
        const uint64_t b = ozb_op_crt_z_item(Ud, mbb, j0, eB, cB, e);
        if (b > Z[i0 + e % mbb]) Z[i0 + e % mbb] = b;
    }
    return 0;
}

static const ozb_dev_ops emu_ops = {
    .name = "emulated", .enter = enter, .leave = leave, .close = close_emu, .set_stream = set_stream,
    .alloc = alloc, .release = release, .copy2d = copy2d, .sync = sync_emu, .mem_free = mem_free, .zero = zero,
    .gemm = gemm, .gemm_batched = gemm_batched, .u8_to_s8_mod = u8_to_s8_mod, .u8_nibbles = u8_nibbles,
    .hi_lo = hi_lo, .skinny_i32 = skinny_i32, .crt_fold = crt_fold, .crt_recon = crt_recon, .scale = scale,
    .meta = meta, .split = split, .fused = fused, .colsums = colsums, .local_weights = local_weights, .vmax = vmax,
    .crit = crit, .sum = sum, .crt_rows = crt_rows, .crt_dots = crt_dots, .crt_residues = crt_residues,
    .crt_out = crt_out, .crt_quant = crt_quant, .crt_bound_acc = crt_bound_acc, .crt_zmax = crt_zmax,
};

const ozb_dev_ops *ozb_dev_emu_ops(void) { return &emu_ops; }
