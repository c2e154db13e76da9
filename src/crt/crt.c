/* Ozaki scheme II with INT8 residues (seed 002, Algorithm 1), on the CPU through oneDNN.
 *
 * 1. Scaling.  Row i of op(A) gets a power of two 2^ka_i, column j of op(B) 2^kb_j, and
 *    A'_il = trunc(a_il 2^ka_i), B'_jl = trunc(b_jl 2^kb_j) (integers, exact in binary64 as
 *    long as they stay below 2^53, and exact above it too: larger doubles are integers).
 *    Fast scaling by Cauchy-Schwarz: ka_i = alpha - c_i with 2^(c_i) >= ||a_i||_2 (computed
 *    with a rounding margin, the row prescaled by its maximum so that the choice depends on
 *    exponents only: scaling A by 2^p shifts every ka_i by exactly -p and the result by 2^p).
 *    Then |A'_i . B'_j| <= ||A'_i|| ||B'_j|| <= 2^(2 alpha) <= 2^(floor(log2 M) - 1) < M/2:
 *    the centred residue class determines it.
 * 2. Residues A' mod m_t in [-128, 127] (int8) and B' mod m_t in [0, m_t) (uint8), exactly.
 * 3. One exact u8 x s8 GEMM per modulus (|products| <= 255 * 128, 2^16 per block: int32).
 * 4. Reconstruction: c_t = C_t mod m_t in [0, m_t); X1 = sum c_t F1_t, X2 = sum c_t F2_t
 *    (int64, exact: each term < 2^52, at most 20 terms), X3 = sum c_t f3_t (binary64);
 *    frac(sum_t c_t y_t / m_t) = ((X1 mod 2^44) 2^44 + X2 + X3) 2^-88 mod 1 (crt_consts.h),
 *    centred, times M in double-double, rounded once: C' with a relative error below 2^-52.
 * 5. C = alpha 2^-(ka_i + kb_j) C' + beta C, in that fixed order.
 * Every step is a fixed function of the element's row and column: reproducible across
 * threads, blocking and workspace limits.
 *
 * Accuracy of the truncation: a 2^ka = A' + d with |d| < 1, so for element (i, j)
 *   |C_exact - 2^-(ka+kb) C'| <= 2^-(ka+kb) (||A'_i||_1 + ||B'_j||_1 + k)
 *                             <= ||a_i||_1 2^-kb_j + ||b_j||_1 2^-ka_i + k 2^-(ka_i+kb_j).
 * DOUBLE mode takes the fewest moduli for which this plus the reconstruction error, summed
 * over the row, is below a quarter of Algorithm 3's row bound 2 sqrt(k) u (|A||B|e)_i for every row
 * (canonical sums: the count is a function of the data only).
 *
 * Compiled with -ffp-contract=off; fma() is used explicitly where exact. */
#include "crt/crt.h"
#include "crt/crt_consts.h"
#include "crt/crt_gemm.h"
#include "core/format.h"
#include "cuda/products_cuda.h"
#include "core/special.h"
#include "../../kernels/ozb_crt_ops.h"
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>


/* 2^p x for any integer p, and alpha xv 2^p + beta c without spurious overflow: the shared
 * element operations (kernels/ozb_crt_ops.h), which the CUDA device engine runs too. */
static double scale2(double x, int p) { return ozb_op_scale2(x, p); }

/* Row statistics from the row's maximum bits and its sums (same arithmetic in both layouts:
 * x 2^-e by scale2, then s2 += x*x and s1 += |x| with l ascending). */
static void finish_scale(rowscale_t *r, int64_t mx, double s2, double s1)
{
    r->cz = INT32_MIN;
    const int e = r->e;
    (void)mx;
    /* ||x 2^-e||_2 <= sqrt(s2 (1 + (k+1) 2^-52)) (1 + 2^-52): margin 2^-40 covers k < 2^30 */
    const double n2 = sqrt(s2) * (1.0 + 0x1p-40);
    int c = ozb_ilogb(n2);
    if (n2 != ozb_pow2(c)) c++;                      /* 2^c >= n2 */
    r->c = e + c;
    r->l1 = s1 * (1.0 + 0x1p-40);
}

static int32_t exp_of(int64_t mx)
{
    if (mx == 0) return E_ZERO;
    if ((uint64_t)mx >= 0x7ff0000000000000ull) return E_BAD;
    double m; memcpy(&m, &mx, sizeof m);
    return ozb_ilogb(m) + 1;
}

static int usable(int32_t e) { return e != E_ZERO && e != E_BAD; }

/* Rows of a view: contiguous rows (cs == 1, or a single strided row) are walked row by
 * row; strided rows with contiguous columns (rs == 1) column by column, with per-row
 * accumulators, so that memory is read in order.  Each row's sums run over l ascending
 * either way: the same bits. */
