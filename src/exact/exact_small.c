/* Short inner dimensions rounded exactly (exact_small.h).  Bit budget: x = mx 2^(ex - 53) and
 * y = my 2^(ey - 53) with integers 2^52 <= |mx|, |my| < 2^53 (frexp, subnormals included), so
 * x y = mx my 2^(ex + ey - 106) with 2^104 <= |mx my| < 2^106: hi = RN(mx my) and
 * lo = mx my - hi (one FMA) are exact, and far from underflow; each is an integer of at most
 * 53 bits times a power of two, the terms ozb_sum_nearest takes.  It rounds
 * alpha sum + beta c once: NearSum in a scaled frame, the long accumulator where that frame
 * would leave the normal range (results in or below the subnormal range). */
#include "exact/exact_small.h"
#include "core/info.h"
#include "sum/sum.h"
#include "sum/eft.h"
#include "core/ozb_internal.h"
#include "core/par.h"
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* An element's terms and NearSum's scratch, for inner dimensions up to k: T and T2 the
 * products as doubles (2 k + 3 with beta c and a shift's constant), P and E their integer
 * terms (2 k), scratch ozb_sum_nearest's (2 (2 k + 1) + 2) */
typedef struct { double *T, *T2, *P, *scratch; int32_t *E; } terms_ws;

#define WS_DOUBLES(k) ((2 * (k) + 3) * 2 + 2 * (k) + (4 * (k) + 4) + (k))

static terms_ws ws_at(double *w, int64_t k)
{
    terms_ws t;
    t.T = w; t.T2 = t.T + 2 * k + 3; t.P = t.T2 + 2 * k + 3; t.scratch = t.P + 2 * k;
    t.E = (int32_t *)(t.scratch + 4 * k + 4);    /* 2 k int32 in the last k doubles */
    return t;
}

/* the integer term of v = P 2^E (v != 0): |P| < 2^53 */
static inline void term(double v, int shift, double *P, int32_t *E)
{
    int e;
    *P = frexp(v, &e) * 0x1p53;
    *E = e - 53 + shift;
}

/* v 2^t into *out where v is normal and so is the result (then exact: only the exponent
 * changes), or v subnormal and t > 0 with a normal result (the two factors of 2^t scale it up,
 * every bit kept: exact); 0 otherwise */
static inline int scale_exact(double v, int t, double *out)
{
    const uint64_t b = ozb_bits(v);
    const int e = (int)(b >> 52 & 0x7ff);
    if (e == 0 && t > 0 && v != 0.0) {
        double g[2];
        ozb_pow2_pair(t, g);
        *out = v * g[0] * g[1];
        return fabs(*out) >= 0x1p-1022 && fabs(*out) <= 0x1.fffffffffffffp1023;
    }
    if (e == 0 || e == 0x7ff || e + t < 1 || e + t > 2046) return 0;
    const uint64_t r = b + ((uint64_t)(int64_t)t << 52);
    memcpy(out, &r, sizeof r);
    return 1;
}

/* x y into T[0..1] by TwoProduct, scaled by 2^t first (the larger factor where t < 0, the
 * smaller where t > 0, so that it stays normal: exact); 0 where that is not exact */
static inline int product_terms(double x, double y, int t, double *T)
{
    if (t != 0 && x != 0.0 && y != 0.0) {
        double *f = (fabs(x) >= fabs(y)) == (t < 0) ? &x : &y;
        if (!scale_exact(*f, t, f)) return 0;
    }
    return ozb_two_product(x, y, &T[0], &T[1]);
}

/* The terms of 2^t (alpha sum x y + beta c) of element (i, j), every one a double, where that
 * is exact: alpha = +-1 (negation is exact), each product (and beta c) scaled exactly and
 * split by TwoProduct within ozb_two_product's range (|RN(x y)| in [2^-969, 2^1000], or a
 * zero factor).  At most 2 OZB_EXACT_LONG_K + 2 = 8194 terms of magnitude <= 2^1000:
 * ozb_nearsum's precondition holds (2^1000 2^14 2 is finite).  0 where some value is out of that range. */
static int direct_terms(const ozb_problem *pr, int64_t i, int64_t j, int t, double *T, int64_t *mout)
{
    int64_t m = 0;
    for (int64_t l = 0; l < pr->k; l++, m += 2)
        if (!product_terms(ozb_view_at(&pr->a, i, l), ozb_view_at(&pr->b, j, l), t, &T[m])) return 0;
    if (pr->alpha == -1.0)
        for (int64_t q = 0; q < m; q++) T[q] = -T[q];
    if (pr->beta != 0.0) {
        if (!product_terms(pr->beta, pr->c[i * pr->crs + j * pr->ccs], t, &T[m])) return 0;
        m += 2;
    }
    *mout = m;
    return 1;
}

/* the exponent field a normal double of v's binade would have: v's own where v is normal,
 * 1023 + floor(log2 |v|) <= 0 where v is subnormal (LAPACK's right-hand sides scaled toward
 * underflow) */
static inline int field_of(double v)
{
    const uint64_t b = ozb_bits(v);
    const int e = (int)(b >> 52 & 0x7ff);
    return e ? e : 1023 - 1074 + 63 - __builtin_clzll(b & 0xfffffffffffffull);
}

/* The power of two t that brings every product of element (i, j) (and beta c) into
 * [2^-969, 2^1000] (each |x y| lies in [2^e, 2^(e+2)) with e the sum of the factors' unbiased
 * exponents, a subnormal factor's its binade's): 0 where none does, or some factor is not
 * finite */
static int product_shift(const ozb_problem *pr, int64_t i, int64_t j)
{
    int emin = INT_MAX, emax = INT_MIN;
    for (int64_t l = 0; l <= pr->k; l++) {
        double x, y;
        if (l < pr->k) { x = ozb_view_at(&pr->a, i, l); y = ozb_view_at(&pr->b, j, l); }
        else if (pr->beta != 0.0) { x = pr->beta; y = pr->c[i * pr->crs + j * pr->ccs]; }
        else break;
        if (x == 0.0 || y == 0.0) continue;
        const int ex = field_of(x), ey = field_of(y);
        if (ex == 0x7ff || ey == 0x7ff) return 0;
        const int e = ex + ey - 2046;
        emin = e < emin ? e : emin;
        emax = e > emax ? e : emax;
    }
    if (emin == INT_MAX) return 0;
    if (emax + 2 > 1000) {
        const int t = 998 - emax;
        return emin + t >= -969 ? t : 0;
    }
    if (emin >= -969) return 0;
    /* up: the terms centred on 2^0 where the span allows (at least -969 - emin, at most 998 -
     * emax, and at most 1075, which element_direct's subnormal grid needs), so that neither the
     * low parts nor NearSum's errors are subnormal (each such operation costs some 30 ns:
     * residuals of matrices near 2^-975, LAPACK's scaled tests).  lo > 1075 (a subnormal factor
     * times a tiny one, emin < -2044) gives none. */
    const int lo = -969 - emin, hi = 998 - emax < 1075 ? 998 - emax : 1075, mid = -(emin + emax) / 2;
    return lo > hi ? 0 : mid < lo ? lo : mid > hi ? hi : mid;
}

/* RN(alpha sum x y + beta c) of element (i, j) from its terms as doubles (direct_terms): NearSum
 * rounds their sum to nearest, subnormal results included; no frame, no frexp.  Products
 * beyond TwoProduct's range (LAPACK's tests scale matrices near underflow and overflow) are
 * scaled by a power of two 2^t first: NearSum's r' is then RN(2^t exact), and 2^-t r' is
 * RN(exact) wherever r' and 2^-t r' are normal (only the exponent changes; an overflow of
 * 2^-t r' is RN's overflow too, r' being normal); a subnormal one could be a double rounding
 * and is left to the framed path.  0 where the terms are not all doubles (alpha other than
 * +-1, spans beyond 2^1969). */
static int element_direct(const ozb_problem *pr, int64_t i, int64_t j, const terms_ws *ws, double *out)
{
    if (pr->alpha != 1.0 && pr->alpha != -1.0) return 0;
    double *T = ws->T, *T2 = ws->T2;
    int64_t m;
    int t = 0;
    if (!direct_terms(pr, i, j, 0, T, &m)) {
        t = product_shift(pr, i, j);
        if (t == 0 || !direct_terms(pr, i, j, t, T, &m)) return 0;
        memcpy(T2, T, sizeof(double) * (size_t)m);   /* NearSum overwrites T: the terms again below */
    }
    double x = ozb_nearsum(T, m);
    if (x == 0.0) {                              /* an exact zero (terms on 2^-1074's grid): +0 */
        *out = 0.0;
        return 1;
    }
    if (t != 0) {
        const int e = (int)(ozb_bits(x) >> 52 & 0x7ff);
        /* normal once scaled back: exact; scaled down (t < 0), x = 2^-1022 may be a subnormal
         * 2^t exact rounded up on the subnormal grid, coarser than the unscaled value's */
        if (e != 0 && e - t >= 1 && !(t < 0 && fabs(x) == 0x1p-1022)) x = ldexp(x, -t);
        else {
            /* |exact| < 2^-1022 (a normal 2^-t x would have been at least that): RN on the
             * subnormal grid.  With q = 2^(t-1074), the grid scaled, and C = -sign(x) 2^53 q, the
             * sum C + 2^t exact lies in (2^52 q, 2^53 q] in magnitude, where the doubles are the
             * multiples of q: NearSum's RN(C + v) - C (exact) is v rounded to that grid, ties to
             * the even multiple as C is one, and 2^-t times it is RN(exact), a multiple of 2^-1074
             * (C <= 2^54: product_shift never gives t > 1075).  Scaled down (t < 0), q is below the
             * doubles: the framed path. */
            if (t < 0) return 0;
            const double C = x < 0.0 ? ozb_pow2(t - 1021) : -ozb_pow2(t - 1021);
            T2[m++] = C;
            const double r = ldexp(ozb_nearsum(T2, m) - C, -t);
            x = r == 0.0 ? copysign(0.0, x) : r;         /* nonzero but below 2^-1075: a signed zero */
        }
    }
    *out = x;
    return 1;
}

/* element (i, j) into *out, or 0 where some factor or c is not finite */
static int element(const ozb_problem *pr, int64_t i, int64_t j, const terms_ws *ws, double *out, int64_t *fallbacks)
{
    if (element_direct(pr, i, j, ws, out)) return 1;
    double *P = ws->P;
    int32_t *E = ws->E;
    int64_t n = 0;
    for (int64_t l = 0; l < pr->k; l++) {
        const double x = ozb_view_at(&pr->a, i, l), y = ozb_view_at(&pr->b, j, l);
        if (!isfinite(x) || !isfinite(y)) return 0;
        if (x == 0.0 || y == 0.0) continue;
        int ex, ey;
        const double mx = frexp(x, &ex) * 0x1p53, my = frexp(y, &ey) * 0x1p53;
        const double hi = mx * my, lo = fma(mx, my, -hi);
        term(hi, ex + ey - 106, &P[n], &E[n]);
        n++;
        if (lo != 0.0) { term(lo, ex + ey - 106, &P[n], &E[n]); n++; }
    }
    const int use_c = pr->beta != 0.0;
    const double c = use_c ? pr->c[i * pr->crs + j * pr->ccs] : 0.0;
    if (!isfinite(c)) return 0;
    *out = ozb_sum_nearest(P, E, n, pr->alpha, pr->beta, c, use_c, ws->scratch, fallbacks);
    return 1;
}

static void small_info(ozblas_handle_t h, const ozb_problem *pr, int64_t fallbacks)
{
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 53);
    info->slices_a = info->slices_b = 1;
    info->exact_fallbacks = fallbacks;
    info->blocks = 1;
    info->block_m = pr->m; info->block_n = pr->n; info->block_k = pr->k;
}

