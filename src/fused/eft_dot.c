/* CORRECTLY_ROUNDED DOT and GEMV by streaming error-free transformations (issues 14, 16).
 *
 * Every row of op(A) x is summed in lanes (8 per DOT, one per row in GEMV-N); each lane keeps
 *   s  the cascaded TwoSum of the products' high parts p_l = RN(x_l y_l)   (error-free),
 *   c  the floating-point sum of w_l = RN(t_l + e_l), where t_l is TwoSum's error and
 *      e_l = RN(x_l y_l - p_l) TwoProduct's (one FMA),
 *   a  the floating-point sum of |w_l|,
 * twelve operations per element and no branch.  The lanes are then folded by TwoSum (their
 * errors join c and a) into one (S, C, A), and
 *     exact row sum = S + sum(t_l + e_l) + d
 * where d gathers what TwoProduct misses for products below 2^-969, |d| <= n 2^-1075.
 *
 * Bit budget of the certificate.  C is a summation tree over N terms (the w's and the fold's
 * errors); each w_l is off t_l + e_l by at most u |w_l| (u = 2^-53), and any summation tree
 * over N terms errs by at most gamma_(N-1) = (N-1) u / (1 - (N-1) u) times the sum of their
 * magnitudes, which A bounds within a factor 1 / (1 - gamma_(N-1)).  So
 *     |C - sum(t + e)| <= (u + gamma_(N-1)) A / (1 - gamma_(N-1)) <= N 2^-52 A
 * for N <= 2^40 (the factor 2 against N u covers the gammas and the rounding of the product
 * N 2^-52 A itself).  The row's value alpha (S + C + D) + beta c, |D| <= N 2^-52 A + n 2^-1074,
 * is handed to Sum2 with alpha S, alpha C and beta c split exactly by TwoProduct
 * (ozb_sum2_certify): RN(exact) is written where every value within the bound rounds alike.
 *
 * Inf, NaN and overflow need no test in the loop: a non-finite product or an overflowing
 * TwoSum leaves s, c or a non-finite for good (additions never make Inf or NaN finite), and
 * such rows are left to the caller, as are rows the certificate cannot decide.  The result
 * is RN(exact) either way, the bits of every CORRECTLY_ROUNDED path.
 *
 * Compiled with -ffp-contract=off: the FMAs below are the explicit TwoProducts. */
#include "fused/eft_dot.h"
#include "core/info.h"
#include "core/par.h"
#include "sum/eft.h"
#include "sum/sum.h"
#include <math.h>
#include <string.h>
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define EFT_AVX2 1
#endif

#define LANES 8              /* DOT lanes: two 256-bit vectors, enough to hide the adds' latency */
#define CHUNK 512            /* strided operands are gathered this many elements at a time */
#define NCHUNK_PAR 64        /* a parallel DOT's pieces, each folded on its own */

typedef struct { double s[LANES], c[LANES], a[LANES]; } lanes_t;

/* One element into a scalar lane: the same operations as the vector kernels. */
static inline void step1(double *s, double *c, double *a, double x, double y)
{
    const double p = x * y, e = fma(x, y, -p);
    double t;
    ozb_two_sum(*s, p, s, &t);
    const double w = t + e;
    *c += w;
    *a += fabs(w);
}

#ifdef EFT_AVX2
#define ABSMASK _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll))
/* The vector step: p, e by TwoProduct, TwoSum of s and p, w = t + e into c and |w| into a. */
#define STEP4(s, c, a, x, y) do {                                                    \
        const __m256d p_ = _mm256_mul_pd(x, y), e_ = _mm256_fmsub_pd(x, y, p_);        \
        const __m256d s1_ = _mm256_add_pd(s, p_), bb_ = _mm256_sub_pd(s1_, s);         \
        const __m256d t_ = _mm256_add_pd(_mm256_sub_pd(s, _mm256_sub_pd(s1_, bb_)),    \
                                         _mm256_sub_pd(p_, bb_));                      \
        const __m256d w_ = _mm256_add_pd(t_, e_);                                      \
        s = s1_;                                                                       \
        c = _mm256_add_pd(c, w_);                                                      \
        a = _mm256_add_pd(a, _mm256_and_pd(w_, ABSMASK));                              \
    } while (0)
#endif