static void row_scales(const ozb_view *v, int64_t rows, int64_t k, rowscale_t *rs, int nt)
{
    if (v->rs == 1 && v->cs != 1 && rows > 1) {
        const int64_t chunk = 256, nch = (rows + chunk - 1) / chunk;
        #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && rows * k >= 65536)
        for (int64_t ch = 0; ch < nch; ch++) {
            const int64_t i0 = ch * chunk, i1 = i0 + chunk < rows ? i0 + chunk : rows;
            int64_t mx[256];
            double s2[256], s1[256], sc[256];
            for (int64_t i = i0; i < i1; i++) { mx[i - i0] = 0; s2[i - i0] = 0.0; s1[i - i0] = 0.0; }
            for (int64_t l = 0; l < k; l++) {
                const double *col = v->p + l * v->cs;
                for (int64_t i = i0; i < i1; i++) {
                    int64_t b = (int64_t)(ozb_bits(col[i]) & 0x7fffffffffffffffull);
                    mx[i - i0] = b > mx[i - i0] ? b : mx[i - i0];
                }
            }
            double g2[256];
            for (int64_t i = i0; i < i1; i++) {
                rs[i].e = exp_of(mx[i - i0]);
                double g[2] = {0.0, 0.0};
                if (usable(rs[i].e)) ozb_pow2_pair(-rs[i].e, g);
                sc[i - i0] = g[0]; g2[i - i0] = g[1];      /* 0 for unusable rows: sums unused */
            }
            for (int64_t l = 0; l < k; l++) {
                const double *col = v->p + l * v->cs;
                for (int64_t i = i0; i < i1; i++) {
                    const double x = col[i] * sc[i - i0] * g2[i - i0];
                    s2[i - i0] += x * x;
                    s1[i - i0] += fabs(x);
                }
            }
            for (int64_t i = i0; i < i1; i++) {
                if (usable(rs[i].e)) finish_scale(&rs[i], mx[i - i0], s2[i - i0], s1[i - i0]);
                else { rs[i].c = 0; rs[i].l1 = 0.0; rs[i].cz = INT32_MIN; }
            }
        }
        return;
    }
    #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && rows * k >= 65536)
    for (int64_t i = 0; i < rows; i++) {
        int64_t mx = 0;
        for (int64_t l = 0; l < k; l++) {
            int64_t b = (int64_t)(ozb_bits(ozb_view_at(v, i, l)) & 0x7fffffffffffffffull);
            mx = b > mx ? b : mx;
        }
        rs[i].e = exp_of(mx);
        if (!usable(rs[i].e)) { rs[i].c = 0; rs[i].l1 = 0.0; rs[i].cz = INT32_MIN; continue; }
        double s2 = 0.0, s1 = 0.0, g[2];
        ozb_pow2_pair(-rs[i].e, g);
        for (int64_t l = 0; l < k; l++) {            /* |x 2^-e| < 1: no overflow, order fixed */
            const double x = ozb_view_at(v, i, l) * g[0] * g[1];
            s2 += x * x;
            s1 += fabs(x);
        }
        finish_scale(&rs[i], mx, s2, s1);
    }
}

/* Per-modulus constants of the residue kernel */
typedef struct { double m[OZB_CRT_MAXMOD], inv[OZB_CRT_MAXMOD], p26[OZB_CRT_MAXMOD]; int s; } resconst_t;

static void resconst_init(int s, resconst_t *rc)
{
    rc->s = s;
    for (int t = 0; t < s; t++) {
        rc->m[t] = (double)ozb_crt_moduli[t];
        rc->inv[t] = 1.0 / rc->m[t];
        rc->p26[t] = (double)(((int64_t)1 << 26) % ozb_crt_moduli[t]);
    }
}

/* Residues of n consecutive entries src[0..n) scaled by f1[i] f2[i] (or by f1[0] f2[0]
 * for all when uniform): out[t * tstride + i] in [-128, 127].
 * x = trunc(a 2^ka) (an integer below 2^62) = xh 2^26 + xl exactly (|xl| < 2^26, |xh| < 2^36),
 * y = xh (2^26 mod m) + xl is congruent to x and below 2^44 (one exact FMA), and
 * r = y - m RN(y/m) with RN by the 1.5 2^52 trick (|y/m| < 2^51; the quotient from y*inv is
 * off by at most one at a tie, which the two corrections absorb): exact integer steps. */
