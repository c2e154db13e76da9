/* FP64 slice products through OpenBLAS DGEMM (also the CPU engine of the FP16 format:
 * its digits are small integers whose products DGEMM computes exactly). */
#include "cpu/cpu_products.h"
#include "cpu/blas_gate.h"

int ozb_products_fp64(struct ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                      void *scratch, int threads, ozb_prod_stats *st)
{
    (void)dev; (void)scratch;
    const int64_t mr = A->rows, nr = B->rows, kb = A->kb;
    const int sa = A->s, sb = B->s;
    if (sa == 0 || sb == 0) return 0;
    int all_pairs = (dmax <= 0) || (dmax >= sa + sb - 1);
    if (mr * sa <= 64 || (all_pairs && nr * sb > 64)) {
        /* slices of A side by side form a kb x (mr*sa) matrix, likewise B */
        ozb_gate_dgemm(threads, 1, 0, mr * sa, nr * sb, kb, A->slice, kb, B->slice, kb, P, ldp);
        st->calls += 1;
        st->pairs += (int64_t)sa * sb;
        st->flops += 2.0 * (double)(mr * sa) * (double)(nr * sb) * (double)kb;
        return 0;
    }
    for (int t = 0; t < sa; t++) {
        int qn = all_pairs ? sb : dmax - t;     /* u <= dmax - 1 - t */
        if (qn > sb) qn = sb;
        if (qn <= 0) break;
        ozb_gate_dgemm(threads, 1, 0, mr, nr * qn, kb, A->slice + (int64_t)t * mr * kb, kb, B->slice, kb, P + (int64_t)t * mr, ldp);
        st->calls += 1;
        st->pairs += qn;
        st->flops += 2.0 * (double)mr * (double)(nr * qn) * (double)kb;
    }
    return 0;
}
