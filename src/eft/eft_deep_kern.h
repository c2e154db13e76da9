/* The deep error-free DOT, GEMV and GEMM (eft_deep.c drives, eft_deep_kern.c sums,
 * eft_deep_round.c rounds): what the error-free sums of eft_kern.h leave
 * undecided because the result cancels (a residual b - A x, an orthogonality check) gets a
 * second extraction level, which brings the bound from about 2^-80 to about 2^-120 of the
 * largest product, so that results down to ~2^-60 of their terms are still certified; the rest
 * go on to the fused kernels and Scheme I (dispatch.c).  The bits are RN(exact), as
 * on every CORRECTLY_ROUNDED path.
 *
 * Lanes: 8 at a time (two vectors), each the products of one output row (op(A) packed into
 * strips of 8 rows, ozb_eft_pack_strips, times a broadcast column of op(B)) or, for a DOT,
 * the products l = r mod 8 of its two vectors.  Blocks of nb <= BL products per lane.
 *
 * Bit budget (u = 2^-53).  A block first finds M = max RN(|x y|) per lane and takes
 * sigma = 2^(floor(log2 M) + 10) > 2^9 M, sigma2 = 2^-43 sigma = 2^10 u sigma (M <= 2^990,
 * so sigma <= 2^1001; M = 0 or tiny: sigma = 2^-960, sigma2 = 2^-1003, both normal).  Per
 * product:
 *     p = RN(x y), e = x y - p                (TwoProduct by FMA: exact but for underflow, where
 *                                              |error| <= 2^-1075)
 *     q1 = (p + sigma) - sigma, r1 = p - q1   (ExtractScalar, Rump-Ogita-Oishi 2008 Lemma 3.3:
 *                                              p = q1 + r1 exactly, |r1| <= u sigma, q1 a multiple
 *                                              of u sigma, since |p| <= 2^-9 sigma)
 *     for t in (r1, e), |t| <= u sigma = 2^-10 sigma2:
 *     q2 = (t + sigma2) - sigma2, r2 = t - q2 (the same lemma: exact, |r2| <= u sigma2, q2 a
 *                                              multiple of u sigma2)
 *     S1 += q1, S2 += q2 (both), R2 += r2 (both).
 * S1: nb terms of magnitude <= 2^-9 sigma + u sigma, partial sums below sigma = 2^53 u sigma on
 * its grid: exact.  S2: 2 nb <= 256 terms <= 2 u sigma, partial sums below 2^9 u sigma < sigma2:
 * exact.  R2: 2 nb <= 256 terms <= u sigma2, floating-point error <= gamma_255 256 u sigma2 <=
 * 2^16 u^2 sigma2 (1 + 2^-40) = EBD sigma2.  So x y summed over the block is S1 + S2 + R2 within
 * EBD sigma2 + 2 nb 2^-1075.
 *
 * Across blocks (per lane) a cascade keeps every digit: (s, e1) = TwoSum(s, S1), (c, e2) =
 * TwoSum(c, e1), (c, e3) = TwoSum(c, S2), then d += e2, e3, R2 and a += their magnitudes, G +=
 * sigma2.  s and c are exact; d, a floating sum of N = 3 blocks terms, errs by at most N 2^-52 a
 * (eft_kern.h's argument for C).  A lane's (row's) sum is s + c + d + D with
 *     |D| <= N 2^-52 a + EBD G (1 + 2^-20) + 2^-1000
 * (G: at most 2^32 sigma2s, its rounding within 2^-20; 2^-1000 covers every underflow of e,
 * k <= 2^32 of them).  RN(alpha (s + c + d + D) + beta c) is certified, or not, by NearSum on
 * the lanes' s, c, d as exact terms (ozb_sum_nearest_bounded).
 *
 * Exact results.  A residual's exact value often has few bits (inputs of 53 bits, a result
 * 2^-53 of them): it can be a double or a midpoint, where no nonzero bound certifies anything.
 * So the grid is tracked too: with g the smallest lsb(x) + lsb(y) over a lane's block (lsb:
 * the exponent of the lowest set bit, ozb_deep_lsb), every x y there is a multiple of 2^g, and
 * so is every value derived from it above (p, e: ulp(p) >= 2^g; q1, q2: u sigma and u sigma2 are
 * powers of two, and where one is below 2^g the extraction leaves t whole).  Where g >= -1074
 * (no product underflows: e is exact) and 2 nb u sigma2 <= 2^(53 + g), every partial sum of
 * R2 is a multiple of 2^g below 2^(53 + g): R2 is exact.  Where every block of a lane is so and
 * its a < 2^(53 + gmin) (1 - 2^-40), d is exact too, and the lane's sum is s + c + d exactly:
 * then RN of the lanes' terms is NearSum's (ozb_sum_nearest), with no bound at all.
 *
 * Non-finite inputs, M above 2^990 and overflow leave the row to the caller.  Nineteen vector
 * operations per four products; used only on what the first level could not certify.
 * Compiled with -ffp-contract=off: the FMAs are explicit. */
