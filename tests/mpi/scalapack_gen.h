/* The operands of scalapack_client.c and of its single-node twin (pblas_single.c): the same
 * doubles from the same seed, with no library behind them (the client must know nothing of
 * ozblas).  Entries (u - 0.5) * 2^e with u uniform and e in [-20, 20]: a spread like the
 * papers' phi generator, exactly reproducible. */
#ifndef OZB_SCALAPACK_GEN_H
#define OZB_SCALAPACK_GEN_H
#include <math.h>
#include <stdint.h>

static inline uint64_t sg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t z = *s;
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
    return z ^ (z >> 33);
}

/* element (i, j) of matrix `which` (0: A, 1: B, 2: C), position-seeded: any process can
 * generate any element */
static inline double sg_elem(int which, int64_t i, int64_t j)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL * (uint64_t)(which + 1) ^ (uint64_t)i * 0xbf58476d1ce4e5b9ULL ^ (uint64_t)j * 0x94d049bb133111ebULL;
    const uint64_t a = sg_next(&s), b = sg_next(&s);
    const double u = (double)(a >> 11) * 0x1p-53;
    const int e = (int)(b % 41) - 20;
    return ldexp(u - 0.5, e);
}
#endif
