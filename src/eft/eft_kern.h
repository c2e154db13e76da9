/* Kernels of the error-free DOT and GEMV (eft_dot.c, eft_gemv_n.c): the bit budget, the
 * vector primitives, the folds of lanes.  AVX2 and FMA (the library's x86-64-v3 baseline);
 * EFT_AVX2 undefined elsewhere, where the method is not offered.
 *
 * The products of a row are summed in lanes (8 for a DOT, one per row in GEMV-N), in blocks of
 * at most BL products per lane.  A block has a power of two sigma per lane with every
 * |x y| <= sigma / 2^7, and each product is split by two FMAs and a subtraction:
 *     h = RN(x y + sigma),  q = h - sigma,  r = RN(x y - q)
 * then S += q, R += r.  Bit budget (u = 2^-53, sigma = 2^k):
 *   - x y + sigma lies in [sigma/2, 3 sigma/2], so h is a multiple of 2^(k-53) = u sigma, q = h - sigma
 *     is exact (Sterbenz) and a multiple of u sigma, and |x y - q| <= u sigma (half an ulp of h);
 *   - the partial sums of q stay below BL (max|x y| + u sigma) < sigma = 2^53 u sigma: S is exact;
 *   - r is off x y - q by at most u |x y - q| <= u^2 sigma (or 2^-1075 where it is subnormal), and
 *     R, a sum of nb <= BL terms below u sigma, errs by at most gamma_(nb-1) nb u sigma: in all,
 *     |S + R - sum x y| <= BL^2 u^2 sigma + nb 2^-1075 per lane and block.
 * sigma is not known before a block is read: a block takes the sigma its lane's previous block
 * chose (next_sigma: 2^(floor(log2 max|q|) + 14), 64 times the magnitude may come before it is too small;
 * the first block takes it from its first few products: first_sigma), and keeps the largest
 * |q| it made.
 * max|q| <= sigma / 2^7 proves the budget held: were some |x y| above sigma / 2, its q would be
 * at least sigma / 2 in magnitude (rounding is monotone).  Where it does not hold the block is summed again
 * with the sigma its max|q| asks for (it is in cache: rare, and only where magnitudes grow).
 * Seven vector operations per four products.
 *
 * After each block, S and R go into the lane's running totals, the Dot2 of the whole row:
 *   s  the cascaded TwoSum of the blocks' S                                (error-free),
 *   c  the floating-point sum of w = RN(t + R), t TwoSum's error,
 *   a  the floating-point sum of |w|,   G  the sum of the blocks' sigma,
 * and the lanes are folded alike into one (S, C, A, G).  C is a summation tree over N terms,
 * each w off t + R by at most u |w|; any tree over N terms errs by at most gamma_(N-1) times the
 * sum of their magnitudes, which A bounds within 1 / (1 - gamma_(N-1)), so
 *     |C - sum(t + R)| <= (u + gamma_(N-1)) A / (1 - gamma_(N-1)) <= N 2^-52 A     (N <= 2^40)
 * and the row's sum is S + C + D with |D| <= N 2^-52 A + BL^2 2^-106 G (1 + 2^-20) + n 2^-1074
 * (the margin covers the rounding of G, a sum of at most 2^32 sigmas: k <= 2^32).
 * alpha (S + C + D) + beta c goes to Sum2 with alpha S, alpha C and beta c split exactly by
 * TwoProduct (ozb_sum2_certify): RN(exact) is written where every value within the bound rounds
 * alike.
 *
 * Inf, NaN and overflow need no test in the loop: a non-finite product or sum leaves S, R or the
 * totals non-finite for good (additions never make Inf or NaN finite), and products whose
 * magnitude is beyond 2^990 mark the row too (sigma is at least 2^-960 and, from a first block's
 * headroom, at most 2^1008, where nothing overflows yet); such rows are left to the
 * caller, as are rows the certificate cannot decide.  The result is RN(exact) either way: the
 * bits of every CORRECTLY_ROUNDED path.
 *
 * Compiled with -ffp-contract=off: the FMAs are explicit. */
#ifndef OZB_EFT_KERN_H
#define OZB_EFT_KERN_H
#include "core/problem.h"
#include "sum/eft.h"
#include <math.h>
#include <stdint.h>
#include "sum/eft4.h"

