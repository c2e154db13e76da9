/* DTBSV: the solve rule of CONTRACT §6 over the band alone, every sum correctly rounded: each
 * block's updates from the positions before it by the band strips (eft/eft_band.h), eight
 * positions at a time; the in-block sums by the certified short residual
 * (exact/residual.h); what either leaves by the exact sums (ozb_band_sum). */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/fpenv.h"
#include "eft/eft_band.h"
#include "exact/residual.h"
#include "blas2/band_sum.h"
#include <math.h>
#include <string.h>

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* DTBSV's op(T)(i, j) = T(i, j) or T(j, i) (t), T(r, cc) at A[cc (lda - 1) + r + off]: its
 * address; along a row of op(T), j moving by dj, the address moves by dj (t) or dj (lda - 1) */
static inline int64_t tb_at(int t, int64_t lda, int64_t off, int64_t i, int64_t j)
{
    return t ? i * (lda - 1) + j + off : j * (lda - 1) + i + off;
}

/* One DTBSV problem: op(T)(i, j) at A[tb_at(t, lda, off, i, j)], a row's address moving by step
 * along it; positions p in solve order (row i = p, or n - 1 - p where op(T) is upper: low = 0) */
typedef struct {
    const double *A;
    int64_t lda, n, k, off, dj, step;
    int t, low, unit;
    double *x0;
    int64_t incx;
    double *a, *b;              /* a row's terms (k + 2 each) */
} tbsv_t;

static int64_t row_of(const tbsv_t *v, int64_t p) { return v->low ? p : v->n - 1 - p; }
static double *x_at(const tbsv_t *v, int64_t p) { return &v->x0[row_of(v, p) * v->incx]; }
static double diag_of(const tbsv_t *v, int64_t p) { return v->A[row_of(v, p) * v->lda + v->off]; }

/* DTBSV's update of block s (its positions p in [s, s + OZBLAS_TRSM_BLOCK) with a term before
 * it, p < s + k): x_i := RN(x_i - sum_{q in [p - k, s)} op(T)(i, j) x_j) for eight positions at
 * a time by ozb_eft_band_strip (i, j the positions' rows, row_of), P, xs and lsb its scratch.
 * Returns the positions it made (bit p - s); the others are left as they were, to the exact
 * sums. */
static unsigned block_update(const tbsv_t *v, int64_t s, double *P, double *xs, int32_t *lsb)
{
    const int64_t e = min64(min64(s + OZBLAS_TRSM_BLOCK, v->n), s + v->k), Q0 = max64(0, s - v->k), w = s - Q0;
    unsigned done = 0;
    for (int64_t q = Q0; q < s; q++) xs[q - Q0] = *x_at(v, q);
    for (int64_t p0 = s; p0 < e; p0 += 8) {
        const int rows = e - p0 < 8 ? (int)(e - p0) : 8;
        memset(P, 0, sizeof(double) * 8 * (size_t)w);
        for (int r = 0; r < rows; r++) {
            const int64_t p = p0 + r, q0 = max64(0, p - v->k);
            int64_t ad = tb_at(v->t, v->lda, v->off, row_of(v, p), row_of(v, q0));
            for (int64_t q = q0; q < s; q++, ad += v->step) P[8 * (q - Q0) + r] = v->A[ad];
        }
        const unsigned left = ozb_eft_band_strip(P, xs, w, rows, -1.0, 1.0, x_at(v, p0), v->dj * v->incx, lsb);
        done |= (((1u << rows) - 1) & ~left) << (p0 - s);
    }
    return done;
}

/* Position p's part (0: the terms before its block, at s; 1: those in it):
 *     x_i := RN(x_i - sum_q op(T)(i, j_q) x_{j_q})
 * by the exact sums over the band's terms; a part with no term leaves x_i, a finite zero as +0
 * (the exact sums' zero, ozb_exact_zero_products' rule), and the first position has none. */
static ozblas_status_t part_sum(ozblas_handle_t h, const tbsv_t *v, int64_t s, int64_t p, int part)
{
    const int64_t i = row_of(v, p);
    const int64_t q0 = part == 0 ? max64(0, p - v->k) : max64(s, p - v->k), q1 = part == 0 ? min64(s, p) : p;
    double *xi = &v->x0[i * v->incx];
    if (p == 0) return OZBLAS_STATUS_SUCCESS;
    if (q0 >= q1 && isfinite(*xi)) {
        if (*xi == 0.0) *xi = 0.0;
        return OZBLAS_STATUS_SUCCESS;
    }
    int64_t c = 0;
    v->a[c] = 1.0;
    v->b[c++] = *xi;
    const int64_t j0 = row_of(v, q0);
    int64_t ad = tb_at(v->t, v->lda, v->off, i, j0);
    const double *xj = v->x0 + j0 * v->incx;
    for (int64_t q = q0; q < q1; q++, ad += v->step, xj += v->dj * v->incx) {
        v->a[c] = -v->A[ad];
        v->b[c++] = *xj;
    }
    return ozb_band_sum(h, v->a, v->b, c, 1.0, 0.0, xi);
}

