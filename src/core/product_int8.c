/* INT8 slice products through oneDNN's dnnl_gemm_s8s8s32 (exact int32 accumulation).
 * oneDNN is row-major: the column-major product P (mr x N) = A_t^T B is computed as the
 * row-major N x mr matrix B^T A_t, whose memory layout is the same.
 *
 * oneDNN's int8 GEMM is exact only where the CPU has a dot-product instruction that
 * accumulates in int32 (AVX512-VNNI, AVX-VNNI, AMX).  On plain AVX2/AVX-512 it uses
 * vpmaddubsw, which adds two u8 x s8 products in int16 with saturation: 255 * 127 * 2 >
 * 2^15, so results are silently wrong (measured on an AVX2 EPYC: -29417 for -52218).
 * ozb_dnnl_exact() probes that once per process with operands at the budget's extremes;
 * where oneDNN is not exact, the same integer products come from OpenBLAS DGEMM on the
 * digits (exact: |d| <= 127, kb <= 2^17, every sum below 2^31 < 2^53), so the bits do not
 * change, only the speed. */
#include "core/format.h"
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <oneapi/dnnl/dnnl.h>

static int dnnl_exact;
static pthread_once_t dnnl_once = PTHREAD_ONCE_INIT;

/* 2 x 2 products over k = 64 of operands at the extremes (+-127, -128, 255) and mixed
 * signs, through both calls the library makes (s8 x s8, u8 x s8), against int64 sums. */
static void dnnl_probe(void)
{
    enum { K = 64 };
    int8_t a[2 * K], b[2 * K];
    uint8_t u[2 * K];
    int32_t c[4];
    const int32_t co = 0;
    int ok = 1;
    for (int pat = 0; pat < 3 && ok; pat++) {
        for (int l = 0; l < 2 * K; l++) {
            const int r = (l * 37 + pat * 11) % 7;
            a[l] = pat == 0 ? 127 : pat == 1 ? -128 : (int8_t)(r < 3 ? 127 : r < 5 ? -128 : r - 3);
            b[l] = pat == 1 ? -128 : (int8_t)(r < 4 ? 127 : -128);
            u[l] = (uint8_t)(pat == 2 ? (r < 5 ? 255 : r) : 255);
        }
        /* row-major 2 x K times (2 x K)^T */
        if (dnnl_gemm_s8s8s32('N', 'T', 'F', 2, 2, K, 1.0f, a, K, 0, b, K, 0, 0.0f, c, 2, &co) != dnnl_success) ok = 0;
        for (int i = 0; i < 2 && ok; i++)
            for (int j = 0; j < 2; j++) {
                int64_t s = 0;
                for (int l = 0; l < K; l++) s += (int64_t)a[i * K + l] * b[j * K + l];
                if (c[i * 2 + j] != s) ok = 0;
            }
        if (ok && dnnl_gemm_u8s8s32('N', 'T', 'F', 2, 2, K, 1.0f, u, K, 0, b, K, 0, 0.0f, c, 2, &co) != dnnl_success) ok = 0;
        for (int i = 0; i < 2 && ok; i++)
            for (int j = 0; j < 2; j++) {
                int64_t s = 0;
                for (int l = 0; l < K; l++) s += (int64_t)u[i * K + l] * b[j * K + l];
                if (c[i * 2 + j] != s) ok = 0;
            }
    }
    dnnl_exact = ok && !getenv("OZBLAS_NO_DNNL");   /* the knob lets the tests run the DGEMM path */
}

int ozb_dnnl_exact(void)
{
    pthread_once(&dnnl_once, dnnl_probe);
    return dnnl_exact;
}

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
    if (!ozb_dnnl_exact()) return ozb_products_fp64(dev, A, B, dmax, P, ldp, scratch, threads, st);
    int8_t *a8 = scratch, *b8 = a8 + (size_t)sa * mr * kb;
    int32_t *c32 = (int32_t *)(((uintptr_t)(b8 + (size_t)sb * nr * kb) + 63) & ~(uintptr_t)63);
    to_int8(A->slice, a8, (int64_t)sa * mr * kb);
    to_int8(B->slice, b8, (int64_t)sb * nr * kb);
    const int all_pairs = dmax <= 0 || dmax >= sa + sb - 1;
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);          /* oneDNN's OpenMP regions follow the handle */
    const int32_t co = 0;
    const int64_t ldc = mr * sa;           /* int32 block laid out like P */
    if (all_pairs) {
        dnnl_gemm_s8s8s32('N', 'T', 'F', nr * sb, mr * sa, kb, 1.0f, b8, kb, 0, a8, kb, 0, 0.0f, c32, ldc, &co);
        st->calls += 1; st->pairs += (int64_t)sa * sb;
        st->flops += 2.0 * (double)(mr * sa) * (double)(nr * sb) * (double)kb;
        for (int64_t j = 0; j < nr * sb; j++)
            for (int64_t i = 0; i < mr * sa; i++) P[i + j * ldp] = (double)c32[i + j * ldc];
    } else {
        for (int t = 0; t < sa; t++) {
            int qn = dmax - t;
            if (qn > sb) qn = sb;
            if (qn <= 0) break;
            dnnl_gemm_s8s8s32('N', 'T', 'F', nr * qn, mr, kb, 1.0f, b8, kb, 0, a8 + (size_t)t * mr * kb, kb, 0,
                              0.0f, c32 + t * mr, ldc, &co);
            st->calls += 1; st->pairs += qn;
            st->flops += 2.0 * (double)mr * (double)(nr * qn) * (double)kb;
            for (int64_t j = 0; j < nr * qn; j++)
                for (int64_t i = 0; i < mr; i++) P[t * mr + i + j * ldp] = (double)c32[t * mr + i + j * ldc];
        }
    }
    omp_set_num_threads(saved);
    return 0;
}
