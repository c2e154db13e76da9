/* Tiny DTRMMs element by element (shapes.h: ozb_trmm_tiny). */
#include "shapes/shapes.h"
#include "eft/eft_dot_small.h"

int ozb_trmm_tiny(int left, int lower, int trans, int unit, int64_t m, int64_t n, double alpha, const double *A,
                  int64_t lda, double *B, int64_t ldb)
{
    const int64_t ka = left ? m : n;
    if (ka > 4 || m * n > 16 || (alpha != 1.0 && alpha != -1.0)) return 0;
    /* op(T)(i, l) = A[i + l lda], or A[l + i lda] where transposed; op(T) lower where T is
     * lower and not transposed or upper and transposed */
    const int64_t rs = trans ? lda : 1, cs = trans ? 1 : lda;
    const int low = lower != trans;
    double out[16];
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            /* left: sum over l of op(T)(i, l) B(l, j), l on op(T)'s row i within the triangle;
             * right: sum over l of B(i, l) op(T)(l, j), l on op(T)'s column j */
            const int64_t r = left ? i : j, l0 = left == low ? 0 : r, l1 = left == low ? r + 1 : ka;
            double t[4], b[4];
            int64_t c = 0;
            for (int64_t l = l0; l < l1; l++, c++) {
                const int64_t ti = left ? i : l, tj = left ? l : j;
                t[c] = unit && ti == tj ? 1.0 : A[ti * rs + tj * cs];
                b[c] = left ? B[l + j * ldb] : B[i + l * ldb];
            }
            double v;
            /* a zero is the general path's to write (its sign), as is what is not certified */
            if (!ozb_eft_dot_tiny(t, 1, b, 1, c, &v) || v == 0.0) return 0;
            out[i + j * m] = alpha == 1.0 ? v : -v;
        }
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) B[i + j * ldb] = out[i + j * m];
    return 1;
}
