/* The banded level-2 routines, element by element over the band (O(n k) work, no matrix made
 * whole): each output element's terms gathered into a short list and summed exactly, rounded
 * once (the short error-free DOT where it certifies a nonzero result, the short exact sums up
 * to 64 terms, the pipeline correctly rounded beyond), so every
 * element is correctly rounded in every mode and equals what dgemv / dsymv / dtrmv compute
 * correctly rounded on the matrix in full storage; dtbsv follows the solve rule of CONTRACT §6
 * with every sum correctly rounded. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include <stdlib.h>

/* *c := RN(alpha sum_l a_l b_l + beta c) (beta == 0: c not read), the terms contiguous */
static ozblas_status_t exact_sum(ozblas_handle_t h, const double *a, const double *b, int64_t k, double alpha,
                                 double beta, double *c)
{
    if (k == 0) {
        *c = beta == 0.0 ? 0.0 : beta * *c;
        return OZBLAS_STATUS_SUCCESS;
    }
    const ozb_problem pr = { .m = 1, .n = 1, .k = k, .a = { a, 0, 1 }, .b = { b, 0, 1 }, .alpha = alpha, .beta = beta,
                             .c = c, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_DOT, .c_host = 1 };
    double v;
    if (alpha != 0.0 && ozb_short_sum(&pr, &v)) { *c = v; return OZBLAS_STATUS_SUCCESS; }
    if (alpha == 0.0) { *c = beta == 0.0 ? 0.0 : beta * *c; return OZBLAS_STATUS_SUCCESS; }
    return ozb_run_rn(h, &pr);
}

/* A(i, j) of a general band matrix (kl sub-, ku superdiagonals) */
static inline double gb(const double *A, int64_t lda, int64_t ku, int64_t i, int64_t j) { return A[ku + i - j + j * lda]; }
/* A(i, j) of a symmetric/triangular band matrix with k off-diagonals stored in its `lower`
 * (else upper) triangle: the caller asks only for stored (i, j) */
