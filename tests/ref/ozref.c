/*
 * ozref: exact references for the ozblas tests (see ozref.h).
 *
 * Each output element is computed exactly: the MPFR precision of every
 * accumulator is chosen from the exponent span of its terms, so that no
 * operation rounds (this is checked: an inexact MPFR operation aborts),
 * and the exact value is rounded once to binary64 with mpfr_get_d(RNDN),
 * which rounds subnormal results and overflows correctly (no double rounding).
 */
#include "ozref.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gmp.h>
#include <mpfr.h>

enum { CLS_FINITE = 0, CLS_PINF = 1, CLS_NINF = 2, CLS_NAN = 3 };

static void ozref_fail(const char *what)
{
    fprintf(stderr, "ozref: internal error: %s\n", what);
    abort();
}

/* bit length of an unsigned integer */
static int bitlen(uint64_t v)
{
    int b = 0;
    while (v) { b++; v >>= 1; }
    return b;
}

/* lowest bit position (exponent of the last significand bit) a double can have: lsb >= this */
static int lsb_bound(double x)
{
    int e = ilogb(x) - 52;
    return e < -1074 ? -1074 : e;
}

/* class of the IEEE product s*t of two scalars, exact-arithmetic sense (finite*finite is finite) */
static int prod_class(double s, double t)
{
    if (isnan(s) || isnan(t)) return CLS_NAN;
    if (isinf(s) || isinf(t)) {
        if (s == 0 || t == 0) return CLS_NAN;
        return (signbit(s) != signbit(t)) ? CLS_NINF : CLS_PINF;
    }
    return CLS_FINITE;
}

/* combine the classes of two summands (finite values are absorbed) */
static int add_class(int c1, int c2)
{
    if (c1 == CLS_NAN || c2 == CLS_NAN) return CLS_NAN;
    if (c1 == CLS_FINITE) return c2;
    if (c2 == CLS_FINITE) return c1;
    return c1 == c2 ? c1 : CLS_NAN;
}

static double class_value(int c)
{
    switch (c) {
    case CLS_PINF: return INFINITY;
    case CLS_NINF: return -INFINITY;
    default: return NAN;
    }
}

/*
 * RN(alpha * sum_{l<k} a[l*sa] * b[l*sb] + beta * c_in), the semantics of ozref.h.
 * a and b point at element 0 of the (possibly backwards or zero-stride) sequences.
 */
