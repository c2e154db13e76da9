/* Shared pieces of the CRT format's drivers: the k-block of one exact int32 product and
 * the fold of a later k-block (the tiler is core/tiles.h). */
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

/* acc := (acc mod m) + (dst mod m), both in [0, m): folds a later k-block into the first
 * (the sum stays below 2^9, so any number of blocks fits int32 after the next fold). */
void ozb_crt_fold(int32_t *acc, const int32_t *dst, int64_t ne, int32_t m);
#endif
