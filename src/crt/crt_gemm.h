/* The exact product engine of the CRT format: one oneDNN u8 x s8 -> s32 GEMM per modulus,
 * shared by FIXED/DOUBLE (crt.c), CORRECTLY_ROUNDED (crt_cr.c) and the ACCURATE bound. */
#ifndef OZB_CRT_GEMM_H
#define OZB_CRT_GEMM_H
#include <stddef.h>
#include <stdint.h>
struct ozb_dev;

/* k per exact int32 GEMM: 2^16 products of |u8 x s8| <= 255 * 128 stay below 2^31 */
#define OZB_CRT_KBLOCK ((int64_t)1 << 16)

/* dst (mbb x nbb, column-major, leading dimension mbb) = RB RA^T over kbb, exactly (or, on
 * a CUDA device and mod > 0, congruent modulo mod: all that the reconstruction reads):
 * RB holds op(B)'s values in [0, 255] (nbb x kbb row-major, or kbb x nbb when colB),
 * RA op(A)'s in [-128, 127] (mbb x kbb row-major, or kbb x mbb when colA).  Every product is
 * at most 255 * 128 < 2^15, so kbb <= 2^16 keeps every sum below 2^31.  oneDNN runs on nt
 * OpenMP threads; the caller's OpenMP default is put back.  dnnl: oneDNN is exact here and
 * allowed (ozb_int8_exact_cpu), else the same integers by DGEMM. */
int ozb_crt_gemm(struct ozb_dev *dev, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb, int64_t nbb,
                 int64_t kbb, int32_t *dst, int32_t mod, int nt, int dnnl);   /* 0, or nonzero: the device failed */

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