#ifndef OZB_EFT_DEEP_KERN_H
#define OZB_EFT_DEEP_KERN_H
#include "eft/eft_kern.h"

#define EBD (0x1p-90 * (1.0 + 0x1p-20))    /* 2^16 u^2 (1 + 2^-40), G's rounding margin */

#ifdef EFT_AVX2
typedef struct { __m256d s, c, d, a, g; } deep4;   /* four lanes' totals */

/* 8 lanes' totals, and per lane the finest grid so far and whether some block's R2 may
 * have rounded */
typedef struct {
    deep4 t[2];
    int32_t gmin[8];
    uint8_t inexact[8];
} deep_row;


/* k steps of 8 lanes in blocks of BL: a[8 l + r] times x[l] (xstep 1: broadcast) or x[8 l + r]
 * (xstep 8); la, lx: their lowest bits alike (ozb_deep_lsb), or la = NULL: not known, so no
 * lane's sums count as exact (the bound alone certifies); wide: the blocks' sums by the
 * 512-bit loop (ozb_eft_wide; the same bits).  0 where some lane's products are out of
 * range.  (eft_deep_kern.c) */
int ozb_deep_run(const double *a, const double *x, int xstep, int64_t k, const int32_t *la, const int32_t *lx,
                 deep_row *st, int wide);
/* A block's largest |x y| per lane (halves M[0], M[1]) and lowest bits G (la given) with
 * 512-bit vectors, as the 256-bit loop finds them where no product is NaN.  (eft_deep512.c;
 * only where wide) */
void ozb_deep_max512(const double *a, const double *x, int xstep, int64_t nb, const int32_t *la, const int32_t *lx,
                     __m256d M[2], __m256i *G);
/* A block's S1, S2, R2 of both halves (g, h: their sigma and sigma2) with 512-bit vectors, as
 * the 256-bit loop computes them, lane by lane.  (eft_deep512.c; only where wide) */
void ozb_deep_sums512(const double *a, const double *x, int xstep, int64_t nb, const __m256d g[2], const __m256d h[2],
                      __m256d S1[2], __m256d S2[2], __m256d R2[2]);
/* The exponent of v's lowest set bit (v = odd 2^lsb); OZB_LSB_NONE for zero, far below any
 * real exponent for Inf/NaN.  (eft_deep_kern.c) */
#define OZB_LSB_NONE (1 << 20)
int32_t ozb_deep_lsb(double v);
/* out[i] = ozb_deep_lsb(v[i]) for i < n, vectorized.  (eft_deep_kern.c) */
void ozb_deep_lsb_n(const double *v, int64_t n, int32_t *out);
/* RN(alpha sum + beta c) of the lanes lo..hi-1 of st taken together into *out, or 0.
 * nblocks: the blocks per lane.  (eft_deep_round.c) */
int ozb_deep_round(const ozb_problem *pr, const deep_row *st, int lo, int hi, int64_t nblocks, double cval, double *out);
/* Four rows (st->t[v]) at once where alpha = +-1, each against its delta; returns the rows
 * certified (bit r: RN(exact) in y[r]).  (eft_deep_round.c) */
int ozb_deep_cert4(const deep4 *t, double alpha, int use_c, double beta, const double c0[4], const double delta[4], double y[4]);
/* Every lane's delta for ozb_deep_cert4 into dl: 0 where its terms are its exact sum, else its
 * bound; -1 where that is not finite.  (eft_deep_round.c) */
void ozb_deep_lane_deltas(const deep_row *st, int64_t nblocks, double dl[8]);
#endif
#endif
