/* The CRT format's exact INT8 product on the CPU (crt/crt_gemm.h, cpu_products.h). */
#include "cpu/cpu_products.h"
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

int ozb_cpu_crt_gemm(const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb, int64_t nbb, int64_t kbb,
                     int32_t *dst, int nt, int dnnl)
{
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