static double ref_elem(int64_t k, const double *a, int64_t sa, const double *b, int64_t sb,
                       double alpha, double beta, double c_in)
{
    if (k <= 0 || alpha == 0) return beta == 0 ? 0.0 : beta * c_in;

    /* pass 1: classes and exponent span of the finite nonzero products */
    int scls = CLS_FINITE;
    int64_t cnt = 0;
    long hi = LONG_MIN, lo = LONG_MAX;
    for (int64_t l = 0; l < k; l++) {
        double x = a[l * sa], y = b[l * sb];
        int c = prod_class(x, y);
        if (c != CLS_FINITE) { scls = add_class(scls, c); continue; }
        if (x == 0 || y == 0) continue;
        cnt++;
        long top = (long)ilogb(x) + ilogb(y) + 2;          /* |x*y| < 2^top */
        long bot = (long)lsb_bound(x) + lsb_bound(y);       /* x*y is a multiple of 2^bot */
        if (top > hi) hi = top;
        if (bot < lo) lo = bot;
    }

    /* class of beta*c (c not read if beta == 0) */
    int ucls = CLS_FINITE;
    if (beta != 0) ucls = prod_class(beta, c_in);

    if (scls == CLS_NAN || isnan(alpha) || ucls == CLS_NAN) return NAN;

    mpfr_t s, t, u, r;
    mpfr_prec_t ps = 2;
    if (cnt > 0) ps = (mpfr_prec_t)(hi - lo) + bitlen((uint64_t)cnt) + 2;
    mpfr_init2(s, ps);
    mpfr_set_zero(s, 1);
    int sign_zero = 1; /* s is an exact zero */
    if (scls == CLS_FINITE && cnt > 0) {
        mpfr_t p;
        mpfr_init2(p, 106);
        for (int64_t l = 0; l < k; l++) {
            double x = a[l * sa], y = b[l * sb];
            if (x == 0 || y == 0) continue;
            if (mpfr_set_d(p, x, MPFR_RNDN) != 0) ozref_fail("set_d inexact");
            if (mpfr_mul_d(p, p, y, MPFR_RNDN) != 0) ozref_fail("product inexact");
            if (mpfr_add(s, s, p, MPFR_RNDN) != 0) ozref_fail("sum inexact");
        }
        mpfr_clear(p);
        sign_zero = mpfr_zero_p(s);
    }

    /* class of alpha * S */
    int tcls = CLS_FINITE;
    if (scls != CLS_FINITE) {
        /* alpha != 0 here; alpha may be infinite */
        int neg = (scls == CLS_NINF) != (signbit(alpha) != 0);
        tcls = neg ? CLS_NINF : CLS_PINF;
    } else if (isinf(alpha)) {
        if (sign_zero) tcls = CLS_NAN;
        else tcls = ((mpfr_sgn(s) < 0) != (signbit(alpha) != 0)) ? CLS_NINF : CLS_PINF;
    }
    int rcls = add_class(tcls, ucls);
    if (tcls != CLS_FINITE || ucls != CLS_FINITE) {
        mpfr_clear(s);
        return class_value(rcls);
    }

    /* finite: exact alpha*S + beta*c */
    mpfr_init2(t, mpfr_get_prec(s) + 53);
    if (mpfr_mul_d(t, s, alpha, MPFR_RNDN) != 0) ozref_fail("alpha*S inexact");
    mpfr_init2(u, 106);
    mpfr_set_zero(u, 1);
    if (beta != 0) {
        if (mpfr_set_d(u, beta, MPFR_RNDN) != 0) ozref_fail("set_d beta inexact");
        if (mpfr_mul_d(u, u, c_in, MPFR_RNDN) != 0) ozref_fail("beta*c inexact");
    }
    double res;
    if (mpfr_zero_p(t) && mpfr_zero_p(u)) {
        res = 0.0;
    } else if (mpfr_zero_p(u)) {
        res = mpfr_get_d(t, MPFR_RNDN);
    } else if (mpfr_zero_p(t)) {
        res = mpfr_get_d(u, MPFR_RNDN);
    } else {
        long et = mpfr_get_exp(t), eu = mpfr_get_exp(u);
        long top = (et > eu ? et : eu);
        long bt = et - (long)mpfr_get_prec(t), bu = eu - (long)mpfr_get_prec(u);
        long bot = bt < bu ? bt : bu;
        mpfr_init2(r, (mpfr_prec_t)(top - bot + 2));
        if (mpfr_add(r, t, u, MPFR_RNDN) != 0) ozref_fail("final sum inexact");
        res = mpfr_zero_p(r) ? 0.0 : mpfr_get_d(r, MPFR_RNDN);
        mpfr_clear(r);
    }
    mpfr_clear(s);
    mpfr_clear(t);
    mpfr_clear(u);
    return res;
}

/* pointer to BLAS element 0 of a vector of length n with increment inc */
static const double *vec_start(const double *x, int64_t n, int64_t inc)
{
    return inc < 0 ? x + (n - 1) * (-inc) : x;
}

double ozref_ddot(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy)
{
    if (n <= 0) return 0.0;
    return ref_elem(n, vec_start(x, n, incx), incx, vec_start(y, n, incy), incy, 1.0, 0.0, 0.0);
}

double ozref_dnrm2(int64_t n, const double *x, int64_t incx)
{
    if (n <= 0) return 0.0;
    const double *x0 = vec_start(x, n, incx);
    int nan = 0, inf = 0;
    for (int64_t i = 0; i < n; i++) { nan |= isnan(x0[i * incx]); inf |= isinf(x0[i * incx]); }
    if (nan) return NAN;
    if (inf) return INFINITY;
    /* squares of doubles span 2^-2148 .. 2^2048: 4400 bits hold their sum exactly */
    mpfr_t s, t;
    mpfr_init2(s, 4400);
    mpfr_init2(t, 4400);
    mpfr_set_zero(s, 1);
    for (int64_t i = 0; i < n; i++) {
        mpfr_set_d(t, x0[i * incx], MPFR_RNDN);
        mpfr_sqr(t, t, MPFR_RNDN);
        mpfr_add(s, s, t, MPFR_RNDN);
    }
    mpfr_sqrt(s, s, MPFR_RNDN);      /* exact or far from any midpoint at 4400 bits */
    const double r = mpfr_get_d(s, MPFR_RNDN);
    mpfr_clear(s);
    mpfr_clear(t);
    return r;
}