int ozb_exact_small_value(const ozb_problem *pr, double *out)
{
    if (!(pr->m == 1 && pr->n == 1 && pr->k <= OZB_EXACT_SMALL_K && isfinite(pr->beta))) return 0;
    double w[WS_DOUBLES(OZB_EXACT_SMALL_K)];
    const terms_ws ws = ws_at(w, OZB_EXACT_SMALL_K);
    return element_direct(pr, 0, 0, &ws, out);
}

/* 2 + span / 24 slices for a row of op(A) (a column of op(B)) whose nonzero finite elements
 * span 2^span: FP64 slices keep some 24 bits each at LAPACK's inner dimensions */
static double slices_for(int emin, int emax) { return emin > emax ? 1.0 : 2.0 + (double)(emax - emin) / 24.0; }

/* the largest estimate over the rows i of v (op(A): v(i, l)), l < k */
static double most_slices(const ozb_view *v, int64_t rows, int64_t k)
{
    double most = 1.0;
    for (int64_t i = 0; i < rows; i++) {
        int emin = INT_MAX, emax = INT_MIN;
        for (int64_t l = 0; l < k; l++) {
            const int e = (int)(ozb_bits(ozb_view_at(v, i, l)) >> 52 & 0x7ff);
            if (e == 0 || e == 0x7ff) continue;
            emin = e < emin ? e : emin;
            emax = e > emax ? e : emax;
        }
        const double s = slices_for(emin, emax);
        most = s > most ? s : most;
    }
    return most;
}