OZB_CLONES static void residues(const double *src, const double *f1, const double *f2, int uniform, int64_t n,
                     const resconst_t *rc, int8_t *out, int64_t tstride, double *xh, double *xl, int uns)
{
    for (int64_t i = 0; i < n; i++) {
        const double a = uniform ? src[i] * f1[0] * f2[0] : src[i] * f1[i] * f2[i];
        /* Rows with Inf/NaN (E_BAD) have f1 = f2 = 0, so a is NaN there: 0 instead (those
         * outputs come from ozb_special_combine), else the (int32_t) in the residue converts
         * NaN, which is undefined behaviour (found by tests/fuzz).  |a| < 2^62 otherwise. */
        ozb_op_crt_hl(a, &xh[i], &xl[i]);
    }
    for (int t = 0; t < rc->s; t++) {
        const double m = rc->m[t], inv = rc->inv[t], p = rc->p26[t];
        int8_t *o = out + t * tstride;
        for (int64_t i = 0; i < n; i++) o[i] = ozb_op_crt_residue(xh[i], xl[i], m, inv, p, uns);   /* uns: [0, m) as uint8 */
    }
}

/* The scaling exponent of a row for s moduli: FAST ka = alpha - c (||x'||_2 <= 2^alpha);
 * ACCURATE rows of op(A) may take more, ka = log2M - 1 - alpha - cz - e + 13 (crt_accurate),
 * whichever is larger: each alone keeps every |C'| below M/2.  Capped so that |x'| < 2^61. */
static int32_t row_ka(const rowscale_t *r, const ozb_crt_consts *cs)
{
    int32_t ka = cs->alpha - r->c;
    if (r->cz != INT32_MIN) {
        const int32_t acc = cs->log2M - 1 - cs->alpha - r->cz - r->e + 13;
        if (acc > ka) ka = acc;
        if (ka > 61 - r->e) ka = 61 - r->e;
    }
    return ka;
}

/* The scaling factors of every usable row: f1 f2 = 2^ka exactly (see scale2) */
void ozb_crt_set_factors(rowscale_t *rs, int64_t rows, const ozb_crt_consts *cs)
{
    for (int64_t i = 0; i < rows; i++) {
        if (!usable(rs[i].e)) { rs[i].f1 = rs[i].f2 = 0.0; rs[i].ka = 0; continue; }
        double g[2];
        rs[i].ka = row_ka(&rs[i], cs);
        ozb_pow2_pair(rs[i].ka, g);
        rs[i].f1 = g[0];
        rs[i].f2 = g[1];
    }
}

/* Residues of rows r0..r0+rows-1 over l0..l0+kb-1 of a view.  Row layout (rows contiguous,
 * or gathered): out[(t*rows + i)*kb + l]; column layout (v->rs == 1, rows > 1):
 * out[(t*kb + l)*rows + i].  Returns 1 for the column layout. */
static int make_residues(const ozb_view *v, const rowscale_t *rs, int64_t r0, int64_t rows, int64_t l0,
                         int64_t kb, const resconst_t *rc, int8_t *out, double *tmp, int nt, int uns)
{
    if (v->rs == 1 && v->cs != 1 && rows > 1) {
        /* per column: the rows' factors as arrays */
        double *f1 = tmp, *f2 = tmp + rows;
        for (int64_t i = 0; i < rows; i++) { f1[i] = rs[r0 + i].f1; f2[i] = rs[r0 + i].f2; }
        #pragma omp parallel num_threads(nt) if(nt > 1 && rows * kb >= 65536)
        {
            double *xh = tmp + 2 * rows + (int64_t)omp_get_thread_num() * 2 * rows, *xl = xh + rows;
            #pragma omp for schedule(static)
            for (int64_t l = 0; l < kb; l++)
                residues(v->p + r0 + (l0 + l) * v->cs, f1, f2, 0, rows, rc, out + l * rows, kb * rows, xh, xl, uns);
        }
        return 1;
    }
    #pragma omp parallel num_threads(nt) if(nt > 1 && rows * kb >= 65536)
    {
        double *buf = tmp + (int64_t)omp_get_thread_num() * 3 * kb, *xh = buf + kb, *xl = xh + kb;
        #pragma omp for schedule(static)
        for (int64_t i = 0; i < rows; i++) {
            const double *src = v->p + (r0 + i) * v->rs + l0 * v->cs;
            if (v->cs != 1) { for (int64_t l = 0; l < kb; l++) buf[l] = src[l * v->cs]; src = buf; }
            residues(src, &rs[r0 + i].f1, &rs[r0 + i].f2, 1, kb, rc, out + i * kb, rows * kb, xh, xl, uns);
        }
    }
    return 0;
}

/* ACCURATE scaling (seed 002's second strategy): one extra exact GEMM bounds |A||B|.
 * Ahat = ceil(|a| 2^(6 - e_i)) <= 64 (int8), Bhat = ceil(|b| 2^(7 - e_j)) <= 128 (uint8; a nonzero
 * entry whose scaled copy underflows counts 1), so U'_ij = sum_l Bhat_jl Ahat_il >=
 * 2^(13 - e_i - e_j) (|A||B|)_ij, exact in int32 per 2^16-block (products <= 2^13).  With
 * kb_j = alpha - c_j: |C'_ij| <= 2^(ka_i + e_i - 13 + alpha) Z_i, Z_i = max_j U'_ij 2^(e_j - c_j),
 * so ka_i = log2M - 1 - alpha - ceil(log2 Z_i) - e_i + 13 keeps every |C'| below M/2 (row_ka).
 * Sets ra[i].cz (tiled under the workspace limit; the maxima do not depend on the tiling);
 * returns 0 on allocation failure. */