/* Contiguous x and y, n elements, into the lanes of st. */
static void dot_acc(const double *x, const double *y, int64_t n, lanes_t *st)
{
    int64_t l = 0;
#ifdef EFT_AVX2
    __m256d s0 = _mm256_loadu_pd(st->s), s1 = _mm256_loadu_pd(st->s + 4);
    __m256d c0 = _mm256_loadu_pd(st->c), c1 = _mm256_loadu_pd(st->c + 4);
    __m256d a0 = _mm256_loadu_pd(st->a), a1 = _mm256_loadu_pd(st->a + 4);
    for (; l + 8 <= n; l += 8) {
        STEP4(s0, c0, a0, _mm256_loadu_pd(x + l), _mm256_loadu_pd(y + l));
        STEP4(s1, c1, a1, _mm256_loadu_pd(x + l + 4), _mm256_loadu_pd(y + l + 4));
    }
    _mm256_storeu_pd(st->s, s0); _mm256_storeu_pd(st->s + 4, s1);
    _mm256_storeu_pd(st->c, c0); _mm256_storeu_pd(st->c + 4, c1);
    _mm256_storeu_pd(st->a, a0); _mm256_storeu_pd(st->a + 4, a1);
#endif
    for (; l < n; l++) step1(&st->s[l & 7], &st->c[l & 7], &st->a[l & 7], x[l], y[l]);
}

/* Any strides: gathered CHUNK elements at a time (a unit stride is read in place). */
static void dot_strided(const double *x, int64_t incx, const double *y, int64_t incy, int64_t n, lanes_t *st)
{
    if (incx == 1 && incy == 1) { dot_acc(x, y, n, st); return; }
    double xb[CHUNK], yb[CHUNK];
    for (int64_t l0 = 0; l0 < n; l0 += CHUNK) {
        const int64_t len = n - l0 < CHUNK ? n - l0 : CHUNK;
        const double *xp = x + l0 * incx, *yp = y + l0 * incy;
        if (incx != 1) { for (int64_t l = 0; l < len; l++) xb[l] = xp[l * incx]; xp = xb; }
        if (incy != 1) { for (int64_t l = 0; l < len; l++) yb[l] = yp[l * incy]; yp = yb; }
        dot_acc(xp, yp, len, st);
    }
}

/* Folds lanes into (S, C, A): TwoSum of the s's, whose errors join C and A. */
typedef struct { double S, C, A; } fold_t;
static void fold_add(fold_t *f, double s, double c, double a)
{
    double t;
    ozb_two_sum(f->S, s, &f->S, &t);
    f->C += t + c;
    f->A += fabs(t) + a;
}
static fold_t fold_lanes(const lanes_t *st)
{
    fold_t f = {0.0, 0.0, 0.0};
    for (int l = 0; l < LANES; l++) fold_add(&f, st->s[l], st->c[l], st->a[l]);
    return f;
}

/* RN(alpha (S + C + D) + beta c0) for every |D| <= N 2^-52 A + n 2^-1074, or 0 (see the top). */
static int finish(fold_t f, double N, double n, double alpha, double beta, double c0, int use_c, double *out)
{
    if (!isfinite(f.S) || !isfinite(f.C) || !isfinite(f.A)) return 0;
    double B = f.A * (N * 0x1p-52);
    if (f.A > 0.0 && B < 0x1p-1000) B = 0x1p-1000;     /* a nonzero bound never underflows */
    B += n * 0x1p-1074;                                  /* exact: n < 2^52 subnormal units */
    double T[6];
    int m = 0;
    if (alpha == 1.0) {
        if (!(fabs(f.S) <= 0x1p1000)) return 0;         /* Sum2's range */
        T[m++] = f.S;
        T[m++] = f.C;
    } else {
        if (!ozb_two_product(alpha, f.S, &T[m], &T[m + 1])) return 0;
        m += 2;
        if (!ozb_two_product(alpha, f.C, &T[m], &T[m + 1])) return 0;
        m += 2;
        B *= fabs(alpha);                                /* its rounding: the 2^-50 margin */
        if (!(B <= 0x1p1000)) return 0;
    }
    if (use_c) {
        if (!ozb_two_product(beta, c0, &T[m], &T[m + 1])) return 0;
        m += 2;
    }
    return ozb_sum2_certify(T, m, B, out);
}

typedef struct {
    const ozb_problem *pr;
    uint8_t *fail;
    const double *x;        /* GEMV: the vector, contiguous */
    double *state;          /* GEMV-N: S, C, A per row; DOT: the pieces' folds */
    int64_t nchunk;         /* DOT: pieces */
} eft_t;