/* The in-block parts of the block at s and the divisions, position by position: each by
 * ozb_residual_short where it certifies (RN(exact): the exact sums' value, since it is nonzero
 * and finite), else by part_sum on x itself.  The first position's part has no term (part_sum's
 * rule; the very first position keeps x_i). */
static ozblas_status_t block_in(ozblas_handle_t h, const tbsv_t *v, int64_t s, int64_t bs)
{
    double xb[OZBLAS_TRSM_BLOCK];
    for (int64_t r = 0; r < bs; r++) {
        double *xi = x_at(v, s + r), y;
        const int64_t q0 = max64(s, s + r - v->k);   /* the in-block terms: q0 .. s + r - 1 */
        const double *t0 = &v->A[tb_at(v->t, v->lda, v->off, row_of(v, s + r), row_of(v, q0))];
        if (r > 0 && ozb_residual_short(*xi, t0, v->step, xb + (q0 - s), s + r - q0, &y)) *xi = y;
        else {
            const ozblas_status_t st = part_sum(h, v, s, s + r, 1);
            if (st != OZBLAS_STATUS_SUCCESS) return st;
        }
        if (!v->unit) *xi /= diag_of(v, s + r);
        xb[r] = *xi;
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* DTBSV: the rule of CONTRACT §6 with the band's zeros left out of each exact sum (the sums,
 * and so every rounding, are those of DTRSV on the full matrix, correctly rounded) */
ozblas_status_t ozblas_dtbsv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, int64_t k, const double *A, int64_t lda, double *x, int64_t incx)
{
    ozblas_status_t st = ozb_tb_args(h, uplo, trans, diag, n, k, A, lda, x, incx);
    if (st != OZBLAS_STATUS_SUCCESS || n == 0) return st;
    ozb_info_reset(h);
    const int64_t kk = k < n ? k : n;          /* a row's terms: at most min(k, n - 1) */
    double *buf = ozb_buf_get(h, OZB_BUF_SHAPE_P, sizeof(double) * (2 * (size_t)(kk + 2) + 14 * (size_t)(kk + 1)));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    const int lower = uplo == OZBLAS_LOWER, t = trans == OZBLAS_OP_T, low = lower != t;
    const int64_t off = lower ? 0 : k, dj = low ? 1 : -1, step = t ? dj : dj * (lda - 1);
    double *x0 = ozb_vec0_mut(x, n, incx), *P = buf + 2 * (kk + 2), *xs = P + 8 * (kk + 1);
    int32_t *lsb = (int32_t *)(xs + kk + 1);             /* 9 (kk + 1) of them in 5 (kk + 1) doubles */
    const tbsv_t v = { A, lda, n, k, off, dj, step, t, low, diag == OZBLAS_UNIT, x0, incx, buf, buf + kk + 2 };
    /* the strips where the error-free kernels are offered; the certified in-block residuals
     * with them, where the band has terms in a block (k >= 1) */
    const int strips = ozb_eft_band_applies(h, -1.0, 1.0), in_block = strips && k >= 1;
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    for (int64_t s = 0; s < n && st == OZBLAS_STATUS_SUCCESS; s += OZBLAS_TRSM_BLOCK) {
        const int64_t bs = n - s < OZBLAS_TRSM_BLOCK ? n - s : OZBLAS_TRSM_BLOCK;
        /* the positions' terms before the block: eight at a time by the band strips, what they
         * leave by the exact sums */
        const unsigned done0 = s > 0 && strips ? block_update(&v, s, P, xs, lsb) : 0;
        for (int64_t p = s; p < s + bs && s > 0 && st == OZBLAS_STATUS_SUCCESS; p++)
            if (!(done0 >> (p - s) & 1)) st = part_sum(h, &v, s, p, 0);
        if (st != OZBLAS_STATUS_SUCCESS) break;
        if (in_block) {
            st = block_in(h, &v, s, bs);
            continue;
        }
        for (int64_t p = s; p < s + bs && st == OZBLAS_STATUS_SUCCESS; p++)
            if ((st = part_sum(h, &v, s, p, 1)) == OZBLAS_STATUS_SUCCESS && !v.unit) *x_at(&v, p) /= diag_of(&v, p);
    }
    ozb_fpenv_leave(env, changed);
    return st;
}
