/* The handle's info (ozblas_get_info): the one place a call's report is started and its
 * common fields filled; the methods add what they measured. */
#ifndef OZB_INFO_H
#define OZB_INFO_H
#include "core/problem.h"

/* Clears the handle's info and fills the configuration's fields (mode, format) and the
 * method's summation and bits per slice; returns it for the method's own fields. */
ozblas_info_t *ozb_info_begin(ozblas_handle_t h, ozblas_summation_t summation, int bits_per_slice);

/* The report of a short DOT of k products by the error-free split (stage 2), written when it
 * is read: three stores instead of the report's 160 bytes on a call of some 40 ns.
 * ozb_info_begin drops it; ozb_info_read fills the report in from it. */
static inline void ozb_info_short_dot(ozblas_handle_t h, int64_t k)
{
    h->info_dot_k = k;
    h->info_dot_mode = h->mode;
    h->info_dot_engine = h->engine;
}

/* The handle's info as the last call left it (a short DOT's filled in first). */
const ozblas_info_t *ozb_info_read(ozblas_handle_t h);

/* The output tiling of an m x n output in tiles of mb x nb, inner block kb. */
void ozb_info_tiles(ozblas_info_t *info, int64_t m, int64_t n, int64_t mb, int64_t nb, int64_t kb);

/* A CRT method's report: s moduli, `calls` GEMM calls computing `products` modulus products,
 * the flops of s products of m x n x k, and its phases' seconds. */
void ozb_info_crt(ozblas_info_t *info, int s, int64_t m, int64_t n, int64_t k, int64_t calls, int64_t products,
                  double t_split, double t_mul, double t_sum);
/* The report of a call the error-free sums computed: stage 2 the streaming sums, 3 the deep
 * sums too; left: the elements they passed on to later stages. */
void ozb_info_eft(ozblas_handle_t h, const ozb_problem *pr, int64_t left, int stage, double seconds);
/* A routine of several problems: from _begin to _end the executor adds each problem's bytes
 * between host and device and waits for the device, now - since (and whether it was staged),
 * to the handle's totals, which _end
 * writes into the info, so the report covers the whole routine, not its last problem. */
void ozb_info_moves_begin(ozblas_handle_t h);
void ozb_info_moves_add(ozblas_handle_t h, ozb_moves since, ozb_moves now, int staged);
void ozb_info_moves_end(ozblas_handle_t h);
#endif
