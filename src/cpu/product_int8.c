/* INT8 slice products through oneDNN's dnnl_gemm_s8s8s32 (exact int32 accumulation).
 * oneDNN is row-major: the column-major product P (mr x N) = A_t^T B is computed as the
 * row-major N x mr matrix B^T A_t, whose memory layout is the same.
 *
 * Only where oneDNN's int8 GEMM is exact on this CPU (cpu/backend_cpu.c): elsewhere the
 * format table (format.c) gives the INT8 format whose products come from DGEMM. */
#include "cpu/cpu_products.h"
#include "cpu/blas_gate.h"

size_t ozb_scratch_int8(int64_t ra, int64_t rb, int64_t kb, int ca, int cb)
{
    /* int8 copies of both sides, int32 results for every pair */
    return (size_t)ca * ra * kb + (size_t)cb * rb * kb + 64 + sizeof(int32_t) * (size_t)ca * ra * cb * rb + 64;
}

static void to_int8(const double *d, int8_t *o, int64_t n)
{
    for (int64_t i = 0; i < n; i++) o[i] = (int8_t)d[i];   /* |d| <= 127: exact */
}

int ozb_products_int8(struct ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                      void *scratch, int threads, ozb_prod_stats *st)
{
    (void)dev;
    const int64_t mr = A->rows, nr = B->rows, kb = A->kb;
    const int sa = A->s, sb = B->s;
    if (sa == 0 || sb == 0) return 0;
    int8_t *a8 = scratch, *b8 = a8 + (size_t)sa * mr * kb;
    int32_t *c32 = (int32_t *)(((uintptr_t)(b8 + (size_t)sb * nr * kb) + 63) & ~(uintptr_t)63);
    to_int8(A->slice, a8, (int64_t)sa * mr * kb);
    to_int8(B->slice, b8, (int64_t)sb * nr * kb);
    const int all_pairs = dmax <= 0 || dmax >= sa + sb - 1;
    const int64_t ldc = mr * sa;           /* int32 block laid out like P */
    if (all_pairs) {
        if (ozb_gate_gemm_s8s8s32(threads, 'N', 'T', nr * sb, mr * sa, kb, b8, kb, a8, kb, c32, ldc)) return -1;
        st->calls += 1; st->pairs += (int64_t)sa * sb;
        st->flops += 2.0 * (double)(mr * sa) * (double)(nr * sb) * (double)kb;
        for (int64_t j = 0; j < nr * sb; j++)
            for (int64_t i = 0; i < mr * sa; i++) P[i + j * ldp] = (double)c32[i + j * ldc];
    } else {
        for (int t = 0; t < sa; t++) {
            int qn = dmax - t;
            if (qn > sb) qn = sb;
            if (qn <= 0) break;
            if (ozb_gate_gemm_s8s8s32(threads, 'N', 'T', nr * qn, mr, kb, b8, kb, a8 + (size_t)t * mr * kb, kb,
                                      c32 + t * mr, ldc))
                return -1;
            st->calls += 1; st->pairs += qn;
            st->flops += 2.0 * (double)mr * (double)(nr * qn) * (double)kb;
            for (int64_t j = 0; j < nr * qn; j++)
                for (int64_t i = 0; i < mr; i++) P[t * mr + i + j * ldp] = (double)c32[t * mr + i + j * ldc];
        }
    }
    return 0;
}