static inline double sb(const double *A, int64_t lda, int64_t k, int lower, int64_t i, int64_t j)
{
    return lower ? A[i - j + j * lda] : A[k + i - j + j * lda];
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

ozblas_status_t ozblas_dgbmv(ozblas_handle_t h, ozblas_operation_t trans, int64_t m, int64_t n, int64_t kl, int64_t ku,
                             double alpha, const double *A, int64_t lda, const double *x, int64_t incx, double beta,
                             double *y, int64_t incy)
{
    if (!h || !ozb_valid_op(trans) || m < 0 || n < 0 || kl < 0 || ku < 0 || lda < kl + ku + 1 || incx == 0 || incy == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!y || (alpha != 0.0 && (!A || !x))) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    const int t = trans == OZBLAS_OP_T;
    const int64_t leny = t ? n : m, lenx = t ? m : n, w = kl + ku + 1;
    const double *x0 = ozb_vec0(x, lenx, incx);
    double *y0 = ozb_vec0_mut(y, leny, incy);
    double *buf = ozb_buf_get(h, OZB_BUF_SHAPE_P, sizeof(double) * 2 * (size_t)w);
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    for (int64_t o = 0; o < leny && st == OZBLAS_STATUS_SUCCESS; o++) {
        /* trans N: row o, columns j in [o - kl, o + ku]; trans T: column o, rows i in [o - ku, o + kl] */
        const int64_t l0 = t ? max64(0, o - ku) : max64(0, o - kl), l1 = t ? min64(m - 1, o + kl) : min64(n - 1, o + ku);
        int64_t k = 0;
        for (int64_t l = l0; l <= l1 && alpha != 0.0; l++, k++) {
            buf[k] = t ? gb(A, lda, ku, l, o) : gb(A, lda, ku, o, l);
            buf[w + k] = x0[l * incx];
        }
        st = exact_sum(h, buf, buf + w, k, alpha, beta, &y0[o * incy]);
    }
    ozb_fpenv_leave(env, changed);
    return st;
}

/* row i of the symmetric band matrix (or of op(T) for a triangular one): its terms times x
 * gathered into a (values) and b (x), count returned.  tri: only op(T)'s triangle, unit: 1 on
 * its diagonal. */
static int64_t band_row(const double *A, int64_t lda, int64_t n, int64_t k, int lower, int tri, int trans, int unit,
                        int64_t i, const double *x0, int64_t incx, double *a, double *b)
{
    /* op(T) lower (j <= i) where lower and not transposed, or upper and transposed */
    const int low = lower != trans;
    const int64_t j0 = max64(0, tri && !low ? i : i - k), j1 = min64(n - 1, tri && low ? i : i + k);
    int64_t c = 0;
    for (int64_t j = j0; j <= j1; j++) {
        /* the stored element (r, s) with r >= s (lower) or r <= s (upper) */
        const int64_t r = (lower ? i >= j : i <= j) ? i : j, s = r == i ? j : i;
        a[c] = tri && unit && i == j ? 1.0 : sb(A, lda, k, lower, r, s);
        b[c++] = x0[j * incx];
    }
    return c;
}

ozblas_status_t ozblas_dsbmv(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, int64_t k, double alpha,
                             const double *A, int64_t lda, const double *x, int64_t incx, double beta, double *y,
                             int64_t incy)
{
    if (!h || (uplo != OZBLAS_UPPER && uplo != OZBLAS_LOWER) || n < 0 || k < 0 || lda < k + 1 || incx == 0 ||
        incy == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!y || (alpha != 0.0 && (!A || !x))) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    const double *x0 = ozb_vec0(x, n, incx);
    double *y0 = ozb_vec0_mut(y, n, incy);
    double *buf = ozb_buf_get(h, OZB_BUF_SHAPE_P, sizeof(double) * 2 * (size_t)(2 * k + 1));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    for (int64_t i = 0; i < n && st == OZBLAS_STATUS_SUCCESS; i++) {
        const int64_t c = alpha != 0.0 ? band_row(A, lda, n, k, uplo == OZBLAS_LOWER, 0, 0, 0, i, x0, incx, buf,
                                                  buf + 2 * k + 1) : 0;
        st = exact_sum(h, buf, buf + 2 * k + 1, c, alpha, beta, &y0[i * incy]);
    }
    ozb_fpenv_leave(env, changed);
    return st;
}

static ozblas_status_t tb_args(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                               int64_t n, int64_t k, const double *A, int64_t lda, const double *x, int64_t incx)
{
    if (!h || (uplo != OZBLAS_UPPER && uplo != OZBLAS_LOWER) || !ozb_valid_op(trans) ||
        (diag != OZBLAS_NON_UNIT && diag != OZBLAS_UNIT) || n < 0 || k < 0 || lda < k + 1 || incx == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n > 0 && (!A || !x)) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dtbmv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, int64_t k, const double *A, int64_t lda, double *x, int64_t incx)
{
    ozblas_status_t st = tb_args(h, uplo, trans, diag, n, k, A, lda, x, incx);
    if (st != OZBLAS_STATUS_SUCCESS || n == 0) return st;
    ozb_info_reset(h);
    double *buf = ozb_buf_get(h, OZB_BUF_SHAPE_P, sizeof(double) * ((size_t)n + 2 * (size_t)(k + 1)));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    double *xc = buf, *a = buf + n, *b = a + k + 1, *x0 = ozb_vec0_mut(x, n, incx);
    for (int64_t i = 0; i < n; i++) xc[i] = x0[i * incx];
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    for (int64_t i = 0; i < n && st == OZBLAS_STATUS_SUCCESS; i++) {
        const int64_t c = band_row(A, lda, n, k, uplo == OZBLAS_LOWER, 1, trans == OZBLAS_OP_T, diag == OZBLAS_UNIT, i,
                                   xc, 1, a, b);
        st = exact_sum(h, a, b, c, 1.0, 0.0, &x0[i * incx]);
    }
    ozb_fpenv_leave(env, changed);
    return st;
}

/* DTBSV: the rule of CONTRACT §6 with the band's zeros left out of each exact sum (the sums,
 * and so every rounding, are those of DTRSV on the full matrix, correctly rounded) */
ozblas_status_t ozblas_dtbsv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, int64_t k, const double *A, int64_t lda, double *x, int64_t incx)
{
    ozblas_status_t st = tb_args(h, uplo, trans, diag, n, k, A, lda, x, incx);
    if (st != OZBLAS_STATUS_SUCCESS || n == 0) return st;
    ozb_info_reset(h);
    double *buf = ozb_buf_get(h, OZB_BUF_SHAPE_P, sizeof(double) * 2 * (size_t)(k + 2));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    const int lower = uplo == OZBLAS_LOWER, t = trans == OZBLAS_OP_T, low = lower != t;
    double *x0 = ozb_vec0_mut(x, n, incx), *a = buf, *b = buf + k + 2;
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    for (int64_t p = 0; p < n && st == OZBLAS_STATUS_SUCCESS; p++) {
        const int64_t i = low ? p : n - 1 - p;                      /* solve order */
        const int64_t s = p / OZBLAS_TRSM_BLOCK * OZBLAS_TRSM_BLOCK; /* the block's first position */
        /* earlier positions q in [p - k, p): before the block (q < s), then in it */
        for (int part = 0; part < 2 && st == OZBLAS_STATUS_SUCCESS; part++) {
            const int64_t q0 = part == 0 ? max64(0, p - k) : max64(s, p - k), q1 = part == 0 ? min64(s, p) : p;
            if (part == 0 && s == 0) continue;   /* the first block has no update */
            int64_t c = 0;
            a[c] = 1.0;
            b[c++] = x0[i * incx];
            for (int64_t q = q0; q < q1; q++) {
                const int64_t j = low ? q : n - 1 - q;
                /* op(T)(i, j) = T(i, j) or T(j, i): stored where lower ? r >= s : r <= s */
                const int64_t r = t ? j : i, cc = t ? i : j;
                a[c] = -sb(A, lda, k, lower, r, cc);
                b[c++] = x0[j * incx];
            }
            st = exact_sum(h, a, b, c, 1.0, 0.0, &x0[i * incx]);
        }
        if (diag == OZBLAS_NON_UNIT && st == OZBLAS_STATUS_SUCCESS) x0[i * incx] /= sb(A, lda, k, lower, i, i);
    }
    ozb_fpenv_leave(env, changed);
    return st;
}
