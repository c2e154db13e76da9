/* FP64 slice products through OpenBLAS DGEMM (also the CPU engine of the FP16 format:
 * its digits are small integers whose products DGEMM computes exactly). */
#include "core/format.h"
#include <cblas.h>
#include <omp.h>
#include <pthread.h>

int ozb_blas_get_threads(void) { return openblas_get_num_threads(); }

void ozb_blas_set_threads(int threads)
{
    if (openblas_get_num_threads() != threads) openblas_set_num_threads(threads);
}

/* Debian's OpenMP build of OpenBLAS shares its threading buffers between callers: two
 * threads of the program each running a multi-threaded DGEMM at once corrupt each other's
 * products (measured: test_repro's concurrent handles under load, 2^-26 relative errors).
 * A call from outside an OpenMP region may be multi-threaded, so such calls are serialized
 * across the process; calls from inside one (the pipeline's per-unit GEMMs) run on one
 * thread in OpenBLAS and need no lock.  Every product is exact, so this changes no bit. */
static pthread_mutex_t blas_mu = PTHREAD_MUTEX_INITIALIZER;

void ozb_dgemm_tn(int ta, int tb, int64_t m, int64_t n, int64_t k, const double *A, int64_t lda, const double *B,
                  int64_t ldb, double *C, int64_t ldc)
{
    const int lock = !omp_in_parallel();
    if (lock) pthread_mutex_lock(&blas_mu);
    cblas_dgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)m, (blasint)n,
                (blasint)k, 1.0, A, (blasint)lda, B, (blasint)ldb, 0.0, C, (blasint)ldc);
    if (lock) pthread_mutex_unlock(&blas_mu);
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
        ozb_dgemm_tn(1, 0, mr * sa, nr * sb, kb, A->slice, kb, B->slice, kb, P, ldp);
        st->calls += 1;
        st->pairs += (int64_t)sa * sb;
        st->flops += 2.0 * (double)(mr * sa) * (double)(nr * sb) * (double)kb;
        return 0;
    }
    for (int t = 0; t < sa; t++) {
        int qn = all_pairs ? sb : dmax - t;     /* u <= dmax - 1 - t */
        if (qn > sb) qn = sb;
        if (qn <= 0) break;
        ozb_dgemm_tn(1, 0, mr, nr * qn, kb, A->slice + (int64_t)t * mr * kb, kb, B->slice, kb, P + (int64_t)t * mr, ldp);
        st->calls += 1;
        st->pairs += qn;
        st->flops += 2.0 * (double)mr * (double)(nr * qn) * (double)kb;
    }
    return 0;
}
