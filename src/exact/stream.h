/* The certified element loops (rot_pairs*.c, two_term*.c) stream long vectors and columns that
 * they read and write once: each asks for the line this many elements ahead of the one it
 * reads, since with the hardware's prefetch alone they wait on memory between their bursts of
 * arithmetic (measured on the 2-core Zen 4: docs/PERFORMANCE.md). */
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
