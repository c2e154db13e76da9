/* The certified element loops (rot_pairs*.c, two_term*.c) stream long vectors and columns that
 * they read and write once: each asks for the line this many elements ahead of the one it
 * reads, since the hardware's prefetch alone leaves them waiting on memory (2^24 DROT pairs on
 * the 2-core Zen 4: 19 against 15.5 ms with it; DSYR2 n = 4096: 6.2-7.7 against 5.3-5.5 ms). */
#ifndef OZB_STREAM_H
#define OZB_STREAM_H
#include <immintrin.h>
#include <stdint.h>

enum { OZB_AHEAD = 128 };

/* (the address as an integer: past the end of an array it is no pointer C allows, and the
 * prefetch of an address it does not map is dropped) */
static inline void ozb_ahead(const double *p)
{
    _mm_prefetch((const char *)((uintptr_t)p + sizeof(double) * OZB_AHEAD), _MM_HINT_T0);
}
#endif
