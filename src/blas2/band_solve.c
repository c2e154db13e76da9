/* DTBSV: the solve rule of CONTRACT §6 over the band alone, every sum correctly rounded.  One
 * pass in solve order, each position's parts (the terms before its block, then those in it) by
 * the certified short residual (exact/residual.h): a band of 4 to 8 terms a row by columns of
 * op(T) in vector lanes (exact/band_cols.c), others row by row with the newest value in a
 * register; where the band is wider than a block, each block's parts before it by the band
 * strips (eft/eft_band.h), eight positions at a time; what any of them leaves by the exact sums
 * (ozb_band_sum). */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/fpenv.h"
#include "eft/eft_band.h"
#include "exact/residual.h"
#include "exact/band_cols.h"
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
    int64_t lda, n, k, off, step;
    int t, low, unit;
    double *a, *b;              /* a row's terms (k + 2 each) */
    double *xb;                 /* position 0's element; position p's at xb + p xst */
    int64_t xst;
} tbsv_t;

static int64_t row_of(const tbsv_t *v, int64_t p) { return v->low ? p : v->n - 1 - p; }
static double *x_at(const tbsv_t *v, int64_t p) { return v->xb + p * v->xst; }
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
        const unsigned left = ozb_eft_band_strip(P, xs, w, rows, -1.0, 1.0, x_at(v, p0), v->xst, lsb);
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
    double *xi = x_at(v, p);
    if (p == 0) return OZBLAS_STATUS_SUCCESS;
    if (q0 >= q1 && isfinite(*xi)) {
        if (*xi == 0.0) *xi = 0.0;
        return OZBLAS_STATUS_SUCCESS;
    }
    int64_t c = 0;
    v->a[c] = 1.0;
    v->b[c++] = *xi;
    int64_t ad = tb_at(v->t, v->lda, v->off, i, row_of(v, q0));
    const double *xj = x_at(v, q0);
    for (int64_t q = q0; q < q1; q++, ad += v->step, xj += v->xst) {
        v->a[c] = -v->A[ad];
        v->b[c++] = *xj;
    }
    return ozb_band_sum(h, v->a, v->b, c, 1.0, 0.0, xi);
}

/* Position p's terms [q0, q1) (q0 < q1), xlast the value of position q1 - 1:
 * c := RN(c - sum_q op(T)(i, j_q) x_{j_q}) where certified (1; 0: c kept) */
static inline int cert_part(const tbsv_t *v, int64_t p, int64_t q0, int64_t q1, double xlast, double *c)
{
    const double *t = &v->A[tb_at(v->t, v->lda, v->off, row_of(v, p), row_of(v, q0))], *x = x_at(v, q0);
    const int64_t m = q1 - q0 - 1;
    ozb_resid_t r = ozb_resid_start(*c);
    for (int64_t l = 0; l < m; l++) ozb_resid_add(&r, t[l * v->step], x[l * v->xst]);
    ozb_resid_last(&r, t[m * v->step], xlast);
    double y;
    if (!ozb_resid_finish(&r, &y)) return 0;
    *c = y;
    return 1;
}

/* Position p's part (part_sum's) on c, the position's value so far, xlast the value of the
 * part's last position: certified by cert_part; with no term, c kept, a finite zero as +0 (the
 * first position keeps even that); else by part_sum on x itself. */
static inline ozblas_status_t one_part(ozblas_handle_t h, const tbsv_t *v, int64_t s, int64_t p, int part,
                                       double xlast, double *c)
{
    const int64_t q0 = part == 0 ? max64(0, p - v->k) : max64(s, p - v->k), q1 = part == 0 ? min64(s, p) : p;
    if (q0 < q1 ? cert_part(v, p, q0, q1, xlast, c) : p == 0 || isfinite(*c)) {
        if (q0 >= q1 && p > 0 && *c == 0.0) *c = 0.0;
        return OZBLAS_STATUS_SUCCESS;
    }
    double *xp = x_at(v, p);
    *xp = *c;
    const ozblas_status_t st = part_sum(h, v, s, p, part);
    *c = *xp;
    return st;
}