#define BL 128               /* products per lane and block: 2 BL max|q| below sigma */
#define BLN 32               /* GEMV-N: columns per block (as many streams of A at a time) */
#define LANES 8              /* DOT lanes: two 256-bit vectors */
#define CHUNK 512            /* strided operands are gathered this many elements at a time */
#define NCHUNK_PAR 64        /* a parallel DOT's pieces, each folded on its own */
/* The GEMM's a-priori bounds take maxima over sub-blocks of SBL products: a block's bound is
 * the largest product of a row's and a column's maxima over the same sub-block, so a graded
 * operand (LAPACK's triangular solves with scaling: a column of op(B) falling 2^200 along k
 * while op(A) is triangular) is bounded within 2^(SBL times the grading per step) of its
 * largest product instead of by the whole block's maxima (which left 80 % of such a GEMM
 * uncertified).  Where a column's sub-block maxima are within FLAT_X of each other, the
 * block's maxima bound it within FLAT_X at less cost (eft_gemm.c).  BL is a multiple of SBL. */
#define SBL 8
#define FLAT_X 0x1p8
#define EBC (0x1p-106 * BL * BL * (1.0 + 0x1p-20))   /* a block's bound per unit of sigma; the margin covers G's rounding */
/* The bounds' products stay normal: a multiplication whose result is subnormal takes a
 * microcode assist on Intel cores (about 150 cycles), and LAPACK's test matrices scaled toward
 * underflow make such totals by the million.  A nonzero total A below BOUND_A_MIN and G below
 * BOUND_G_MIN enter their products as these minima (A N 2^-52 >= 2^-1022 for N >= 1; G EBC >
 * 2^-1022 since EBC > 2^-92).  A larger bound is still a bound: this adds at most
 * 2^-970 N 2^-52 <= 2^-982 (N <= 2^40) and 2^-930 EBC < 2^-1021 to it, so it certifies less
 * only where a result lies below about 2^-930, and a certified result is RN(exact) either way. */
#define BOUND_A_MIN 0x1p-970
#define BOUND_G_MIN 0x1p-930

/* Folds of lanes: s, c, a, G as above. */
typedef struct { double S, C, A, G; } fold_t;
static inline void fold_add(fold_t *f, double s, double c, double a, double g)
{
    double t;
    ozb_two_sum(f->S, s, &f->S, &t);
    f->C += t + c;
    f->A += fabs(t) + a;
    f->G += g;
}

#ifdef EFT_AVX2
typedef struct { __m256d s, c, a, g; } tot4;      /* four lanes' running totals */

/* A block's S and R into the totals: the Dot2 step with S as the summand and R as its error. */
static inline void tot_add(tot4 *t, __m256d S, __m256d R, __m256d g)
{
    const __m256d s1 = _mm256_add_pd(t->s, S), bb = _mm256_sub_pd(s1, t->s);
    const __m256d e = _mm256_add_pd(_mm256_sub_pd(t->s, _mm256_sub_pd(s1, bb)), _mm256_sub_pd(S, bb));
    const __m256d w = _mm256_add_pd(e, R);
    t->s = s1;
    t->c = _mm256_add_pd(t->c, w);
    t->a = _mm256_add_pd(t->a, _mm256_and_pd(w, ABSMASK));
    t->g = _mm256_add_pd(t->g, g);
}

/* tot_add on totals that are all zero (a row's first block): the same sums, the additions to
 * zero left out (s = S and w = R exactly; only the sign of a zero may differ, which no
 * certificate reads: a zero y certifies nothing) */
static inline void tot_first(tot4 *t, __m256d S, __m256d R, __m256d g)
{
    t->s = S;
    t->c = R;
    t->a = _mm256_and_pd(R, ABSMASK);
    t->g = g;
}

static inline void tot_fold(const tot4 *t, fold_t *f)
{
    double s[4], c[4], a[4], g[4];
    _mm256_storeu_pd(s, t->s); _mm256_storeu_pd(c, t->c); _mm256_storeu_pd(a, t->a); _mm256_storeu_pd(g, t->g);
    for (int l = 0; l < 4; l++) fold_add(f, s[l], c[l], a[l], g[l]);
}

