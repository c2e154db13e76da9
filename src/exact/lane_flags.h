/* Lane masks to fail bytes, for the certified element loops (two_term*.c, rot_pairs*.c): 1
 * where a lane is left to a later method, 0 where it was decided. */
#ifndef OZB_LANE_FLAGS_H
#define OZB_LANE_FLAGS_H
#include <stdint.h>
#include <string.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

/* fail[0..len) := the lanes of live (len of them, from the lowest) that ok (a mask register
 * or a movemask) leaves; returns how many */
static inline int64_t ozb_put_flags(uint8_t *fail, unsigned ok, unsigned live, int64_t len)
{
    if (ok == live) {
        if (len == 8) {
            const uint64_t z = 0;              /* one store, not a call */
            memcpy(fail, &z, 8);
        } else
            memset(fail, 0, (size_t)len);
        return 0;
    }
    int64_t nf = 0;
    for (int64_t l = 0; l < len; l++) {
        const int bad = !((ok >> l) & 1);
        fail[l] = (uint8_t)bad;
        nf += bad;
    }
    return nf;
}

#if defined(__AVX2__)
/* dst[l] := lane l of v for the lanes l < len that ok sets, one store each: for a vector's
 * last lanes, where a vector store would write past the data or over undecided elements (a
 * masked store, VMASKMOVPD, is microcoded on AMD's Zen and costs a short loop more than its
 * arithmetic) */
static inline void ozb_put_lanes(double *dst, __m256d v, unsigned ok, int64_t len)
{
    double t[4];
    _mm256_storeu_pd(t, v);
    for (int64_t l = 0; l < len; l++)
        if (ok >> l & 1) dst[l] = t[l];
}
#endif
#endif