static int crt_accurate(ozblas_handle_t h, const ozb_problem *pr, rowscale_t *ra, const rowscale_t *rb, int nt)
{
    const int64_t m = pr->m, n = pr->n, k = pr->k, kb = k < OZB_CRT_KBLOCK ? k : OZB_CRT_KBLOCK, nkb = (k + kb - 1) / kb;
    /* tiles under the workspace limit (the bound is the same whatever the tiling) */
    int64_t mb, nb;
    ozb_crt_tiles(ozb_workspace_limit(h), m, n, (double)kb, 12.0, 0.0, 0.0, &mb, &nb);
    int8_t *Ah = ozb_buf_get(h, OZB_BUF_SA, (size_t)mb * (size_t)kb + 64);
    uint8_t *Bh = ozb_buf_get(h, OZB_BUF_SB, (size_t)nb * (size_t)kb + 64);
    int32_t *U = ozb_buf_get(h, OZB_BUF_P, sizeof(int32_t) * (size_t)mb * (size_t)nb + 64);
    double *Ud = ozb_buf_get(h, OZB_BUF_TERMS, sizeof(double) * (size_t)mb * (size_t)nb + 64);
    double *Z = ozb_buf_get(h, OZB_BUF_LAZY, sizeof(double) * (size_t)m + 64);
    if (!Ah || !Bh || !U || !Ud || !Z) return 0;
    for (int64_t i = 0; i < m; i++) Z[i] = 0.0;
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0;
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && (mbb + nbb) * kbb >= 65536)
                for (int64_t r = 0; r < mbb + nbb; r++) {
                    const int isA = r < mbb;
                    const int64_t row = isA ? i0 + r : j0 + (r - mbb);
                    const rowscale_t *sc = isA ? &ra[row] : &rb[row];
                    const ozb_view *v = isA ? &pr->a : &pr->b;
                    double g[2] = {0.0, 0.0};
                    if (usable(sc->e)) ozb_pow2_pair((isA ? 6 : 7) - sc->e, g);
                    for (int64_t l = 0; l < kbb; l++) {
                        const double a = fabs(ozb_view_at(v, row, l0 + l));
                        double q = usable(sc->e) ? ceil(a * g[0] * g[1]) : 0.0;
                        q = (a != 0.0 && q == 0.0 && usable(sc->e)) ? 1.0 : q;
                        if (isA) Ah[(row - i0) * kbb + l] = (int8_t)(int32_t)q;
                        else Bh[(row - j0) * kbb + l] = (uint8_t)(int32_t)q;
                    }
                }
                if (ozb_crt_gemm(h->dev, Bh, 0, Ah, 0, mbb, nbb, kbb, U, 0, nt, ozb_int8_exact_cpu(h))) return -1;   /* exact (mod 0) */
                for (int64_t e = 0; e < mbb * nbb; e++) Ud[e] = (kk ? Ud[e] : 0.0) + (double)U[e];   /* exact below 2^53 */
            }
            #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && mbb * nbb >= 65536)
            for (int64_t il = 0; il < mbb; il++) {
                double z = Z[i0 + il];
                for (int64_t jl = 0; jl < nbb; jl++) {
                    const rowscale_t *rj = &rb[j0 + jl];
                    if (!usable(rj->e)) continue;
                    const double x = Ud[jl * mbb + il] * ozb_pow2(rj->e - rj->c);   /* exact: e_j - c_j in [-6, 0] */
                    z = x > z ? x : z;
                }
                Z[i0 + il] = z;                        /* a max: the tiling does not matter */
            }
        }
    }
    for (int64_t i = 0; i < m; i++) {
        ra[i].cz = INT32_MIN;
        if (!usable(ra[i].e) || Z[i] == 0.0) continue;
        int c = ozb_ilogb(Z[i]);
        if (Z[i] != ozb_pow2(c)) c++;
        ra[i].cz = c;
    }
    return 1;
}

/* DOUBLE mode: the fewest moduli whose truncation and reconstruction errors, summed over
 * each row, stay below Algorithm 3's row bound; 0 when even OZB_CRT_MAXMOD do not. */
int32_t ozb_crt_col_exp(const rowscale_t *rb, int64_t n)
{
    int32_t EB = INT32_MIN;
    for (int64_t j = 0; j < n; j++) if (rb[j].e != E_ZERO && rb[j].e != E_BAD && rb[j].e > EB) EB = rb[j].e;
    return EB;
}