/* One row's result into C (or its fail flag); returns 1 when left to the caller. */
static int64_t put(const eft_t *e, int64_t i, fold_t f, double N)
{
    const ozb_problem *pr = e->pr;
    double *ci = pr->c + i * pr->crs;
    const int use_c = pr->beta != 0.0;
    double r;
    const int ok = finish(f, N, (double)pr->k, pr->alpha, pr->beta, use_c ? *ci : 0.0, use_c, &r);
    if (ok) *ci = r;
    e->fail[i] = (uint8_t)!ok;
    return !ok;
}

/* DOT: pieces lo..hi-1 of x^T y, each folded into state[3 piece ..] */
static int64_t dot_pieces(void *ctx, int64_t lo, int64_t hi)
{
    const eft_t *e = ctx;
    const ozb_problem *pr = e->pr;
    const int64_t n = pr->k, len = (n + e->nchunk - 1) / e->nchunk;
    for (int64_t q = lo; q < hi; q++) {
        const int64_t l0 = q * len, l1 = l0 + len < n ? l0 + len : n;
        lanes_t st;
        memset(&st, 0, sizeof st);
        if (l1 > l0) dot_strided(pr->a.p + l0 * pr->a.cs, pr->a.cs, pr->b.p + l0 * pr->b.cs, pr->b.cs, l1 - l0, &st);
        const fold_t f = fold_lanes(&st);
        e->state[3 * q] = f.S; e->state[3 * q + 1] = f.C; e->state[3 * q + 2] = f.A;
    }
    return 0;
}

/* GEMV with rows of op(A) contiguous (a.cs == 1): rows lo..hi-1, one DOT each */
static int64_t gemv_t_rows(void *ctx, int64_t lo, int64_t hi)
{
    const eft_t *e = ctx;
    const ozb_problem *pr = e->pr;
    int64_t left = 0;
    for (int64_t i = lo; i < hi; i++) {
        lanes_t st;
        memset(&st, 0, sizeof st);
        dot_acc(pr->a.p + i * pr->a.rs, e->x, pr->k, &st);
        left += put(e, i, fold_lanes(&st), (double)pr->k + 2 * LANES);
    }
    return left;
}

/* GEMV with columns of op(A) contiguous (a.rs == 1): rows [i0, i1) over every column, four
 * columns at a time, the rows' (s, c, a) in S, C, A (eight rows in registers at a time). */
static void gemv_n_block(const ozb_problem *pr, const double *x, int64_t i0, int64_t i1, double *S, double *C, double *A)
{
    const int64_t k = pr->k, lda = pr->a.cs, rows = i1 - i0;
    const double *a0 = pr->a.p + i0;
    memset(S, 0, sizeof(double) * (size_t)rows);
    memset(C, 0, sizeof(double) * (size_t)rows);
    memset(A, 0, sizeof(double) * (size_t)rows);
    for (int64_t l0 = 0; l0 < k; l0 += 4) {
        const int nc = k - l0 < 4 ? (int)(k - l0) : 4;
        int64_t i = 0;
#ifdef EFT_AVX2
        for (; i + 8 <= rows; i += 8) {
            __m256d s0 = _mm256_loadu_pd(S + i), s1 = _mm256_loadu_pd(S + i + 4);
            __m256d c0 = _mm256_loadu_pd(C + i), c1 = _mm256_loadu_pd(C + i + 4);
            __m256d q0 = _mm256_loadu_pd(A + i), q1 = _mm256_loadu_pd(A + i + 4);
            for (int j = 0; j < nc; j++) {
                const double *col = a0 + (l0 + j) * lda + i;
                const __m256d xb = _mm256_broadcast_sd(x + l0 + j);
                STEP4(s0, c0, q0, _mm256_loadu_pd(col), xb);
                STEP4(s1, c1, q1, _mm256_loadu_pd(col + 4), xb);
            }
            _mm256_storeu_pd(S + i, s0); _mm256_storeu_pd(S + i + 4, s1);
            _mm256_storeu_pd(C + i, c0); _mm256_storeu_pd(C + i + 4, c1);
            _mm256_storeu_pd(A + i, q0); _mm256_storeu_pd(A + i + 4, q1);
        }
#endif
        for (; i < rows; i++)
            for (int j = 0; j < nc; j++) step1(&S[i], &C[i], &A[i], a0[(l0 + j) * lda + i], x[l0 + j]);
    }
}

