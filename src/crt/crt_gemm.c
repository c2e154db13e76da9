/* The CRT format's exact INT8 product (crt_gemm.h). */
#include "crt/crt_gemm.h"
#include "cuda/products_cuda.h"
#include "../../kernels/ozb_kernel_ops.h"
#include "core/format.h"
#include "cpu/blas_gate.h"
#include <stdlib.h>

/* Where oneDNN's int8 GEMM is not exact on this CPU (cpu/blas_gate.c): the same product
 * by DGEMM on the integers, exact because every product is at most 255 * 128 < 2^15 and
 * kbb <= 2^16, so every sum stays below 2^31 < 2^53.  Returns -2 when memory is short. */
static int crt_gemm_dgemm(const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb, int64_t nbb,
                          int64_t kbb, int32_t *dst, int nt)
{
    const size_t nb = (size_t)nbb * (size_t)kbb, na = (size_t)mbb * (size_t)kbb, ne = (size_t)mbb * (size_t)nbb;
    double *b = malloc(sizeof(double) * (nb + na + ne));
    if (!b) return -2;
    double *a = b + nb, *c = a + na;
    for (size_t e = 0; e < nb; e++) b[e] = (double)RB[e];
    for (size_t e = 0; e < na; e++) a[e] = (double)RA[e];
    /* column-major C (mbb x nbb) = op(RA) op(RB)^T: RA is mbb x kbb row-major (kbb x mbb
     * column-major, so transposed) unless colA; RB likewise */
    ozb_gate_dgemm(nt, !colA, colB, mbb, nbb, kbb, a, colA ? mbb : kbb, b, colB ? nbb : kbb, c, mbb);
    for (size_t e = 0; e < ne; e++) dst[e] = (int32_t)c[e];
    free(b);
    return 0;
}

int ozb_crt_gemm(struct ozb_dev *dev, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb, int64_t nbb,
                 int64_t kbb, int32_t *dst, int32_t mod, int nt, int dnnl)
{
    if (dev) return ozb_crt_gemm_cuda(dev, RB, colB, RA, colA, mbb, nbb, kbb, dst, mod);
    (void)mod;
#ifdef OZBLAS_HAVE_DNNL
    if (!dnnl) return crt_gemm_dgemm(RB, colB, RA, colA, mbb, nbb, kbb, dst, nt);
    /* row-major C^T (nbb x mbb) = RB RA^T, which is column-major mbb x nbb; u8 x s8 is the
     * VNNI instruction's own operand pair (no compensation pass) */
    return ozb_gate_gemm_u8s8s32(nt, colB ? 'T' : 'N', colA ? 'N' : 'T', nbb, mbb, kbb, RB, colB ? nbb : kbb, RA,
                                 colA ? mbb : kbb, dst, mbb) ? -1 : 0;
#else
    (void)dnnl;
    return crt_gemm_dgemm(RB, colB, RA, colA, mbb, nbb, kbb, dst, nt);
#endif
}

void ozb_crt_tiles(size_t limit, int64_t m, int64_t n, double per_side, double per_elem, double per_max, double fixed,
                   int64_t *mbp, int64_t *nbp)
{
    int64_t mb = m, nb = n;
    for (;;) {
        const double bytes = per_side * (double)(mb + nb) + per_elem * (double)mb * (double)nb
                           + per_max * (double)(mb > nb ? mb : nb) + fixed;
        if (bytes <= (double)limit || (mb == 1 && nb == 1)) break;
        if (mb >= nb) mb = (mb + 1) / 2; else nb = (nb + 1) / 2;
    }
    *mbp = mb;
    *nbp = nb;
}

void ozb_crt_fold(int32_t *acc, const int32_t *dst, int64_t ne, int32_t m)
{
    for (int64_t e = 0; e < ne; e++) acc[e] = ozb_op_crt_fold(acc[e], dst[e], m);
}