static int choose_moduli(const ozb_problem *pr, const rowscale_t *ra, const rowscale_t *rb, int nt, double *v)
{
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    /* B's quantities relative to 2^EB, EB its largest column exponent */
    const int32_t EB = ozb_crt_col_exp(rb, n);
    if (EB == INT32_MIN) return 2;                  /* op(B) is zero: every moduli count is exact */
    /* v_l = sum_j |b_jl| 2^-EB (the weights of Algorithm 3), fixed order */
    double gB[2];
    ozb_pow2_pair(-EB, gB);
    for (int64_t l = 0; l < k; l++) v[l] = 0.0;
    if (pr->b.cs == 1 || n == 1) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t l = 0; l < k; l++) {
                const double b = fabs(ozb_view_at(&pr->b, j, l));
                v[l] += b <= DBL_MAX ? b * gB[0] * gB[1] : 0.0;
            }
    } else {                                        /* the same sums, l outer (memory order) */
        for (int64_t l = 0; l < k; l++)
            for (int64_t j = 0; j < n; j++) {
                const double b = fabs(ozb_view_at(&pr->b, j, l));
                v[l] += b <= DBL_MAX ? b * gB[0] * gB[1] : 0.0;
            }
    }
    /* dot_i = (|A||B|e)_i 2^-(e_i + EB), l ascending for each row (both loop orders) */
    double *dot = v + k;
    if (pr->a.rs == 1 && pr->a.cs != 1 && m > 1) {
        const int64_t chunk = 256, nch = (m + chunk - 1) / chunk;
        #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && m * k >= 65536)
        for (int64_t ch = 0; ch < nch; ch++) {
            const int64_t i0 = ch * chunk, i1 = i0 + chunk < m ? i0 + chunk : m;
            double g1[256], g2[256];
            for (int64_t i = i0; i < i1; i++) {
                double g[2] = {0.0, 0.0};
                if (usable(ra[i].e)) ozb_pow2_pair(-ra[i].e, g);
                g1[i - i0] = g[0]; g2[i - i0] = g[1];
                dot[i] = 0.0;
            }
            for (int64_t l = 0; l < k; l++) {
                const double *col = pr->a.p + l * pr->a.cs;
                for (int64_t i = i0; i < i1; i++) dot[i] += fabs(col[i] * g1[i - i0] * g2[i - i0]) * v[l];
            }
        }
    } else {
        #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && m * k >= 65536)
        for (int64_t i = 0; i < m; i++) {
            double g[2] = {0.0, 0.0}, d = 0.0;
            if (usable(ra[i].e)) ozb_pow2_pair(-ra[i].e, g);
            for (int64_t l = 0; l < k; l++) d += fabs(ozb_view_at(&pr->a, i, l) * g[0] * g[1]) * v[l];
            dot[i] = d;
        }
    }
    return ozb_crt_select(m, n, k, ra, rb, EB, dot, nt);
}

int ozb_crt_select(int64_t m, int64_t n, int64_t k, const rowscale_t *ra, const rowscale_t *rb, int32_t EB,
                   const double *dot, int nt)
{
    double SB1 = 0.0, SBl1 = 0.0;
    for (int64_t j = 0; j < n; j++) {
        if (rb[j].e == E_ZERO || rb[j].e == E_BAD) continue;
        SB1 += scale2(1.0, rb[j].c - EB);
        SBl1 += scale2(rb[j].l1, rb[j].e - EB);
    }
    SB1 += (double)n * 0x1p-1000;                   /* what underflowed above, rounded up */
    SBl1 += (double)n * 0x1p-1000;
    double a2s[OZB_CRT_MAXMOD + 1];                 /* 2^-alpha for s moduli */
    ozb_crt_consts css[OZB_CRT_MAXMOD + 1];
    for (int q = 2; q <= OZB_CRT_MAXMOD; q++) {
        ozb_crt_consts_init(q, &css[q]);
        a2s[q] = ozb_pow2(-css[q].alpha);
    }
    int need = 2;
    #pragma omp parallel for num_threads(nt) schedule(static) reduction(max:need) if(nt > 1 && m >= 1024)
    for (int64_t i = 0; i < m; i++) {
        const rowscale_t *r = &ra[i];
        if (r->e == E_ZERO || r->e == E_BAD) continue;
        /* a quarter of Algorithm 3's 2 sqrt(k) u: the bound above is a worst case that the
         * truncation errors approach within a small factor, while DGEMM's actual errors stay far
         * below 2 sqrt(k) u |A||B|; at a quarter the chosen count gives max errors below
         * OpenBLAS's on the phi generator (measured: n = 512..2048, phi = 0..1, 15 moduli). */
        const double rhs = 0.5 * sqrt((double)k) * 0x1p-53 * dot[i] * (1.0 - 0x1p-40);
        int s = 2;
        for (; s <= OZB_CRT_MAXMOD; s++) {
            const double a2 = a2s[s];
            const double qa = scale2(1.0, -row_ka(r, &css[s]) - r->e);   /* 2^-ka_i, row units */
            const double trunc_err = a2 * r->l1 * SB1 + qa * SBl1 + (double)k * a2 * qa * SB1;
            /* the one rounding of C' (a value known to ~2^-100) is the counterpart of DGEMM's own
             * rounding of its result, as alpha and beta are: only the truncation is charged */
            if (trunc_err <= rhs) break;
        }
        need = s > need ? s : need;
    }
    return need > OZB_CRT_MAXMOD ? 0 : need;
}