/* Exact sums cost about 12 ns a product per element kept (AVX2 EPYC, 1 thread: k = 174, 2 us
 * an element), Scheme I's sums about 28 ns a slice pair per element of C (55 x 4 pairs:
 * 6.3 us): the exact sums where kept k <= 2 m n pairs. */
int ozb_exact_small_takes(const ozb_problem *pr)
{
    if (pr->k <= OZB_EXACT_SMALL_K) return 1;
    if (pr->k > OZB_EXACT_LONG_K) return 0;
    int64_t kept = 0;
    for (int64_t j = 0; j < pr->n; j++)
        for (int64_t i = 0; i < pr->m; i++) kept += ozb_kept(pr, i, j);
    const double pairs = most_slices(&pr->a, pr->m, pr->k) * most_slices(&pr->b, pr->n, pr->k);
    return (double)kept * (double)pr->k <= 2.0 * (double)pr->m * (double)pr->n * pairs;
}

int ozb_exact_small_dot(ozblas_handle_t h, const ozb_problem *pr)
{
    double r;
    if (!ozb_exact_small_value(pr, &r)) return 0;
    *pr->c = r;
    small_info(h, pr, 0);
    return 1;
}

typedef struct {
    const ozb_problem *pr;
    uint8_t *fail;
    _Atomic int64_t fallbacks;
} small_ctx;