/* sigma = 2^(floor(log2 m) + 10), at least 2^-960; m <= 2^990 (checked by the caller) */
static inline __m256d sigma_for(__m256d m)
{
    const __m256i e = _mm256_and_si256(_mm256_castpd_si256(m), _mm256_set1_epi64x(0x7ff0000000000000ll));
    const __m256d g = _mm256_castsi256_pd(_mm256_add_epi64(e, _mm256_set1_epi64x(10ll << 52)));
    return _mm256_max_pd(g, _mm256_set1_pd(0x1p-960));
}

/* The next block's sigma: the one this block's max|q| asks for, times 16, so that products
 * may grow 2^6 before a block is summed again (sigma_for alone allows 4: on the sweep's data,
 * phi = 1, most GEMV-N blocks of 32 products would then run twice; AVX2 EPYC, CR, 1 thread,
 * GEMV-N 256: 44 us against 67 us).  A larger sigma only widens the block's share of the
 * bound (G). */
static inline __m256d next_sigma(__m256d m)
{
    return _mm256_mul_pd(sigma_for(m), _mm256_set1_pd(16.0));
}

/* A row's first block has no earlier block to take sigma from: it takes the largest of its
 * first FIRST_PEEK products per lane with 2^8 more headroom (a block whose products grow
 * further is summed again; a sigma too large only widens that block's bound, by 2^8). */
#define FIRST_PEEK 4
static inline __m256d first_sigma(__m256d m)
{
    return _mm256_mul_pd(sigma_for(m), _mm256_set1_pd(0x1p8));
}

/* 1 where every lane's max|q| proves the block's budget (NaN: no) */
static inline int fits(__m256d mq, __m256d g)
{
    const __m256d ok = _mm256_cmp_pd(mq, _mm256_mul_pd(g, _mm256_set1_pd(0x1p-7)), _CMP_LE_OQ);
    return _mm256_movemask_pd(ok) == 0xf;
}

/* The larger of a and b per lane, for values >= 0, +Inf or NaN of sign 0 (maxima of |v|): as
 * integers these are ordered as the values with NaN above Inf, so a NaN is kept */
static inline __m256d ozb_imax4(__m256d a, __m256d b)
{
    return _mm256_blendv_pd(a, b, _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_castpd_si256(b), _mm256_castpd_si256(a))));
}

/* 1 where max|q| (or max|p|) can choose a sigma: finite and at most 2^990 */
static inline int in_range(__m256d m)
{
    return _mm256_movemask_pd(_mm256_cmp_pd(m, _mm256_set1_pd(0x1p990), _CMP_LE_OQ)) == 0xf;
}

#define SPLIT4(S, R, M, x, y, g) SPLIT4_WITH(S, R, M, x, y, g, OZB_MAXABS4)   /* below */
/* M := max(M, |q|) (M >= 0): and, max with AVX2; one VRANGEPD (largest magnitude, sign
 * cleared) in functions built for AVX-512 DQ and VL (OZB_MAXABS4_DQ).  The same value. */
#define OZB_MAXABS4(M, q) _mm256_max_pd(M, _mm256_and_pd(q, ABSMASK))
#define OZB_MAXABS4_DQ(M, q) _mm256_range_pd(M, q, 0xb)
/* The split of one vector of products into S, R, with the largest |q| in M. */
#define SPLIT4_WITH(S, R, M, x, y, g, MAXABS) do {                                     \
        const __m256d x_ = (x), y_ = (y);                                               \
        const __m256d q_ = _mm256_sub_pd(_mm256_fmadd_pd(x_, y_, g), g);                \
        R = _mm256_add_pd(R, _mm256_fmsub_pd(x_, y_, q_));                              \
        S = _mm256_add_pd(S, q_);                                                       \
        M = MAXABS(M, q_);                                                              \
    } while (0)
