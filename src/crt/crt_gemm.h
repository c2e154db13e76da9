/* Shared pieces of the CRT format's drivers: the k-block of one exact int32 product, the
 * tiler and the fold of a later k-block. */
#ifndef OZB_CRT_GEMM_H
#define OZB_CRT_GEMM_H
#include <stddef.h>
#include <stdint.h>

/* k per exact int32 GEMM: 2^16 products of |u8 x s8| <= 255 * 128 stay below 2^31 */
#define OZB_CRT_KBLOCK ((int64_t)1 << 16)

/* The product itself, dst = RB RA^T over kbb (RB in [0, 255], RA in [-128, 127], every product at
 * most 255 * 128 < 2^15, so kbb <= 2^16 keeps every sum below 2^31), is the backend's
 * crt_gemm (core/backend.h): oneDNN or DGEMM on the CPU (cpu/crt_gemm_cpu.c), cuBLAS on a
 * device. */

/* Tile sizes mb x nb (starting from m x n, halving the larger side) whose workspace
 *   per_side (mb + nb) + per_elem mb nb + per_max max(mb, nb) + fixed
 * fits the limit (or 1 x 1).  Tiling never changes a bit: every output element is computed
 * from its row and column alone. */
void ozb_crt_tiles(size_t limit, int64_t m, int64_t n, double per_side, double per_elem, double per_max, double fixed,
                   int64_t *mb, int64_t *nb);

/* acc := (acc mod m) + (dst mod m), both in [0, m): folds a later k-block into the first
 * (the sum stays below 2^9, so any number of blocks fits int32 after the next fold). */
void ozb_crt_fold(int32_t *acc, const int32_t *dst, int64_t ne, int32_t m);
#endif
