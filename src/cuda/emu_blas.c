/* The emulated device's cuBLAS (dev_ops.h): every GEMM ozblas makes is first checked against
 * cuBLAS's documented rules for cublasGemmEx and cublasGemmStridedBatchedEx (cuBLAS guide,
 * docs.nvidia.com/cuda/cublas, sections cublasGemmEx and cublasGemmStridedBatchedEx; the
 * IMMA layout rules from cublasLtMatmul's "regular IMMA conditions"); a call that breaks one
 * fails with the rule's text on stderr, as the GPU would fail (or run a slow kernel) where
 * no test can see it.  Then the product by plain loops in the device's number types. */
#include "cuda/dev_ops.h"
#include <math.h>
#include <stdio.h>

static int64_t max1(int64_t a) { return a > 1 ? a : 1; }
static int is_int(ozb_cu_compute c) { return c == OZB_CU_COMPUTE_32I; }

static int bad_sizes(const ozb_gemm_call *g) { return g->m < 0 || g->n < 0 || g->k < 0; }
static int bad_lda(const ozb_gemm_call *g) { return g->lda < max1(g->ta ? g->k : g->m); }
static int bad_ldb(const ozb_gemm_call *g) { return g->ldb < max1(g->tb ? g->n : g->k); }
static int bad_ldc(const ozb_gemm_call *g) { return g->ldc < max1(g->m); }
static int bad_types(const ozb_gemm_call *g)
{
    switch (g->compute) {
    case OZB_CU_COMPUTE_64F_PEDANTIC: return g->ab != OZB_CU_R_64F || g->c != OZB_CU_R_64F;
    case OZB_CU_COMPUTE_32F:          return g->ab != OZB_CU_R_16F || g->c != OZB_CU_R_32F;
    case OZB_CU_COMPUTE_32I:          return g->ab != OZB_CU_R_8I || g->c != OZB_CU_R_32I;
    }
    return 1;
}
/* A[i], B[i] of every batch entry: the strides keep the alignment only if they are multiples of 4 */
static int bad_i8_align(const ozb_gemm_call *g)
{
    return is_int(g->compute) && (((uintptr_t)g->A & 3) || ((uintptr_t)g->B & 3) ||
                                  (g->batch && ((g->sa & 3) || (g->sb & 3))));
}
static int bad_i8_ld(const ozb_gemm_call *g) { return is_int(g->compute) && ((g->lda & 3) || (g->ldb & 3)); }
/* seen on an H100 with cuBLAS 13.1, not in the guide: INT8 GEMMs outside the TN layout
 * (transa = T, transb = N) were refused (CUBLAS_STATUS_NOT_SUPPORTED) for many shapes with
 * m, n, k, lda, ldb, ldc all multiples of 4 (NN 40 x 40 x 40, NT 32 x 4 x 4, TT 40 x 12 x 16),
 * and TN ones whose k is not a multiple of 4 (k = 1 or 301 with n >= 17); TN with k a multiple
 * of 4 ran for every m, n and ldc probed (27,436 shapes per ldc choice, and NT with
 * m = ldc = 5, 6, 7, 17, 37, 41).  Only that layout is accepted here. */
static int bad_i8_layout(const ozb_gemm_call *g)
{
    return is_int(g->compute) && (!(g->ta && !g->tb) || (g->k & 3));
}
static int bad_overlap(const ozb_gemm_call *g)
{
    const int64_t span = g->ldc * (g->n - 1) + g->m, s = g->sc < 0 ? -g->sc : g->sc;
    return g->batch > 1 && s < span;
}

static const struct { int (*broken)(const ozb_gemm_call *); const char *rule; } rules[] = {
    { bad_sizes, "cublasGemmEx: CUBLAS_STATUS_INVALID_VALUE if m < 0 or n < 0 or k < 0" },
    { bad_lda, "cublasGemmEx: CUBLAS_STATUS_INVALID_VALUE if lda < max(1, m) when transa == CUBLAS_OP_N and lda < max(1, k) otherwise" },
    { bad_ldb, "cublasGemmEx: CUBLAS_STATUS_INVALID_VALUE if ldb < max(1, k) when transb == CUBLAS_OP_N and ldb < max(1, n) otherwise" },
    { bad_ldc, "cublasGemmEx: CUBLAS_STATUS_INVALID_VALUE if ldc < max(1, m)" },
    { bad_types, "cublasGemmEx: CUBLAS_STATUS_NOT_SUPPORTED for a combination of Atype, Btype, Ctype and computeType outside the table of supported types" },
    { bad_i8_align, "cublasGemmEx: CUBLAS_COMPUTE_32I compute types are only supported with A, B being 4-byte aligned (cublasGemmStridedBatchedEx: all pointers A[i], B[i])" },
    { bad_i8_ld, "cublasGemmEx: CUBLAS_COMPUTE_32I compute types are only supported with lda, ldb being multiples of 4" },
    { bad_i8_layout, "cublasGemmEx (cuBLAS 13.1 on an H100, as probed): CUBLAS_STATUS_NOT_SUPPORTED for CUBLAS_COMPUTE_32I outside transa = T, transb = N, or with k not a multiple of 4, for many shapes" },
    { bad_overlap, "cublasGemmStridedBatchedEx: C[i] matrices must not overlap; otherwise, the behavior is undefined" },
};