/* The running split, where a bound proves beforehand that every |x y| of a block is at most
 * 2^-9 sigma (1 + u) and the block has nb <= BL products per lane (eft_gemm.c, two columns
 * at a time): tau starts at sigma and takes each product by one FMA,
 *     tau' = RN(x y + tau),  d = tau' - tau,  r = RN(x y - d),  R += r,
 * four vector operations per four products where SPLIT4_NOMAX takes five.  Bit budget (u =
 * 2^-53, sigma = 2^k, 2^-960 <= sigma <= 2^1000):
 *   - every tau lies within sum |x y| + nb u 2 sigma <= sigma/4 (1 + u) + 2^-44 sigma of sigma,
 *     so in [sigma/2, 2 sigma): tau is a multiple of u sigma and never overflows;
 *   - d is exact (Sterbenz: tau and tau' within a factor 2 of each other), so
 *     e = x y - d = x y + tau - tau' is the FMA's rounding error, |e| <= u sigma (half an
 *     ulp of tau' < 2 sigma);
 *   - r = RN(e) is off e by at most u^2 sigma (or 2^-1075 where it is subnormal), and R, a sum
 *     of nb terms below (1 + u) u sigma, errs by at most gamma_(nb-1) nb (1 + u) u sigma;
 *   - S = tau_nb - sigma = sum d exactly (Sterbenz again), and sum x y = S + sum e.
 * In all |S + R - sum x y| <= nb^2 u^2 sigma (1 + 2^-40) + nb 2^-1075: SPLIT4_NOMAX's bound
 * for the same sigma, within EBC's margin, so the totals and the certificates take S and R as
 * they take SPLIT4's.  (The FMA chain has a latency of four cycles per step: only worth it
 * with two columns' chains interleaved.) */
#define CHAIN4(T, R, x, y) do {                                                         \
        const __m256d t_ = _mm256_fmadd_pd(x, y, T);                                     \
        R = _mm256_add_pd(R, _mm256_fmsub_pd(x, y, _mm256_sub_pd(t_, T)));              \
        T = t_;                                                                         \
    } while (0)
/* The running split where no bound is known beforehand (GEMV-N, eft_gemv_n.c: blocks of at most
 * BLN = 32 products per lane): as CHAIN4, with the largest |d| kept; max|d| <= 2^-7 sigma
 * (fits) proves the budget afterwards.  By induction on the steps: were tau' outside
 * [tau/2, 2 tau], |tau' - tau| > tau/2 >= sigma/4 and so |d| = |RN(tau' - tau)| >= sigma/4
 * (rounding is monotone); so every d is exact, |d| <= 2^-7 sigma, and every tau stays within
 * 32 2^-7 sigma = sigma/4 of sigma: the conditions of CHAIN4's budget, whose bound
 * nb^2 u^2 sigma (1 + 2^-40) + nb 2^-1075 the totals take.  A non-finite product makes tau
 * and d Inf or NaN, which fits and in_range refuse.  Six vector operations per four
 * products, three of them additions, against SPLIT4's seven and four. */
#define CHAIN4_MAX(T, R, M, x, y) CHAIN4_MAX_WITH(T, R, M, x, y, OZB_MAXABS4)   /* (DQ: five) */
#define CHAIN4_MAX_WITH(T, R, M, x, y, MAXABS) do {                                     \
        const __m256d x_ = (x), y_ = (y);                                               \
        const __m256d t_ = _mm256_fmadd_pd(x_, y_, T), d_ = _mm256_sub_pd(t_, T);       \
        R = _mm256_add_pd(R, _mm256_fmsub_pd(x_, y_, d_));                              \
        M = MAXABS(M, d_);                                                              \
        T = t_;                                                                         \
    } while (0)
/* The same where a bound proves the budget beforehand (eft_gemm.c): no largest |q| */
#define SPLIT4_NOMAX(S, R, x, y, g) do {                                                \
        const __m256d q_ = _mm256_sub_pd(_mm256_fmadd_pd(x, y, g), g);                  \
        R = _mm256_add_pd(R, _mm256_fmsub_pd(x, y, q_));                                \
        S = _mm256_add_pd(S, q_);                                                       \
    } while (0)
#endif

/* The state of one call (ozb_eft_cr) */
typedef struct {
    const ozb_problem *pr;
    uint8_t *fail;
    const double *x;        /* GEMV: the vector, contiguous */
    double *state;          /* GEMV-N: s, c, a, G, sigma per row; DOT: the pieces' folds */
    int64_t nchunk;         /* DOT: pieces */
    double terms;           /* ozb_eft_put4: at least this many terms in a row's C (0: k + 3) */
    int wide;               /* DOT lanes by the 512-bit loop (ozb_eft_wide: the same bits) */
} ozb_eft_t;