/* The block at s, position by position: its part before the block where part0 (else the strips
 * and exact sums made it), the part in it, the division; *xprev the value of position s - 1,
 * kept in a register from one position to the next. */
static ozblas_status_t block_chain(ozblas_handle_t h, const tbsv_t *v, int64_t s, int64_t bs, int part0,
                                   double *xprev)
{
    double xp = *xprev;
    for (int64_t p = s; p < s + bs; p++) {
        double c = *x_at(v, p);
        ozblas_status_t st;
        if (part0 && s > 0 && (st = one_part(h, v, s, p, 0, p == s ? xp : *x_at(v, s - 1), &c)) != OZBLAS_STATUS_SUCCESS)
            return st;
        if ((st = one_part(h, v, s, p, 1, xp, &c)) != OZBLAS_STATUS_SUCCESS) return st;
        if (!v->unit) c /= diag_of(v, p);
        *x_at(v, p) = xp = c;
    }
    *xprev = xp;
    return OZBLAS_STATUS_SUCCESS;
}

/* band_cols.h's fix: part_sum */
typedef struct {
    ozblas_handle_t h;
    const tbsv_t *v;
} fix_ctx;

static int fix_part(void *ctx, int64_t s, int64_t p, int part)
{
    const fix_ctx *f = ctx;
    return (int)part_sum(f->h, f->v, s, p, part);
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
    double *xb = low ? x0 : x0 + (n - 1) * incx;
    const tbsv_t v = { A, lda, n, k, off, step, t, low, diag == OZBLAS_UNIT, buf, buf + kk + 2, xb, dj * incx };
    /* the certified residuals where the error-free kernels are offered and the band has terms
     * (k >= 1); the parts before a block with them where the band is within a block (the band
     * strips' packing costs more than the residuals there), else by the strips */
    const int strips = ozb_eft_band_applies(h, -1.0, 1.0), chain = strips && k >= 1, part0 = k <= OZBLAS_TRSM_BLOCK;
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    double xprev = 0.0;
    if (chain && k >= 4 && k <= 8) {
        /* the band within two vectors: by columns of op(T) (position 0's diagonal at A + d0);
         * below four terms a row, the rows' chain is the shorter */
        fix_ctx f = { h, &v };
        const int64_t d0 = tb_at(t, lda, off, row_of(&v, 0), row_of(&v, 0));
        const ozb_band_cols_t b = { A + d0, low ? lda : -lda, t ? dj * (lda - 1) : dj, n, (int)k,
                                    v.unit, xb, v.xst, OZBLAS_TRSM_BLOCK, fix_part, &f };
        st = (ozblas_status_t)ozb_band_cols(&b);
        ozb_fpenv_leave(env, changed);
        return st;
    }
    for (int64_t s = 0; s < n && st == OZBLAS_STATUS_SUCCESS; s += OZBLAS_TRSM_BLOCK) {
        const int64_t bs = n - s < OZBLAS_TRSM_BLOCK ? n - s : OZBLAS_TRSM_BLOCK;
        if (chain && part0) {
            st = block_chain(h, &v, s, bs, 1, &xprev);
            continue;
        }
        /* the positions' terms before the block: eight at a time by the band strips, what they
         * leave by the exact sums */
        const unsigned done0 = s > 0 && strips ? block_update(&v, s, P, xs, lsb) : 0;
        for (int64_t p = s; p < s + bs && s > 0 && st == OZBLAS_STATUS_SUCCESS; p++)
            if (!(done0 >> (p - s) & 1)) st = part_sum(h, &v, s, p, 0);
        if (st != OZBLAS_STATUS_SUCCESS) break;
        if (chain) {
            xprev = s > 0 ? *x_at(&v, s - 1) : 0.0;
            st = block_chain(h, &v, s, bs, 0, &xprev);
            continue;
        }
        for (int64_t p = s; p < s + bs && st == OZBLAS_STATUS_SUCCESS; p++)
            if ((st = part_sum(h, &v, s, p, 1)) == OZBLAS_STATUS_SUCCESS && !v.unit) *x_at(&v, p) /= diag_of(&v, p);
    }
    ozb_fpenv_leave(env, changed);
    return st;
}