/* columns lo..hi-1: each kept element, or its flag; how many flagged */
static int64_t columns(void *ctx, int64_t lo, int64_t hi)
{
    small_ctx *c = ctx;
    const ozb_problem *pr = c->pr;
    double stack[WS_DOUBLES(OZB_EXACT_SMALL_K)], *heap = NULL;
    if (pr->k > OZB_EXACT_SMALL_K) heap = malloc(sizeof(double) * (size_t)WS_DOUBLES(pr->k));
    const terms_ws ws = ws_at(heap ? heap : stack, heap ? pr->k : OZB_EXACT_SMALL_K);
    /* no workspace (k beyond the stack's and no memory): every element left to the later methods */
    const int can = (heap || pr->k <= OZB_EXACT_SMALL_K) && isfinite(pr->alpha) && isfinite(pr->beta);
    int64_t left = 0, fallbacks = 0;
    for (int64_t j = lo; j < hi; j++)
        for (int64_t i = 0; i < pr->m; i++) {
            if (!ozb_kept(pr, i, j)) { c->fail[i + j * pr->m] = 0; continue; }   /* not wanted */
            double r;
            const int ok = can && element(pr, i, j, &ws, &r, &fallbacks);
            if (ok) pr->c[i * pr->crs + j * pr->ccs] = r;
            c->fail[i + j * pr->m] = (uint8_t)!ok;
            left += !ok;
        }
    free(heap);
    atomic_fetch_add_explicit(&c->fallbacks, fallbacks, memory_order_relaxed);
    return left;
}

ozblas_status_t ozb_exact_small(ozblas_handle_t h, const ozb_problem *pr, int nt, uint8_t **failp, int64_t *nfail)
{
    const size_t mn = (size_t)pr->m * (size_t)pr->n;
    uint8_t *fail = ozb_buf_get(h, OZB_BUF_SMALL, mn + 8);
    if (!fail) return OZBLAS_STATUS_ALLOC_FAILED;
    small_ctx c = { pr, fail, 0 };
    /* every element from its own row, column and c alone: the threads change no bit (runs of
     * columns taken in turn: only the elements earlier stages left come here, unevenly) */
    const int64_t left = ozb_par_for_dyn(nt > 1 && pr->n > 1, nt, pr->n, 4, columns, &c);
    small_info(h, pr, atomic_load(&c.fallbacks));
    *failp = fail;
    *nfail = left;
    return OZBLAS_STATUS_SUCCESS;
}