/* Reconstruction of ne elements from their residue products C32[t*ne + e] (t < s):
 * out[e] = C'_e * 2^-88 (C' = the product of the scaled integers), see the header comment.
 * Accumulators per element, all exact integers in binary64: with F = Fh 2^22 + Fl,
 * sum_t c_t Fh and sum_t c_t Fl are below 20 * 2^8 * 2^22 < 2^35. */
/* The reconstruction's constants (kernels/ozb_kernel_ops.h), for this loop and the device's. */
void ozb_crt_recon_consts(const ozb_crt_consts *cs, ozb_op_crt_consts *k)
{
    k->s = cs->s;
    for (int t = 0; t < cs->s; t++) {
        k->F1h[t] = (double)(cs->F1[t] >> 22); k->F1l[t] = (double)(cs->F1[t] & ((1 << 22) - 1));
        k->F2h[t] = (double)(cs->F2[t] >> 22); k->F2l[t] = (double)(cs->F2[t] & ((1 << 22) - 1));
        k->f3[t] = cs->f3[t];
        k->md[t] = (double)ozb_crt_moduli[t]; k->iv[t] = 1.0 / k->md[t];
    }
    k->Mh = cs->Mh; k->Ml = cs->Ml;
}

/* out[e] = C' of element e: ozb_op_crt_recon, vectorized in chunks (the same operations in
 * the same order per element, so the device's kernel gives the same bits). */
OZB_CLONES static void reconstruct(const int32_t *C32, int64_t ne, const ozb_crt_consts *cs, double *out, int nt)
{
    ozb_op_crt_consts kc;
    ozb_crt_recon_consts(cs, &kc);
    const double *F1h = kc.F1h, *F1l = kc.F1l, *F2h = kc.F2h, *F2l = kc.F2l, *md = kc.md, *iv = kc.iv;
    const double Mh = kc.Mh, Ml = kc.Ml;
    const int64_t chunk = 512, nch = (ne + chunk - 1) / chunk;
    #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && ne >= 4096)
    for (int64_t ch = 0; ch < nch; ch++) {
        const int64_t e0 = ch * chunk, e1 = e0 + chunk < ne ? e0 + chunk : ne, w = e1 - e0;
        double a1h[512], a1l[512], a2h[512], a2l[512], a3[512];
        for (int64_t q = 0; q < w; q++) { a1h[q] = a1l[q] = a2h[q] = a2l[q] = a3[q] = 0.0; }
        for (int t = 0; t < cs->s; t++) {
            const int32_t *src = C32 + t * ne + e0;
            const double m = md[t], inv = iv[t], f1h = F1h[t], f1l = F1l[t], f2h = F2h[t], f2l = F2l[t], f3 = kc.f3[t];
            for (int64_t q = 0; q < w; q++) {
                const double c = ozb_crt_mod((double)src[q], m, inv);
                a1h[q] += c * f1h; a1l[q] += c * f1l;
                a2h[q] += c * f2h; a2l[q] += c * f2l;
                a3[q] += c * f3;
            }
        }
        for (int64_t q = 0; q < w; q++) {
            /* X1 = a1h 2^22 + a1l, X2 = a2h 2^22 + a2l (exact int64); the fraction
             * ((X1 mod 2^44) 2^44 + X2) 2^-88 mod 1 = (hi 2^44 + lo) 2^-88 with hi, lo < 2^44 */
            const int64_t X1 = ((int64_t)a1h[q] << 22) + (int64_t)a1l[q];
            const int64_t X2 = ((int64_t)a2h[q] << 22) + (int64_t)a2l[q];
            const int64_t M44 = ((int64_t)1 << 44) - 1;
            int64_t hi = ((X1 & M44) + (X2 >> 44)) & M44;
            const int64_t lo = X2 & M44;
            if (hi >= ((int64_t)1 << 43)) hi -= (int64_t)1 << 44;   /* centred: C' in (-M/2, M/2) */
            /* v = hi 2^44 + lo + a3 (units of 2^-88): vh exact, vl rounds (|vl| < 2^45) */
            const double vh = (double)hi * 0x1p44, vl = (double)lo + a3[q];
            /* y = RN-ish(v M): TwoProduct of the leading part, the rest to ~2^-100 */
            const double ph = vh * Mh, pe = fma(vh, Mh, -ph);
            out[e0 + q] = ph + (pe + (vh * Ml + vl * Mh));
        }
    }
}

