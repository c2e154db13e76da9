/* DTBSV: the solve rule of CONTRACT §6 over the band alone, every sum correctly rounded: each
 * block's updates from the positions before it by the band strips (eft/eft_band.h), eight
 * positions at a time, and what they leave and the in-block sums by the exact sums
 * (ozb_band_sum). */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/fpenv.h"
#include "eft/eft_band.h"
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

/* DTBSV's update of block s (its positions p in [s, s + OZBLAS_TRSM_BLOCK) with a term before
 * it, p < s + k): x_i := RN(x_i - sum_{q in [p - k, s)} op(T)(i, j) x_j) for eight positions at
 * a time by ozb_eft_band_strip (i, j the positions' rows, i = p or n - 1 - p by `low`, and j
 * likewise from q; T(r, cc) at A[cc (lda - 1) + r + off]).  Returns the positions it made (bit
 * p - s); the others are left as they were, to the exact sums. */
static unsigned block_update(const double *A, int64_t lda, int64_t n, int64_t k, int t, int low, int64_t off,
                             int64_t step, int64_t s, double *x0, int64_t incx, double *P, double *xs)
{
    const int64_t e = min64(min64(s + OZBLAS_TRSM_BLOCK, n), s + k), Q0 = max64(0, s - k), w = s - Q0, dj = low ? 1 : -1;
    unsigned done = 0;
    for (int64_t q = Q0; q < s; q++) xs[q - Q0] = x0[(low ? q : n - 1 - q) * incx];
    for (int64_t p0 = s; p0 < e; p0 += 8) {
        const int rows = e - p0 < 8 ? (int)(e - p0) : 8;
        memset(P, 0, sizeof(double) * 8 * (size_t)w);
        for (int r = 0; r < rows; r++) {
            const int64_t p = p0 + r, i = low ? p : n - 1 - p, q0 = max64(0, p - k), j0 = low ? q0 : n - 1 - q0;
            int64_t ad = tb_at(t, lda, off, i, j0);
            for (int64_t q = q0; q < s; q++, ad += step) P[8 * (q - Q0) + r] = A[ad];
        }
        const unsigned left = ozb_eft_band_strip(P, xs, w, rows, -1.0, 1.0, x0 + (low ? p0 : n - 1 - p0) * incx, dj * incx);
        done |= (((1u << rows) - 1) & ~left) << (p0 - s);
    }
    return done;
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
    double *buf = ozb_buf_get(h, OZB_BUF_SHAPE_P, sizeof(double) * (2 * (size_t)(kk + 2) + 9 * (size_t)(kk + 1)));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    const int lower = uplo == OZBLAS_LOWER, t = trans == OZBLAS_OP_T, low = lower != t;
    const int64_t off = lower ? 0 : k, dj = low ? 1 : -1, step = t ? dj : dj * (lda - 1);
    double *x0 = ozb_vec0_mut(x, n, incx), *a = buf, *b = buf + kk + 2, *P = b + kk + 2, *xs = P + 8 * (kk + 1);
    const int strips = ozb_eft_band_applies(h, -1.0, 1.0);
    unsigned done0 = 0;                   /* the block's positions whose update is made (bit p - s) */
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    for (int64_t p = 0; p < n && st == OZBLAS_STATUS_SUCCESS; p++) {
        const int64_t i = low ? p : n - 1 - p;                      /* solve order */
        const int64_t s = p / OZBLAS_TRSM_BLOCK * OZBLAS_TRSM_BLOCK; /* the block's first position */
        if (p == s) done0 = s > 0 && strips ? block_update(A, lda, n, k, t, low, off, step, s, x0, incx, P, xs) : 0;
        /* earlier positions q in [p - k, p): before the block (q < s), then in it */
        for (int part = 0; part < 2 && st == OZBLAS_STATUS_SUCCESS; part++) {
            const int64_t q0 = part == 0 ? max64(0, p - k) : max64(s, p - k), q1 = part == 0 ? min64(s, p) : p;
            if (part == 0 && (s == 0 || (done0 >> (p - s) & 1))) continue;   /* none, or made */
            if (p == 0) continue;                 /* the first position has no term: DTRSV's x_i */
            /* no term but x_i: RN(x_i) = x_i where it is finite and nonzero, and a zero x_i is
             * the exact sums' +0 (ozb_exact_zero_products' rule); Inf and NaN take the exact sums */
            if (q0 >= q1 && isfinite(x0[i * incx])) {
                if (x0[i * incx] == 0.0) x0[i * incx] = 0.0;
                continue;
            }
            int64_t c = 0;
            a[c] = 1.0;
            b[c++] = x0[i * incx];
            const int64_t j0 = low ? q0 : n - 1 - q0;
            int64_t ad = tb_at(t, lda, off, i, j0);
            const double *xj = x0 + j0 * incx;
            for (int64_t q = q0; q < q1; q++, ad += step, xj += dj * incx) {
                a[c] = -A[ad];
                b[c++] = *xj;
            }
            st = ozb_band_sum(h, a, b, c, 1.0, 0.0, &x0[i * incx]);
        }
        if (diag == OZBLAS_NON_UNIT && st == OZBLAS_STATUS_SUCCESS) x0[i * incx] /= A[i * lda + off];
    }
    ozb_fpenv_leave(env, changed);
    return st;
}