const char *ozb_emu_gemm_rule(const ozb_gemm_call *g)
{
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
        if (rules[r].broken(g)) return rules[r].rule;
    return NULL;
}

/* binary16 bits -> float (normal and zero values only: the FP16 digits are integers of at
 * most 11 bits) */
static float f16_value(uint16_t h)
{
    const int e = (h >> 10) & 31;
    const float mag = e == 0 ? 0.0f : (float)(1024 + (h & 0x3ff)) * (float)ldexp(1.0, e - 25);
    return (h & 0x8000) ? -mag : mag;
}

/* One loop per number type, no switch in the inner loop (with one there, a 10491 x 10760 x
 * 128 INT8 product, a shape the fuzzer makes, takes 40 s).  When both operands run along k
 * contiguously (the "TN" layout every slice product uses) the inner loop is a unit-stride
 * dot product that the compiler vectorizes.  INT8 and FP64 sums are exact integers in any
 * order (the callers' bit budgets); the INT8 sum wraps modulo 2^32 like the int32 accumulator of cuBLAS.  FP16
 * products are summed in k order in float. */
static void gemm1(const ozb_gemm_call *g, const void *A, const void *B, void *C)
{
    const int64_t m = g->m, n = g->n, k = g->k, ldc = g->ldc;
    const int64_t al = g->ta ? 1 : g->lda, ai = g->ta ? g->lda : 1;    /* A(i, l) = A[i * ai + l * al] */
    const int64_t bl = g->tb ? g->ldb : 1, bj = g->tb ? 1 : g->ldb;    /* B(l, j) = B[l * bl + j * bj] */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            const int64_t a0 = i * ai, b0 = j * bj;
            switch (g->ab) {
            case OZB_CU_R_64F: {
                const double *a = (const double *)A + a0, *b = (const double *)B + b0;
                double s = 0.0;
                if (al == 1 && bl == 1) for (int64_t l = 0; l < k; l++) s += a[l] * b[l];
                else                    for (int64_t l = 0; l < k; l++) s += a[l * al] * b[l * bl];
                ((double *)C)[i + j * ldc] = s;
                break;
            }
            case OZB_CU_R_16F: {
                const uint16_t *a = (const uint16_t *)A + a0, *b = (const uint16_t *)B + b0;
                float s = 0.0f;
                for (int64_t l = 0; l < k; l++) s += f16_value(a[l * al]) * f16_value(b[l * bl]);
                ((float *)C)[i + j * ldc] = s;
                break;
            }
            default: {
                const int8_t *a = (const int8_t *)A + a0, *b = (const int8_t *)B + b0;
                uint32_t s = 0;
                if (al == 1 && bl == 1) for (int64_t l = 0; l < k; l++) s += (uint32_t)((int32_t)a[l] * b[l]);
                else                    for (int64_t l = 0; l < k; l++) s += (uint32_t)((int32_t)a[l * al] * b[l * bl]);
                ((int32_t *)C)[i + j * ldc] = (int32_t)s;
                break;
            }
            }
        }
}

static size_t type_bytes(ozb_cu_type t)
{
    return t == OZB_CU_R_64F ? 8 : t == OZB_CU_R_32F || t == OZB_CU_R_32I ? 4 : t == OZB_CU_R_16F ? 2 : 1;
}

int ozb_emu_gemm(const ozb_gemm_call *g)
{
    const char *rule = ozb_emu_gemm_rule(g);
    if (rule) {
        fprintf(stderr, "ozblas emulated cuBLAS: %s (transa %c transb %c m %lld n %lld k %lld lda %lld ldb %lld ldc %lld "
                        "A %p B %p batch %lld)\n", rule, g->ta ? 'T' : 'N', g->tb ? 'T' : 'N', (long long)g->m,
                (long long)g->n, (long long)g->k, (long long)g->lda, (long long)g->ldb, (long long)g->ldc, g->A, g->B,
                (long long)g->batch);
        return 1000 + (bad_types(g) ? 15 : 7);   /* CUBLAS_STATUS_NOT_SUPPORTED, INVALID_VALUE */
    }
    const size_t eb = type_bytes(g->ab), ob = type_bytes(g->c);
    const int64_t nb = g->batch ? g->batch : 1;
    for (int64_t b = 0; b < nb; b++)
        gemm1(g, (const char *)g->A + eb * (size_t)(b * g->sa), (const char *)g->B + eb * (size_t)(b * g->sb),
              (char *)g->C + ob * (size_t)(b * g->sc));
    return 0;
}