ozblas_status_t ozb_crt_run(ozblas_handle_t h, const ozb_problem *pr, int nt)
{
    /* the residue GEMMs need an exact INT8 product: oneDNN on the CPU, cuBLAS on a device */
    if (!ozb_format_for(h, OZBLAS_ENGINE_INT8)) return OZBLAS_STATUS_NOT_SUPPORTED;
    if (!isfinite(pr->alpha)) return OZBLAS_STATUS_NOT_SUPPORTED;   /* needs the exact sign */
    const double t0 = ozb_now();
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    rowscale_t *ra = ozb_buf_get(h, OZB_BUF_WA, sizeof(rowscale_t) * (size_t)m);
    rowscale_t *rb = ozb_buf_get(h, OZB_BUF_WB, sizeof(rowscale_t) * (size_t)n);
    if (!ra || !rb) return OZBLAS_STATUS_ALLOC_FAILED;
    row_scales(&pr->a, m, k, ra, nt);
    row_scales(&pr->b, n, k, rb, nt);
    if (h->crt_scaling == OZBLAS_CRT_SCALING_ACCURATE) {
        const int acc = crt_accurate(h, pr, ra, rb, nt);
        if (acc <= 0) return acc < 0 ? OZBLAS_STATUS_EXECUTION_FAILED : OZBLAS_STATUS_ALLOC_FAILED;
    }
    int s;
    if (h->run_mode == OZBLAS_MODE_FIXED) {
        s = h->split_count < 2 ? 2 : h->split_count > OZB_CRT_MAXMOD ? OZB_CRT_MAXMOD : h->split_count;
    } else {
        double *v = ozb_buf_get(h, OZB_BUF_CRIT, sizeof(double) * (size_t)(k + m));
        if (!v) return OZBLAS_STATUS_ALLOC_FAILED;
        s = choose_moduli(pr, ra, rb, nt, v);
        if (s == 0) return OZBLAS_STATUS_NOT_SUPPORTED;
        /* k < 32: a row of a few entries keeps its small ones only to 2^(c - alpha), several
         * ulps relative where one product dominates an element (measured: 30x20x7, phi = 1,
         * just above OpenBLAS's componentwise error with 15 moduli).  Such GEMMs are cheap:
         * take 16 moduli (alpha = 61), which also makes k = 1 exact.  Shape-only: reproducible. */
        if (k < 32 && s < 16) s = 16;
    }
    ozb_crt_consts cs;
    ozb_crt_consts_init(s, &cs);
    resconst_t rc;
    resconst_init(s, &rc);
    ozb_crt_set_factors(ra, m, &cs);
    ozb_crt_set_factors(rb, n, &cs);
    const double t1 = ozb_now();

    /* tiles mb x nb under the workspace limit: residues s (mb + nb) kb bytes, the int32
     * products of every modulus (4 s bytes per element), the reconstructed values (8) */
    const int64_t kb = k < OZB_CRT_KBLOCK ? k : OZB_CRT_KBLOCK, nkb = (k + kb - 1) / kb;
    const size_t limit = ozb_workspace_limit(h);
    int64_t mb, nb;
    ozb_crt_tiles(limit, m, n, (double)s * (double)kb, 4.0 * s + 12.0, 32.0 * (nt + 1), 24.0 * (double)kb * (nt + 1), &mb, &nb);
    int8_t *resA = ozb_buf_get(h, OZB_BUF_SA, (size_t)s * (size_t)mb * (size_t)kb + 64);
    int8_t *resB = ozb_buf_get(h, OZB_BUF_SB, (size_t)s * (size_t)nb * (size_t)kb + 64);
    int32_t *C32 = ozb_buf_get(h, OZB_BUF_P, sizeof(int32_t) * ((size_t)s + 1) * (size_t)mb * (size_t)nb + 64);
    double *val = ozb_buf_get(h, OZB_BUF_TERMS, sizeof(double) * (size_t)mb * (size_t)nb + 64);
    double *tmp = ozb_buf_get(h, OZB_BUF_SCRATCH, sizeof(double) * (3 * (size_t)kb + 4 * (size_t)(mb > nb ? mb : nb)) * (size_t)(nt + 1));
    if (!resA || !resB || !C32 || !val || !tmp) return OZBLAS_STATUS_ALLOC_FAILED;
    double tres = 0.0, tmul = 0.0, tsum = 0.0;
    int64_t calls = 0;
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0, ne = mbb * nbb;
            int32_t *Ctmp = C32 + (int64_t)s * ne;       /* k-blocks after the first */
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                double ta = ozb_now();
                const int colB = make_residues(&pr->b, rb, j0, nbb, l0, kbb, &rc, resB, tmp, nt, 1);
                const int colA = make_residues(&pr->a, ra, i0, mbb, l0, kbb, &rc, resA, tmp, nt, 0);
                double tb = ozb_now();
                tres += tb - ta;
                for (int t = 0; t < s; t++) {
                    if (h->dev) {                /* products, folds and C' stay on the device */
                        if (ozb_crt_gemm_cuda_acc(h->dev, (const uint8_t *)resB + (size_t)t * nbb * kbb, colB,
                                                  resA + (size_t)t * mbb * kbb, colA, mbb, nbb, kbb, s, t, kk > 0,
                                                  ozb_crt_moduli[t])) return OZBLAS_STATUS_EXECUTION_FAILED;
                        calls++;
                        continue;
                    }
                    int32_t *dst = kk == 0 ? C32 + (int64_t)t * ne : Ctmp;
                    if (ozb_crt_gemm(NULL, (const uint8_t *)resB + (size_t)t * nbb * kbb, colB, resA + (size_t)t * mbb * kbb, colA,
                                     mbb, nbb, kbb, dst, ozb_crt_moduli[t], nt, ozb_int8_exact_cpu(h))) return OZBLAS_STATUS_EXECUTION_FAILED;
                    calls++;
                    if (kk > 0) ozb_crt_fold(C32 + (int64_t)t * ne, dst, ne, ozb_crt_moduli[t]);   /* a later k-block, modulo m_t */
                }
                tmul += ozb_now() - tb;
            }
            double te = ozb_now();
            if (h->dev) {
                ozb_op_crt_consts kc;
                ozb_crt_recon_consts(&cs, &kc);
                if (ozb_crt_recon_cuda(h->dev, &kc, ne, val)) return OZBLAS_STATUS_EXECUTION_FAILED;
            } else {
                reconstruct(C32, ne, &cs, val, nt);
            }
            /* the output: C = alpha 2^-(ka_i + kb_j + 88) C' + beta C, column by column */
            const int use_c = pr->beta != 0.0;
            #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && ne >= 4096)
            for (int64_t jl = 0; jl < nbb; jl++) {
                const int64_t gj = j0 + jl;
                const rowscale_t *rj = &rb[gj];
                const double *vcol = val + jl * mbb;
                for (int64_t il = 0; il < mbb; il++) {
                    const int64_t gi = i0 + il;
                    double *cij = pr->c + gi * pr->crs + gj * pr->ccs;
                    const double cval = use_c ? *cij : 0.0;
                    const rowscale_t *ri = &ra[gi];
                    if (ri->e == E_BAD || rj->e == E_BAD || (use_c && (!isfinite(pr->beta) || !isfinite(cval)))) {
                        /* Inf/NaN in the row or column (then the dot product is not finite) or
                         * in beta, C: the IEEE result of CONTRACT §4 */
                        const int sclass = (ri->e == E_BAD || rj->e == E_BAD) ? ozb_dot_class(&pr->a, gi, &pr->b, gj, k) : OZB_CLASS_FINITE;
                        int fin;
                        const double r = ozb_special_combine(pr->alpha, sclass, 0, pr->beta, cval, use_c, &fin);
                        if (!fin || sclass != OZB_CLASS_FINITE) { *cij = r; continue; }
                    }
                    double xv = 0.0;
                    int p = 0;
                    if (usable(ri->e) && usable(rj->e)) { p = -(ri->ka + rj->ka) - 88; xv = vcol[il]; }
                    const double r = ozb_op_crt_out(xv, p, pr->alpha, pr->beta, cval, use_c);   /* kernels/ozb_crt_ops.h */
                    *cij = r;
                }
            }
            tsum += ozb_now() - te;
        }
    }
    ozblas_info_t *info = &h->info;
    memset(info, 0, sizeof *info);
    info->mode = h->mode;
    info->summation = OZBLAS_SUM_DOUBLE;
    info->engine = h->engine;
    info->bits_per_slice = cs.alpha;            /* bits kept per row/column by the scaling */
    info->slices_a = info->slices_b = info->split_count = s;   /* moduli */
    info->gemm_calls = calls;
    info->slice_products = calls;
    info->gemm_flops = 2.0 * (double)m * (double)n * (double)k * s;
    info->blocks = ((m + mb - 1) / mb) * ((n + nb - 1) / nb);
    info->block_m = mb; info->block_n = nb; info->block_k = kb;
    info->seconds_split = (t1 - t0) + tres;
    info->seconds_multiply = tmul;
    info->seconds_sum = tsum;
    return OZBLAS_STATUS_SUCCESS;
}
