/* The error-free GEMM's strip times six columns with 256-bit vectors (eft_gemm.c's strip_six,
 * where the 512-bit loops are not used).  block_two runs four running-split chains (CHAIN4,
 * eft_kern.h): on a core with two FMA pipes that is exactly the chains' latency (an FMA of
 * four cycles a step) and exactly their throughput (two FMA-pipe operations a chain and step),
 * so any stall stretches every step.  Six chains, the strip's two halves times three columns
 * (two loads and three broadcasts a step), fill the sixteen registers and leave the latency
 * slack: the pipes, not the chains, set the pace.  (One half times six columns, six
 * broadcasts a step, was slower.)  Every lane goes through its own chain in its order, from the
 * sigma block_two would take, so S and R, and the totals, are block_two's bit for bit.  Bit
 * budget: eft_kern.h.  Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_kern.h"

#ifdef EFT_AVX2
void ozb_eft_block_six(const double *ab, const double *const x[6], int64_t nb, const __m256d gs[12], tot4 tot[12],
                       int first)
{
    for (int c0 = 0; c0 < 6; c0 += 3) {
        const double *x0 = x[c0], *x1 = x[c0 + 1], *x2 = x[c0 + 2];
        const __m256d *g = gs + 2 * c0;
        const __m256d z = _mm256_setzero_pd();
        __m256d T0 = g[0], T1 = g[1], T2 = g[2], T3 = g[3], T4 = g[4], T5 = g[5];
        __m256d R0 = z, R1 = z, R2 = z, R3 = z, R4 = z, R5 = z;
        for (int64_t l = 0; l < nb; l++) {
            const __m256d a0 = _mm256_loadu_pd(ab + 8 * l), a1 = _mm256_loadu_pd(ab + 8 * l + 4);
            __m256d xv = _mm256_broadcast_sd(x0 + l);
            CHAIN4(T0, R0, a0, xv);
            CHAIN4(T1, R1, a1, xv);
            xv = _mm256_broadcast_sd(x1 + l);
            CHAIN4(T2, R2, a0, xv);
            CHAIN4(T3, R3, a1, xv);
            xv = _mm256_broadcast_sd(x2 + l);
            CHAIN4(T4, R4, a0, xv);
            CHAIN4(T5, R5, a1, xv);
        }
        const __m256d T[6] = { T0, T1, T2, T3, T4, T5 }, R[6] = { R0, R1, R2, R3, R4, R5 };
        for (int v = 0; v < 6; v++) {
            const __m256d S = _mm256_sub_pd(T[v], g[v]);   /* exact (Sterbenz, as block_two) */
            if (first) tot_first(&tot[2 * c0 + v], S, R[v], g[v]);
            else tot_add(&tot[2 * c0 + v], S, R[v], g[v]);
        }
    }
}
#endif