/* Row i's rounded result into C, or its fail flag set; returns 1 when left to the caller.
 * N: the number of terms of the row's C (the bound at the top). */
int64_t ozb_eft_put(const ozb_eft_t *e, int64_t i, fold_t f, double N);
/* RN(alpha (S + C + D) + beta c0) for every |D| <= B, by Sum2 over alpha S, alpha C and beta
 * c0 split exactly (or TwoSum where alpha = 1 and beta c0 is not used): 1 and *out where
 * certified, 0 where not (S, C, B finite, B >= 0) (eft_dot.c) */
int ozb_eft_finish(double S, double C, double B, double alpha, double beta, double c0, int use_c, double *out);

/* The bound on |D| (eft_kern.h's head) for a fold of N terms; NaN where the fold is not
 * finite (eft_dot.c) */
double ozb_eft_fold_bound(fold_t f, double N);

/* N for k products in `lanes` lanes summed as `pieces` pieces: one w per lane and block (at
 * most k) and the folds' errors */
static inline double ozb_eft_terms(int64_t k, int64_t lanes, int64_t pieces) { return (double)k + (double)(lanes * (pieces + 2)); }

/* One output column (col->pr->n == 1, col->fail its m flags): a DOT (m == 1), rows of op(A)
 * one DOT each (a.cs == 1) or GEMV-N strips; xbuf: k doubles for a strided x, state: the
 * GEMV-N strips' (ozb_eft_state_bytes), pieces: 4 NCHUNK_PAR doubles for a parallel DOT.
 * Returns the rows left to the caller. */
int64_t ozb_eft_column(const ozb_eft_t *col, double *xbuf, double *state, double *pieces, int par, int nt);
/* op(A) into strips of 8 rows: strip b at P + 8 k b, element (8b + r, l) at [8 l + r], rows
 * beyond m zero (8 k ceil(m / 8) doubles), the rows' maxima per sub-block of SBL columns into
 * mA (8 ceil(m / 8) ceil(k / SBL) doubles; NULL: not wanted) and per block of BL into mAc
 * (8 ceil(m / 8) ceil(k / BL) doubles) (eft_gemm.c) */
void ozb_eft_pack_strips(const ozb_problem *pr, double *P, double *mA, double *mAc);
/* op(B)'s columns contiguous: column j at Bp + j k (a copy; 4 x 4 transposes in registers
 * where op(B)'s rows are contiguous) (eft_gemm_pack.c) */
void ozb_eft_pack_columns(const ozb_problem *pr, double *Bp);
/* The maxima of op(B)'s columns per sub-block of SBL into mX (n ceil(k / SBL) doubles), and
 * per block of BL into mXc (n ceil(k / BL) doubles): the block's maximum where its
 * sub-blocks' are flat, else -1; x: column j of op(B) at x + j ldx, contiguous (eft_gemm.c) */
void ozb_eft_column_maxima(const ozb_problem *pr, const double *x, int64_t ldx, double *mX, double *mXc);
static inline size_t ozb_eft_state_bytes(int64_t m) { return ((size_t)m / 8 + 1) * 2 * 5 * 32; }   /* GEMV-N, m rows */

#ifdef EFT_AVX2
/* eft_dot.c's DOT lane loop with 512-bit vectors, the same totals and sigmas bit for bit
 * (eft_dot512.c; only where ozb_eft_wide says so) */
int ozb_eft_dot_run512(const double *x, const double *y, int64_t n8, tot4 t[2], __m256d g[2], int *have_g);
/* eft_gemm.c's block of a strip times two columns with 512-bit vectors: S and R of the four
 * 256-bit halves (strip rows 0-3 and 4-7, column x0 then x1) from their sigmas gs, as
 * block_two computes them (eft_gemm512.c; only where ozb_eft_wide says so) */
void ozb_eft_block_two512(const double *ab, const double *x0, const double *x1, int64_t nb, const __m256d gs[4],
                          __m256d S[4], __m256d R[4]);
