/* ozblas_dgemm: argument checks and BLAS conventions; the work is the shared pipeline. */
#include "dispatch/dispatch.h"

ozblas_status_t ozblas_dgemm(ozblas_handle_t h, ozblas_operation_t transa, ozblas_operation_t transb,
                             int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                             const double *B, int64_t ldb, double beta, double *C, int64_t ldc)
{
    if (!h || !ozb_valid_op(transa) || !ozb_valid_op(transb) || m < 0 || n < 0 || k < 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    const int64_t arows = transa == OZBLAS_OP_N ? m : k, brows = transb == OZBLAS_OP_N ? k : n;
    if (lda < (arows > 1 ? arows : 1) || ldb < (brows > 1 ? brows : 1) || ldc < (m > 1 ? m : 1))
        return OZBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!C || (alpha != 0.0 && k > 0 && (!A || !B))) return OZBLAS_STATUS_INVALID_VALUE;
    if (alpha == 0.0 || k == 0) return ozb_scale_c(h, C, 1, ldc, m, n, beta);
    ozb_problem pr = {
        .m = m, .n = n, .k = k,
        .a = { A, transa == OZBLAS_OP_N ? 1 : lda, transa == OZBLAS_OP_N ? lda : 1 },
        /* b is op(B)^T: element (j, l) = op(B)(l, j) */
        .b = { B, transb == OZBLAS_OP_N ? ldb : 1, transb == OZBLAS_OP_N ? 1 : ldb },
        .alpha = alpha, .beta = beta, .c = C, .crs = 1, .ccs = ldc,
        .kblock = OZB_KBLOCK_MAX,
    };
    return ozb_run(h, &pr);
}