#define NROWS_BLOCK 256   /* GEMV-N rows per pass over the columns: their S, C, A (6 KiB) stay in L1 */

static int64_t gemv_n_rows(void *ctx, int64_t lo, int64_t hi)
{
    const eft_t *e = ctx;
    const ozb_problem *pr = e->pr;
    int64_t left = 0;
    for (int64_t b = lo; b < hi; b++) {
        const int64_t i0 = b * NROWS_BLOCK, i1 = i0 + NROWS_BLOCK < pr->m ? i0 + NROWS_BLOCK : pr->m;
        double *S = e->state + 3 * i0, *C = S + NROWS_BLOCK, *A = C + NROWS_BLOCK;
        gemv_n_block(pr, e->x, i0, i1, S, C, A);
        for (int64_t i = i0; i < i1; i++) {
            const fold_t f = {S[i - i0], C[i - i0], A[i - i0]};
            left += put(e, i, f, (double)pr->k + 2);
        }
    }
    return left;
}

static int strided_rows(const ozb_problem *pr) { return pr->m > 1 && pr->a.cs == 1; }

static size_t bytes_needed(const ozb_problem *pr)
{
    const size_t m = (size_t)pr->m, k = (size_t)pr->k;
    size_t b = m + 64;                                            /* fail flags */
    if (pr->m > 1) b += k * sizeof(double) + 64;                  /* the vector, contiguous */
    if (pr->m > 1 && !strided_rows(pr)) b += 3 * (m + NROWS_BLOCK) * sizeof(double);
    return b + 3 * NCHUNK_PAR * sizeof(double);
}

int ozb_eft_eligible(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan)
{
    if (plan->mode != OZBLAS_MODE_CORRECTLY_ROUNDED || plan->engine != OZBLAS_ENGINE_FP64 || pr->n != 1) return 0;
    if (h->knobs.no_dot2 || !isfinite(pr->alpha) || !isfinite(pr->beta)) return 0;
    if (pr->k >= ((int64_t)1 << 40)) return 0;                    /* the certificate's N */
    if (pr->m > 1 && pr->a.rs != 1 && pr->a.cs != 1) return 0;
    return bytes_needed(pr) <= ozb_workspace_limit(h);
}

ozblas_status_t ozb_eft_cr(ozblas_handle_t h, const ozb_problem *pr, int nt, const uint8_t **failp, int64_t *nfail)
{
    const double t0 = ozb_now();
    char *buf = ozb_buf_get(h, OZB_BUF_EFT, bytes_needed(pr));
    if (!buf) return OZBLAS_STATUS_ALLOC_FAILED;
    eft_t e = { pr, (uint8_t *)buf, NULL, NULL, 1 };
    double *dbl = (double *)(buf + (((size_t)pr->m + 63) & ~(size_t)63));
    const double work = (double)pr->m * (double)pr->k;
    const int par = nt > 1 && work >= 65536.0;
    int64_t left;
    if (pr->m == 1) {
        e.nchunk = par ? NCHUNK_PAR : 1;
        e.state = dbl;
        ozb_par_for(par, nt, e.nchunk, dot_pieces, &e);
        fold_t f = {0.0, 0.0, 0.0};
        for (int64_t q = 0; q < e.nchunk; q++) fold_add(&f, e.state[3 * q], e.state[3 * q + 1], e.state[3 * q + 2]);
        left = put(&e, 0, f, (double)pr->k + 2.0 * LANES * (double)(e.nchunk + 1));
    } else {
        if (pr->b.cs == 1) e.x = pr->b.p;
        else {
            for (int64_t l = 0; l < pr->k; l++) dbl[l] = pr->b.p[l * pr->b.cs];
            e.x = dbl;
        }
        e.state = dbl + ((pr->k + 7) & ~(int64_t)7);
        if (strided_rows(pr)) left = ozb_par_for(par, nt, pr->m, gemv_t_rows, &e);
        else left = ozb_par_for(par, nt, (pr->m + NROWS_BLOCK - 1) / NROWS_BLOCK, gemv_n_rows, &e);
    }
    *failp = e.fail;
    *nfail = left;
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 53);
    info->slices_a = info->slices_b = 1;      /* the operands themselves, 53 bits */
    info->exact_fallbacks = left;
    info->blocks = 1;
    info->block_m = pr->m; info->block_n = 1; info->block_k = pr->k;
    info->fused = 2;
    info->seconds_sum = ozb_now() - t0;
    return OZBLAS_STATUS_SUCCESS;
}