/* eft_gemm.c's strip times four columns with 512-bit vectors (eft_gemm512.c; only where
 * ozb_eft_wide says so): one block of nb products into the four columns' totals (column c's
 * s, c, a, G of the eight rows at tot + 32 c + 8 {0, 1, 2, 3}; first: the row's first block,
 * as tot_first, else as tot_add), from the sigmas gs (column c's halves gs[2c], gs[2c+1]) */
void ozb_eft_block_four512(const double *ab, const double *const x[4], int64_t nb, const __m256d gs[8], double *tot, int first);
/* eft_gemm.c's strip times six columns with 256-bit vectors (eft_gemm6.c; where the 512-bit
 * loops are not used): one block of nb products into the six columns' totals (column c's
 * rows 0-3 at tot[2c], 4-7 at tot[2c+1]; first: the row's first block, as tot_first, else as
 * tot_add), from the sigmas gs (the same indices) */
void ozb_eft_block_six(const double *ab, const double *const x[6], int64_t nb, const __m256d gs[12], tot4 tot[12],
                       int first);
/* The four columns' eight rows certified from tot (ozb_eft_cert4's arithmetic, its symmetric
 * test) into C's columns c + q ccs where all eight are: returns those columns (bit q) */
int ozb_eft_quad_put512(const double *tot, int one_block, double N, double alpha, int use_c, double beta, double *c,
                        int64_t ccs);
/* the 256-bit loop itself (eft_dot.c; for test_eft_kernels, which compares the two) */
int ozb_eft_dot_run256(const double *x, const double *y, int64_t n8, tot4 t[2], __m256d g[2], int *have_g);

/* State of 4 rows of a strip: totals and sigma, in memory between column blocks */
typedef struct { tot4 t; __m256d g; } row4_t;

/* One block of nb <= BL columns for a strip of 8 rows: a points to row 0 of the first column,
 * columns lda apart; xs the block's x; first: the row's first block; wide: by the 512-bit
 * twin (ozb_eft_wide; the same bound, so the same results).  0 where a row's magnitudes are
 * out of range (then the strip is left to the caller).  (eft_gemv_n.c) */
int ozb_eft_strip_block(const double *a, int64_t lda, const double *xs, int64_t nb, row4_t st[2], int first, int wide);
/* The 512-bit twin: the strip as one vector, two running splits over alternate columns
 * (column j at cols[j] where cols is given, else at a + j lda).  (eft_strip512.c) */
int ozb_eft_strip_block512(const double *a, int64_t lda, const double *const *cols, const double *xs, int64_t nb,
                           row4_t st[2], int first);
/* The same for two whole strips at once (16 rows from a, st[0..3]) by the running split, the
 * AVX-512 DQ twin where wide and the CPU has it; st changes only where it returns 1, and 0
 * (a row out of range) leaves the caller to take each strip alone.  (eft_gemv_n.c) */
int ozb_eft_strip_pair(const double *a, int64_t lda, const double *xs, int64_t nb, row4_t st[4], int first, int wide);
/* The same (not a row's first block) with column j's lanes and-ed with mk[8 j .. 8 j + 7] (all
 * ones or zeros: a band's window read where it lies, the lanes outside the band zeros) */
int ozb_eft_strip_block_masked(const double *a, int64_t lda, const double *mk, const double *xs, int64_t nb, row4_t st[2]);
/* The same with column j's row 0 at cols[j] (columns at no fixed distance: packed storage) */
int ozb_eft_strip_block_cols(const double *const *cols, const double *xs, int64_t nb, row4_t st[2], int first, int wide);
/* Rows i0..i0+3 (those below m) from their totals in t's lanes: rounded into C or flagged;
 * four at once where alpha = +-1.  Returns the rows left to the caller.  (eft_gemv_n.c) */
int64_t ozb_eft_put4(const ozb_eft_t *e, int64_t i0, const tot4 *t);
/* The same for rows i0..i0+7, all below m, from two groups' totals: both certificates side
 * by side (two independent chains).  (eft_gemv_n.c) */
int64_t ozb_eft_put8(const ozb_eft_t *e, int64_t i0, const tot4 *t0, const tot4 *t1);
/* Rows i0..i0+7 (those below m) where alpha = +-1 and their certificates are known (ok, in:
 * ozb_eft_cert4's outcome and inrange per group of four, y its values): certified rows
 * written, the rest flagged or put one by one as ozb_eft_put4 would.  (eft_gemv_n.c) */
