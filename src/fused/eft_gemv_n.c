/* The error-free GEMV with columns of op(A) contiguous (GEMV-N): one lane per row, blocks of
 * BLN columns over every strip of 8 rows in turn, as a GEMV-N streams A.  Method and bit
 * budget: eft_kern.h.  Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "fused/eft_kern.h"
#include <string.h>

#ifdef EFT_AVX2
int ozb_eft_strip_block(const double *a, int64_t lda, const double *xs, int64_t nb, row4_t st[2], int first)
{
    if (first) {
        __m256d m0 = _mm256_setzero_pd(), m1 = m0;
        for (int64_t j = 0; j < nb && j < FIRST_PEEK; j++) {
            const __m256d xb = _mm256_broadcast_sd(xs + j);
            m0 = _mm256_max_pd(m0, _mm256_and_pd(_mm256_mul_pd(_mm256_loadu_pd(a + j * lda), xb), ABSMASK));
            m1 = _mm256_max_pd(m1, _mm256_and_pd(_mm256_mul_pd(_mm256_loadu_pd(a + j * lda + 4), xb), ABSMASK));
        }
        if (!in_range(m0) || !in_range(m1)) return 0;
        st[0].g = first_sigma(m0); st[1].g = first_sigma(m1);
    }
    for (;;) {
        __m256d S0 = _mm256_setzero_pd(), S1 = S0, R0 = S0, R1 = S0, M0 = S0, M1 = S0;
        const __m256d g0 = st[0].g, g1 = st[1].g;
        for (int64_t j = 0; j < nb; j++) {
            const __m256d xb = _mm256_broadcast_sd(xs + j);
            SPLIT4(S0, R0, M0, _mm256_loadu_pd(a + j * lda), xb, g0);
            SPLIT4(S1, R1, M1, _mm256_loadu_pd(a + j * lda + 4), xb, g1);
        }
        if (!in_range(M0) || !in_range(M1)) return 0;
        const int ok = fits(M0, g0) && fits(M1, g1);
        if (ok) {
            tot_add(&st[0].t, S0, R0, g0);
            tot_add(&st[1].t, S1, R1, g1);
        }
        st[0].g = sigma_for(M0); st[1].g = sigma_for(M1);
        if (!ok) { st[0].g = _mm256_max_pd(st[0].g, g0); st[1].g = _mm256_max_pd(st[1].g, g1); continue; }
        return 1;
    }
}

/* GEMV with columns of op(A) contiguous (a.rs == 1): strips lo..hi-1 of 8 rows, column block
 * by column block over all of them (BLN streams of A at a time, as a GEMV-N reads). */
int64_t ozb_eft_gemv_n_strips(void *ctx, int64_t lo, int64_t hi)
{
    const ozb_eft_t *e = ctx;
    const ozb_problem *pr = e->pr;
    const int64_t m = pr->m, k = pr->k, lda = pr->a.cs;
    row4_t *st = (row4_t *)e->state;                        /* two per strip */
    uint8_t *bad = e->fail;                                  /* per strip first, per row at the end */
    double pad[8 * BLN];
    const __m256d z = _mm256_setzero_pd();
    for (int64_t b = lo; b < hi; b++) {
        for (int v = 0; v < 2; v++) st[2 * b + v].t.s = st[2 * b + v].t.c = st[2 * b + v].t.a = st[2 * b + v].t.g = st[2 * b + v].g = z;
        bad[b * 8] = 0;
    }
    for (int64_t l0 = 0; l0 < k; l0 += BLN) {
        const int64_t nb = k - l0 < BLN ? k - l0 : BLN;
        for (int64_t b = lo; b < hi; b++) {
            if (bad[b * 8]) continue;
            const int64_t i0 = 8 * b;
            const double *a = pr->a.p + i0 + l0 * lda;
            int64_t ld = lda;
            if (i0 + 8 > m) {           /* the last strip's missing rows: zeros */
                const int rows = (int)(m - i0);
                for (int64_t j = 0; j < nb; j++)
                    for (int r = 0; r < 8; r++) pad[8 * j + r] = r < rows ? a[j * lda + r] : 0.0;
                a = pad;
                ld = 8;
            }
            if (!ozb_eft_strip_block(a, ld, e->x + l0, nb, &st[2 * b], l0 == 0)) bad[b * 8] = 1;
        }
    }
    int64_t left = 0;
    for (int64_t b = lo; b < hi; b++) left += ozb_eft_strip_put(e, b, &st[2 * b], bad[b * 8]);
    return left;
}

int64_t ozb_eft_strip_put(const ozb_eft_t *e, int64_t b, const row4_t st[2], int bad)
{
    const ozb_problem *pr = e->pr;
    int64_t left = 0;
    for (int v = 0; v < 2; v++) {
        double s[4], c[4], a[4], g[4];
        _mm256_storeu_pd(s, st[v].t.s); _mm256_storeu_pd(c, st[v].t.c);
        _mm256_storeu_pd(a, st[v].t.a); _mm256_storeu_pd(g, st[v].t.g);
        for (int r = 0; r < 4; r++) {
            const int64_t i = 8 * b + 4 * v + r;
            if (i >= pr->m) break;
            fold_t f = {s[r], c[r], a[r], g[r]};
            if (bad) f.S = NAN;
            left += ozb_eft_put(e, i, f, ozb_eft_terms(pr->k, 1, 1));
        }
    }
    return left;
}
#endif