void ozref_dgemv(int trans, int64_t m, int64_t n, double alpha, const double *A, int64_t lda,
                 const double *x, int64_t incx, double beta, double *y, int64_t incy)
{
    if (m <= 0 && n <= 0) return;
    int64_t leny = trans ? n : m;   /* output length */
    int64_t lenx = trans ? m : n;   /* inner dimension */
    if (leny <= 0) return;
    const double *x0 = lenx > 0 ? vec_start(x, lenx, incx) : x;
    double *y0 = y + (incy < 0 ? (leny - 1) * (-incy) : 0);
    for (int64_t i = 0; i < leny; i++) {
        double *yi = y0 + i * incy;
        double cin = beta == 0 ? 0.0 : *yi;
        const double *arow;
        int64_t sa;
        if (trans) { arow = A + i * lda; sa = 1; }   /* column i of A */
        else       { arow = A + i;       sa = lda; } /* row i of A */
        *yi = ref_elem(lenx, arow, sa, x0, incx, alpha, beta, cin);
    }
}

double ozref_dgemm_elem(int transa, int transb, int64_t i, int64_t j, int64_t k, double alpha,
                        const double *A, int64_t lda, const double *B, int64_t ldb, double beta, double c_in)
{
    const double *a; int64_t sa;
    const double *b; int64_t sb;
    if (transa) { a = A + i * lda; sa = 1; } else { a = A + i; sa = lda; }
    if (transb) { b = B + j;       sb = ldb; } else { b = B + j * ldb; sb = 1; }
    return ref_elem(k, a, sa, b, sb, alpha, beta, beta == 0 ? 0.0 : c_in);
}

void ozref_dgemm(int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                 const double *A, int64_t lda, const double *B, int64_t ldb, double beta, double *C, int64_t ldc)
{
    if (m <= 0 || n <= 0) return;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double *c = C + i + j * ldc;
            *c = ozref_dgemm_elem(transa, transb, i, j, k, alpha, A, lda, B, ldb, beta, beta == 0 ? 0.0 : *c);
        }
}

/* ---- xoshiro256** with splitmix64 seeding ---- */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t xoshiro_next(ozref_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void ozref_rng_seed(ozref_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3])) r->s[0] = 1;
}

double ozref_uniform(ozref_rng *r)
{
    return (double)(xoshiro_next(r) >> 11) * 0x1.0p-53;
}

double ozref_normal(ozref_rng *r)
{
    /* Box-Muller, one value per call (deterministic; the second value is dropped) */
    double u1 = 1.0 - ozref_uniform(r); /* (0,1] */
    double u2 = ozref_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925286766559 * u2);
}

void ozref_fill_phi(ozref_rng *r, double *x, int64_t n, double phi)
{
    for (int64_t i = 0; i < n; i++) {
        double u = ozref_uniform(r) - 0.5;
        double g = ozref_normal(r);
        x[i] = u * exp(phi * g);
    }
}

double ozref_ulps(double got, double ref)
{
    uint64_t bg, br;
    __builtin_memcpy(&bg, &got, 8);
    __builtin_memcpy(&br, &ref, 8);
    if (bg == br) return 0.0;
    if (isnan(got) && isnan(ref)) return 0.0;
    if (!isfinite(got) || !isfinite(ref)) return INFINITY;
    long double ulp;
    if (fabs(ref) < 0x1.0p-1022) ulp = 0x1.0p-1074L;
    else ulp = ldexpl(1.0L, ilogb(ref) - 52);
    long double d = fabsl((long double)got - (long double)ref);
    return (double)(d / ulp);
}
