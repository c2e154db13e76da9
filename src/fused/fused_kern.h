/* Fused split-and-accumulate kernels for correctly rounded DOT and GEMV (seed 001 §4.5
 * taken to its end: slices never leave the registers).
 *
 * An element a of a row whose block maximum is below 2^e is split on the fixed grid of
 * src/split/split.c, a = sum_t q_t 2^(e - (t+1) beta), by truncation in a scaled copy:
 *   r = a * 2^(beta - e)         exact: a power-of-two scale of a normal result (|r| < 2^beta),
 *                                or below 2^-1022 where every digit t < D is 0 either way
 *   q_t = trunc(r)               an integer, |q_t| <= 2^beta - 1
 *   r = (r - q_t) * 2^beta       exact: r - q_t clears the integer bits, |r - q_t| < 1
 * so q_t are exactly the digits the slice splitter produces.  Only the levels t + u < D
 * are multiplied: pair (t, u) is accumulated as sum_l q_t(a_l) q_u(b_l) in its own binary64
 * accumulator.  Bit budget: |q_t q_u| <= (2^beta - 1)^2 < 2^(2 beta), at most kb <= 2^lg
 * of them, so every partial sum is an integer below 2^(2 beta + lg) <= 2^53 with
 * beta = OZB_FZ_BETA = 21 and kb <= OZB_FZ_KB = 2^11 (53 bits: below 2^53, exact): exact in any order and
 * with or without FMA (each FMA here computes an exact value), so the vector width and
 * the lane order never change a bit. */
#ifndef OZB_FUSED_KERN_H
#define OZB_FUSED_KERN_H
#include <stdint.h>

#define OZB_FZ_BETA  21
#define OZB_FZ_RADIX 0x1p21    /* 2^beta */
#define OZB_FZ_KB    2048      /* 2 beta + log2(kb) = 53 */
#define OZB_FZ_D1    4         /* first pass: levels t + u < 4, 84 bits below the leading digits */
#define OZB_FZ_D2    6         /* rows the first pass cannot decide: 126 bits                    */
#define OZB_FZ_NPAIRS(d) ((d) * ((d) + 1) / 2)
#define OZB_FZ_FIXED_MAX 4     /* FIXED mode's split counts with a fused DOT kernel */
/* Pair order: t = 0..D-1, then u = 0..D-1-t: (0,0) (0,1) ... (0,D-1) (1,0) ... (D-1,0). */

typedef struct {
    int width;   /* lanes per vector; also the rows per strip of the GEMV-N kernel */
    /* max over the n contiguous entries of |bits| (Inf/NaN compare above every finite) */
    int64_t (*maxbits)(const double *p, int64_t n);
    /* per-row maxima of a strip of `rows` <= width rows (column-major, leading dim lda) */
    void (*maxbits_strip)(const double *A, int64_t lda, int rows, int64_t n, int64_t *mx);
    /* a panel of rows <= 4 width rows copied to buf[v][l][width] with the rows' maxima */
    void (*panel)(const double *A, int64_t lda, int rows, int64_t n, double *buf, int64_t *mx);
    /* [0]: D1 levels, [1]: D2 levels.
     * P[p] = sum_l q_t(x_l) q_u(y_l), x scaled by sx = 2^(beta - ex), y by sy */
    void (*dot[2])(const double *x, const double *y, int64_t n, double sx, double sy, double *P);
    /* the same with y's digits given: yq[u * ldq + l], u < D */
    void (*dotq[2])(const double *a, int64_t n, double sa, const double *yq, int64_t ldq, double *P);
    /* a strip of rows <= width rows: P[p * ldp + r] for row r, row r scaled by s[r] */
    void (*strip[2])(const double *A, int64_t lda, int rows, int64_t n, const double *s,
                     const double *yq, int64_t ldq, double *P, int64_t ldp);
    /* FIXED mode's DOT (fixed_dot.c): [0][D] the pairs t + u < D (fast mode), [1][D] every
     * pair t, u < D, t-major; digits of radix 2^beta for any beta <= 26 with
     * 2 beta + log2(n) <= 53; NULL where not built (D > 4) */
    void (*fdot[2][OZB_FZ_FIXED_MAX + 1])(const double *x, const double *y, int64_t n, double sx, double sy,
                                          double radix, double *P);
    /* its GEMV-T rows: as dotq, with those pairs and radix */
    void (*fdotq[2][OZB_FZ_FIXED_MAX + 1])(const double *a, int64_t n, double sa, const double *yq, int64_t ldq,
                                           double radix, double *P);
    /* and its GEMV-N strips: as strip, with those pairs and radix */
    void (*fstrip[2][OZB_FZ_FIXED_MAX + 1])(const double *A, int64_t lda, int rows, int64_t n, const double *s,
                                            const double *yq, int64_t ldq, double radix, double *P, int64_t ldp);
} ozb_fused_kernels;

/* The widest kernel set this CPU runs; NULL where none is built (non-x86). */
const ozb_fused_kernels *ozb_fused_select(void);
/* The set a handle's calls use (OZBLAS_FUSED_AVX2 forces the 256-bit one); NULL: none
 * (fused.c) */
struct ozblas_context;
const ozb_fused_kernels *ozb_fused_kernels_for(struct ozblas_context *h);

#if defined(__x86_64__)
extern const ozb_fused_kernels ozb_fused_avx2;
extern const ozb_fused_kernels ozb_fused_avx512;
#endif
#endif
