/* FP64 slice products through OpenBLAS DGEMM (also the CPU engine of the FP16 format:
 * its digits are small integers whose products DGEMM computes exactly). */
#include "core/format.h"
#include <cblas.h>

int ozb_blas_get_threads(void) { return openblas_get_num_threads(); }

void ozb_blas_set_threads(int threads)
{
    if (openblas_get_num_threads() != threads) openblas_set_num_threads(threads);
}

int ozb_products_fp64(struct ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                      void *scratch, int threads, ozb_prod_stats *st)
{
    (void)dev; (void)scratch; (void)threads;   /* OpenBLAS threads are set per call by the pipeline */
    const int64_t mr = A->rows, nr = B->rows, kb = A->kb;
    const int sa = A->s, sb = B->s;
    if (sa == 0 || sb == 0) return 0;
    int all_pairs = (dmax <= 0) || (dmax >= sa + sb - 1);
    if (mr * sa <= 64 || (all_pairs && nr * sb > 64)) {
        /* slices of A side by side form a kb x (mr*sa) matrix, likewise B */
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (blasint)(mr * sa), (blasint)(nr * sb),
                    (blasint)kb, 1.0, A->slice, (blasint)kb, B->slice, (blasint)kb, 0.0, P, (blasint)ldp);
        st->calls += 1;
        st->pairs += (int64_t)sa * sb;
        st->flops += 2.0 * (double)(mr * sa) * (double)(nr * sb) * (double)kb;
        return 0;
    }
    for (int t = 0; t < sa; t++) {
        int qn = all_pairs ? sb : dmax - t;     /* u <= dmax - 1 - t */
        if (qn > sb) qn = sb;
        if (qn <= 0) break;
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (blasint)mr, (blasint)(nr * qn), (blasint)kb,
                    1.0, A->slice + (int64_t)t * mr * kb, (blasint)kb, B->slice, (blasint)kb, 0.0,
                    P + (int64_t)t * mr, (blasint)ldp);
        st->calls += 1;
        st->pairs += qn;
        st->flops += 2.0 * (double)mr * (double)(nr * qn) * (double)kb;
    }
    return 0;
}
