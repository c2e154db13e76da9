/* The kernels' launch geometry (ozb_kernels.cu), in C so that the host code sizes its
 * scratch from it and the tests check it against the hardware's limits (test_limits.c):
 * at most 1024 threads a block, at most 2^31 - 1 blocks in x.  Every kernel indexes with
 * 64-bit integers and loops grid-stride, so a grid smaller than the work still covers it. */
#ifndef OZB_LAUNCH_H
#define OZB_LAUNCH_H
#include <stdint.h>

#define OZB_KL_THREADS  256
#define OZB_KL_GRID_MAX (65535 * 16)
/* blocks of OZB_KL_THREADS for n items: at least 1, at most OZB_KL_GRID_MAX */
static inline unsigned ozb_kl_blocks(int64_t n)
{
    const int64_t b = (n + OZB_KL_THREADS - 1) / OZB_KL_THREADS;
    return (unsigned)(b < OZB_KL_GRID_MAX ? (b < 1 ? 1 : b) : OZB_KL_GRID_MAX);
}

/* the CRT residues of a column-major side (k_crt_residues_cm): tiles of OZB_KL_RES_TILE rows
 * x OZB_KL_RES_TILE k-positions, one block of OZB_KL_THREADS a tile, at most OZB_KL_GRID_MAX
 * blocks (grid-stride beyond) */
#define OZB_KL_RES_TILE 32
static inline int64_t ozb_kl_res_tiles(int64_t rows, int64_t kbp, int64_t nkb)
{
    return (rows + OZB_KL_RES_TILE - 1) / OZB_KL_RES_TILE * ((kbp + OZB_KL_RES_TILE - 1) / OZB_KL_RES_TILE) * nkb;
}
static inline unsigned ozb_kl_res_blocks(int64_t tiles)
{
    return (unsigned)(tiles < OZB_KL_GRID_MAX ? (tiles < 1 ? 1 : tiles) : OZB_KL_GRID_MAX);
}

/* the skinny product: one block of OZB_KL_SKINNY_THREADS per row, at most OZB_KL_SKINNY_GRID_MAX */
#define OZB_KL_SKINNY_THREADS  128
#define OZB_KL_SKINNY_GRID_MAX (65535 * 8)
static inline unsigned ozb_kl_skinny_grid(int64_t rows)
{
    return (unsigned)(rows < OZB_KL_SKINNY_GRID_MAX ? (rows < 1 ? 1 : rows) : OZB_KL_SKINNY_GRID_MAX);
}

/* The exact sum's grid and its long accumulators (ozb_longacc, 1.9 KB each, in global
 * memory): few elements over many k-blocks (at most OZB_KL_SUM_WIDE_MAX elements, nkb >= 2)
 * take one block of ozb_kl_sum_wide() threads per element; others one thread per element in
 * blocks of OZB_KL_SUM_BLOCK, at most OZB_KL_SUM_EXACT_MAX threads (grid-stride beyond).
 * Either way at most 2^17 accumulators. */
#define OZB_KL_SUM_BLOCK 128
#define OZB_KL_SUM_EXACT_MAX ((int64_t)1 << 17)
#define OZB_KL_SUM_WIDE_MAX 1024
/* the fixed-order binary64 sum: one thread per element, blocks of OZB_KL_SUM_BLOCK */
static inline unsigned ozb_kl_sum_blocks(int64_t elements)
{
    const int64_t b = (elements + OZB_KL_SUM_BLOCK - 1) / OZB_KL_SUM_BLOCK;
    return (unsigned)(b < OZB_KL_GRID_MAX ? (b < 1 ? 1 : b) : OZB_KL_GRID_MAX);
}
static inline int ozb_kl_sum_wide(int64_t elements, int64_t nkb, int exact)
{
    if (!exact || nkb < 2 || elements < 1 || elements > OZB_KL_SUM_WIDE_MAX) return 0;
    int t = 32;                                        /* a power of two >= nkb, 32 .. 128 */
    while (t < nkb && t < 128) t *= 2;
    return t;
}
/* the wide sum's accumulators per block: its threads that have a k-block */
static inline int64_t ozb_kl_sum_wide_slots(int64_t nkb, int wide) { return nkb < wide ? nkb : wide; }
static inline int64_t ozb_kl_sum_accumulators(int64_t elements, int64_t nkb, int exact)
{
    if (!exact) return 0;
    const int w = ozb_kl_sum_wide(elements, nkb, exact);
    if (w) return elements * ozb_kl_sum_wide_slots(nkb, w);
    const int64_t t = (elements + OZB_KL_SUM_BLOCK - 1) / OZB_KL_SUM_BLOCK * OZB_KL_SUM_BLOCK;
    return t < OZB_KL_SUM_EXACT_MAX ? t : OZB_KL_SUM_EXACT_MAX;
}

/* The certified DOT (kernels/ozb_eft_ops.h): row i's k products in nq chunks of L, each a
 * partial chain -- by rows where op(A)'s rows are adjacent in memory (one thread a row and
 * chunk: neighbouring threads read neighbouring elements), by blocks otherwise (one block
 * of OZB_KL_THREADS a row and chunk, a shared-memory merge tree of 8 levels) -- about
 * OZB_KL_EFT_THREADS threads or OZB_KL_EFT_BLOCKS blocks in all; then the finish, a warp of
 * 32 lanes a row (OZB_KL_EFT_FROWS rows a block: lane merges of ceil(nq / 32) chunks, a tree
 * of 5 levels).  depth: the error sum's tree depth from any leaf to the finish (2 for an
 * element's leaves, 1 for every later element of the thread, 2 per merge), for the bound. */
#define OZB_KL_EFT_THREADS ((int64_t)1 << 18)
#define OZB_KL_EFT_BLOCKS  2048
#define OZB_KL_EFT_FROWS   8
typedef struct { int64_t nq, L; unsigned grid, fgrid; int64_t depth; } ozb_kl_eft_geom;
/* ceil(x / d) for x >= 0, d >= 1, without the overflow of x + d - 1 */
static inline int64_t ozb_kl_cdiv(int64_t x, int64_t d) { return x / d + (x % d != 0); }
static inline ozb_kl_eft_geom ozb_kl_eft_plan(int64_t m, int64_t k, int rows)
{
    ozb_kl_eft_geom g;
    const int64_t target = rows ? OZB_KL_EFT_THREADS : OZB_KL_EFT_BLOCKS;
    const int64_t most = rows ? ozb_kl_cdiv(k, 32) : ozb_kl_cdiv(k, 4 * OZB_KL_THREADS);
    int64_t nq = ozb_kl_cdiv(target, m);          /* m >= 1 */
    if (nq > most) nq = most;
    if (nq < 1) nq = 1;
    g.L = ozb_kl_cdiv(k, nq);
    g.nq = ozb_kl_cdiv(k, g.L);                   /* no empty chunk */
    const int64_t items = m * g.nq;               /* <= m + target: nq > 1 only where m < target */
    g.grid = rows ? ozb_kl_blocks(items) : (unsigned)(items < OZB_KL_GRID_MAX ? items : OZB_KL_GRID_MAX);
    const int64_t fb = ozb_kl_cdiv(m, OZB_KL_EFT_FROWS);
    g.fgrid = (unsigned)(fb < OZB_KL_GRID_MAX ? fb : OZB_KL_GRID_MAX);
    const int64_t per = rows ? g.L : ozb_kl_cdiv(g.L, OZB_KL_THREADS);
    g.depth = per + 1 + (rows ? 0 : 2 * 8) + 2 * ozb_kl_cdiv(g.nq, 32) + 2 * 5;
    return g;
}
#endif