int64_t ozb_eft_put_certified(const ozb_eft_t *e, int64_t i0, const tot4 *t0, const tot4 *t1, const int ok[2],
                              const int in[2], const double y[8]);
/* Strip b's 8 rows (those below m) rounded into C or flagged (bad: all of them); returns the
 * rows left to the caller.  (eft_gemv_n.c) */
int64_t ozb_eft_strip_put(const ozb_eft_t *e, int64_t b, const row4_t st[2], int bad);

/* GEMM with m >= 8 (eft_gemm.c) */
typedef struct {
    const ozb_problem *pr;
    const double *P;          /* op(A) in strips (ozb_eft_pack_strips) */
    const double *Bx;         /* column j of op(B) at Bx + j ldx, contiguous */
    int64_t ldx;
    uint8_t *fail;            /* m n flags, column-major */
    int by_strip;             /* tiles numbered strip by strip (else column group by group) */
    const double *mA;         /* strip b, sub-block s: max |op(A)| of its 8 rows at mA + 8 (b ns + s) */
    const double *mX;         /* column j, sub-block s: max |op(B)| at mX + j ns + s */
    const double *mAc;        /* strip b, block q: max |op(A)| of its 8 rows at mAc + 8 (b nq + q) */
    const double *mXc;        /* column j, block q: max |op(B)| at mXc + j nq + q where flat, else -1 */
    const uint8_t *zA, *zX;   /* strip b, column j: bit 0 all zero, bit 1 all finite (NULL: unknown) */
    const int32_t *spA, *spX; /* strip b's sub-blocks spA[2 b] .. spA[2 b + 1] - 1 hold its nonzeros (NaN
                               * counted), column j's spX[2 j] ..; an empty span is [0, 0) */
    int64_t nq;               /* blocks of BL along k */
    int64_t ns;               /* sub-blocks of SBL along k */
    int64_t skip_b, skip_j, skip_n;   /* strip skip_b's columns skip_j.. (skip_n of them) are done */
    int wide;                 /* blocks of two columns by the 512-bit loop (ozb_eft_wide) */
    int64_t nc;               /* columns per tile of the walk (at most OZB_EFT_NC) */
} ozb_eft_gemm_t;
/* The GEMM's preparation (eft_gemm_pack.c): op(A)'s strips packed into P, op(B)'s columns
 * into Bp where not NULL (else read where they lie), and every strip's and column's maxima,
 * zero and finite flags and spans into s's arrays; on nt threads, each preparing the strips
 * and the columns of its share */
void ozb_eft_gemm_prepare(ozb_eft_gemm_t *s, double *P, double *Bp, int nt);
/* Columns of op(B) per unit where units are column groups: op(A) is streamed once per group
 * (a strip stays in L2 across the group's columns, the group's columns in L3) */
#define OZB_EFT_NC 64
/* Strip b of op(A) times columns j0..j1-1 of op(B), rounded into C (or flagged); returns the
 * elements left (eft_gemm.c) */
int64_t ozb_eft_strip_columns(const ozb_eft_gemm_t *g, int64_t b, int64_t j0, int64_t j1);
/* sum x_l y_l (n >= 0; any strides, elements gathered CHUNK at a time where not 1) as a
 * fold by the DOT lanes (wide: the 512-bit loop, the same fold); S = NaN where a product is
 * out of range or not finite (eft_dot.c) */
fold_t ozb_eft_dot_fold(const double *x, int64_t incx, const double *y, int64_t incy, int64_t n, int wide);

/* GEMV-N: strips lo..hi-1 of 8 rows (eft_gemv_n.c) */
int64_t ozb_eft_gemv_n_strips(void *ctx, int64_t lo, int64_t hi);
/* A GEMV's walk over nu units (rows or strips of 8) by body, with 8 rows (units p0..p1-1, rows
 * r0..r0+7) first as a probe for residuals: every other row flagged at once where it leaves 6
 * of them; returns the rows left (eft_gemv_probe.c) */
int64_t ozb_eft_gemv_probed(const ozb_eft_t *e, int par, int nt, int64_t nu, int64_t p0, int64_t p1, int64_t r0,
                            int64_t (*body)(void *, int64_t, int64_t));
#endif
#endif
