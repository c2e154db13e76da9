/* The elements of a triangular product that a non-finite operand reaches only through the
 * triangle's absent zeros (shapes.h: ozb_tri_absent_zeros).  DTRMM and DTRMV compute op(T)
 * made whole, so that 0 x Inf = NaN reaches every row whose absent zeros meet an Inf or NaN
 * x_k; the reference BLAS never multiplies those zeros, and CONTRACT §4 counts only the
 * triangle's terms.  Such rows are few (a non-finite input) and computed again here, correctly
 * rounded: those whose triangle holds no non-finite term as one GEMV a vector where op(T) was
 * made whole (again_for), the others one DOT each over their triangle. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include <math.h>
#include <immintrin.h>   /* AVX2: the library's baseline (x86-64-v3) */

int ozb_all_finite(const double *x, int64_t n)
{
    /* by the exponent bits (all set: Inf or NaN), without arithmetic: the caller's
     * floating-point environment may trap on an invalid operation */
    const __m256i e = _mm256_set1_epi64x(0x7ff0000000000000ll);
    __m256i bad = _mm256_setzero_si256();
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        bad = _mm256_or_si256(bad, _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + i)), e), e));
    int ok = _mm256_testz_si256(bad, bad);
    for (; i < n; i++) ok &= isfinite(x[i]) != 0;
    return ok;
}

/* Rows i0..i1-1 of one vector computed again, each one correctly rounded DOT over its
 * triangle (lower: k <= i, upper: k >= i).  The row is read where it lies in t, except that a
 * unit diagonal (t's not read) goes through a copy in h's host scratch: so on host memory
 * only where unit. */
static ozblas_status_t rows_again(ozblas_handle_t h, ozb_view t, int low, int unit, int64_t n, double alpha,
                                  const double *x, int64_t incx, double *y, int64_t incy, int64_t i0, int64_t i1)
{
    double *row = unit && i0 < i1 ? ozb_buf_get(h, OZB_BUF_SHAPE_T, sizeof(double) * (size_t)n) : NULL;
    if (unit && i0 < i1 && !row) return OZBLAS_STATUS_ALLOC_FAILED;
    for (int64_t i = i0; i < i1; i++) {
        const int64_t k0 = low ? 0 : i, len = low ? i + 1 : n - i;
        ozb_view a = { t.p + i * t.rs + k0 * t.cs, 0, t.cs };
        if (unit) {
            for (int64_t q = 0; q < len; q++) row[q] = k0 + q == i ? 1.0 : t.p[i * t.rs + (k0 + q) * t.cs];
            a = (ozb_view){ row, 0, 1 };
        }
        const ozb_problem pr = { .m = 1, .n = 1, .k = len, .a = a, .b = { x + k0 * incx, 0, incx }, .alpha = alpha,
                                 .beta = 0.0, .c = y + i * incy, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_DOT,
                                 .c_host = ozb_host_operands(h) };
        const ozblas_status_t st = ozb_run_rn(h, &pr);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* The rows a non-finite x_k reached through an absent zero, kf and kl the first and the last
 * such k (-1: none).  Lower: row i holds k <= i, so the rows before kl meet x_kl at an absent
 * zero; upper: row i holds k >= i, the rows after kf.  Where t is op(T) made whole (zeros
 * outside the triangle, its diagonal written: whole), the rows whose triangle holds no
 * non-finite x_k (lower: before kf; upper: after kl) are one GEMV on the square block of op(T)
 * they span, whose absent zeros meet finite x_k only: each element is RN of the same exact sum
 * as its row's DOT (an exact zero +0 either way), so the same bits, in one problem instead of
 * one a row (a row of B all NaN makes every vector such a block).  The other rows one DOT
 * each, over the triangle alone (elsewhere t may hold anything). */
static ozblas_status_t again_for(ozblas_handle_t h, ozb_view t, int low, int unit, int whole, int64_t n, double alpha,
                                 const double *x, int64_t incx, double *y, int64_t incy, int64_t kf, int64_t kl)
{
    if (kf < 0) return OZBLAS_STATUS_SUCCESS;
    const int64_t f0 = low ? 0 : kl + 1, f1 = low ? kf : n;         /* the rows with finite triangles */
    const int64_t s0 = low ? kf : kf + 1, s1 = low ? kl : kl + 1;    /* the rows between */
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    if (!whole || f1 - f0 < 2)
        st = rows_again(h, t, low, unit, n, alpha, x, incx, y, incy, f0, f1);
    else {
        const ozb_problem pr = { .m = f1 - f0, .n = 1, .k = f1 - f0, .a = { t.p + f0 * (t.rs + t.cs), t.rs, t.cs },
                                 .b = { x + f0 * incx, 0, incx }, .alpha = alpha, .beta = 0.0, .c = y + f0 * incy,
                                 .crs = incy, .ccs = 0, .kblock = OZB_KBLOCK_MAX, .c_host = ozb_host_operands(h) };
        st = ozb_run_rn(h, &pr);
    }
    return st != OZBLAS_STATUS_SUCCESS ? st : rows_again(h, t, low, unit, n, alpha, x, incx, y, incy, s0, s1);
}

/* the first and the last k < n whose x_k is not finite into r[0], r[1] (-1: none), on host
 * memory: the device's column scan (kernels/ozb_shape_ops.h) on a window of one column */
static void scan(const double *x, int64_t incx, int64_t n, int64_t r[2])
{
    const ozb_op_nonfinite g = { x, incx, 0, n, 1, NULL, r };
    ozb_op_nonfinite_col(&g, 0);
}

ozblas_status_t ozb_tri_absent_zeros(ozblas_handle_t h, ozb_view t, int low, int unit, int64_t n, double alpha,
                                     const double *x, int64_t incx, double *y, int64_t incy)
{
    int64_t r[2];
    scan(x, incx, n, r);
    return again_for(h, t, low, unit, 0, n, alpha, x, incx, y, incy, r[0], r[1]);
}

ozblas_status_t ozb_tri_absent_zeros_cols(ozblas_handle_t h, ozb_view t, int low, int64_t n, double alpha, ozb_view x,
                                          int64_t nvec, ozb_view y)
{
    /* on a backend's memory the vectors' non-finite rows are found there (range); on the host
     * each vector is scanned as its rows are computed again */
    int64_t *range = NULL;
    int any = 1;
    if (h->be->nonfinite) {
        range = ozb_buf_get(h, OZB_BUF_SHAPE_T, sizeof(int64_t) * 2 * (size_t)nvec);
        if (!range) return OZBLAS_STATUS_ALLOC_FAILED;
        if (h->be->nonfinite(h, x.p, x.rs, x.cs, n, nvec, range, &any)) return OZBLAS_STATUS_PARTIAL;
    }
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    for (int64_t v = 0; any && v < nvec && st == OZBLAS_STATUS_SUCCESS; v++) {
        int64_t own[2];
        const int64_t *r = range ? range + 2 * v : own;
        if (!range) scan(x.p + v * x.cs, x.rs, n, own);
        st = again_for(h, t, low, 0, 1, n, alpha, x.p + v * x.cs, x.rs, (double *)y.p + v * y.cs, y.rs, r[0], r[1]);
    }
    return ozb_after_written(st);
}
