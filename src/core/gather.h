/* A strided vector's elements into a contiguous copy. */
#ifndef OZB_GATHER_H
#define OZB_GATHER_H
#include <stdint.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

/* v[l inc] for l < n into out, four elements loaded before one vector store.  Element by
 * element, a store into the copy and the strided load after it often alias modulo 4 KiB, and
 * the load then waits on the store (some 4 cycles an element on AMD's Zen 3). */
static inline void ozb_gather(const double *v, int64_t n, int64_t inc, double *out)
{
    int64_t l = 0;
#if defined(__AVX2__)
    for (; l + 4 <= n; l += 4, v += 4 * inc)
        _mm256_storeu_pd(out + l, _mm256_setr_pd(v[0], v[inc], v[2 * inc], v[3 * inc]));
#endif
    for (; l < n; l++, v += inc) out[l] = *v;
}
#endif
