/* The products of a tile that a problem's structure leaves (pblocks.c), for the device's CRT
 * engines (resident_crt.c, resident_crcr.c). */
#ifndef OZB_PBLOCKS_H
#define OZB_PBLOCKS_H
#include "core/problem.h"
#include "cuda/dev.h"

#define OZB_PBLOCKS_MAX 8

/* In tile coordinates: rows [r0, r1), columns [c0, c1), the inner positions [l0, l1) */
typedef struct { int64_t r0, r1, c0, c1, l0, l1; } ozb_pblock;

/* Where C keeps one triangle (pr->tri) or an operand is zero beyond one (pr->zeros): the
 * tile's products (rows i0.. of op(A), mbb of them; columns j0.. of op(B), nbb; one k-block of
 * kbp positions from 0, a multiple of 16) as at most OZB_PBLOCKS_MAX blocks of whole columns
 * (or whole rows, where only op(A) has zeros), each over the rows it keeps and the inner
 * positions, widened to multiples of 16, that hold its nonzero products; returns their count.
 * 0 where the tile goes whole (no structure, or nothing to leave out), -1 where C keeps
 * nothing of it. */
int ozb_pblocks(const ozb_problem *pr, int64_t i0, int64_t mbb, int64_t j0, int64_t nbb, int64_t kbp, ozb_pblock *out);

/* A tile's residues (RA: mbb rows of kbp a modulus, RB: nbb), the problem's k, the moduli
 * count, and where its products go */
typedef struct {
    const int8_t *RA, *RB;
    int64_t mbb, nbb, kbp, k;
    int s;
    int32_t *acc;
} ozb_ptile;

/* Step u of a tile's output: where it goes by blocks (npb > 0), *b = pb[u] and its products for
 * each modulus into acc, compact (modulus t's rows x cols at acc + t rows cols), one GEMM
 * added to *calls, its seconds to *tmul; else (npb = 0, u = 0) *b the whole tile, whose
 * products the caller computed.  The flops of b's products added to *flops either way.  0, or
 * nonzero on failure. */
int ozb_ptile_block(ozb_dev *dev, const ozb_ptile *t, const ozb_pblock *pb, int npb, int u, ozb_pblock *b,
                    int64_t *calls, double *flops, double *tmul);
#endif
