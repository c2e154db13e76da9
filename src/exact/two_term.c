/* The certified element-wise updates (exact/two_term.h). */
#include "exact/two_term.h"
#include "exact/lane_flags.h"
#include "exact/stream.h"
#include "core/ozb_internal.h"
#include "sum/eft4.h"
#include <math.h>
#include <string.h>

int ozb_two_prod_exact(double alpha, double v, double *hi, double *lo)
{
    const double p = alpha * v, ap = fabs(p);
    *hi = p;
    *lo = 0.0;
    if (!((alpha == 0.0 || v == 0.0 || (ap >= 0x1p-960 && ap <= 0x1p1000)) && isfinite(alpha) && isfinite(v))) return 0;
    *lo = fma(alpha, v, -p);      /* only in range: a subnormal low part costs some 30 ns */
    return 1;
}

/* A chunk's 64-bit flags (the lanes' width: its loop stays in vector registers) narrowed to
 * fail's bytes, only where the chunk has one; returns bad, the chunk's count */
static inline int64_t narrow_flags(uint8_t *fail, const int64_t *fl, int64_t len, int64_t bad)
{
    if (bad) for (int64_t i = 0; i < len; i++) fail[i] = (uint8_t)fl[i];
    else memset(fail, 0, (size_t)len);
    return bad;
}

/* one element: 1 and *r where certified.  safe: every product is 0 or at least 2^-960 in
 * magnitude (the caller's test), so only overflow can spoil TwoProduct, and overflow leaves a
 * NaN in e (Inf - Inf in the TwoSums or the low parts), which fails lo == hi */
static inline int one(double a, double x, double uh, double ul, double y, double vh, double vl, int safe, double *r)
{
    const double p = x * uh, pe = fma(x, uh, -p), q = y * vh, qe = fma(y, vh, -q);
    const double s1 = a + p, b1 = s1 - a, e1 = (a - (s1 - b1)) + (p - b1);
    const double s = s1 + q, b2 = s - s1, e2 = (s1 - (s - b2)) + (q - b2);
    /* B (two_term.h's budget): the first TwoSum's error itself and the second's through the
     * result, not a bound through |a|, so that results cancelling far below their terms (LU's
     * updates) stay certifiable, and an exact zero too; the products' low parts themselves and
     * through |p| + |q| */
    const double ap = fabs(p), aq = fabs(q);
    const double B = fma(0x1p-50, fabs(e1) + (fabs(pe) + fabs(qe)),
                         fma(0x1p-103, fabs(s), fma(ul != 0.0 ? 0x1p-102 : 0.0, ap, (vl != 0.0 ? 0x1p-102 : 0.0) * aq)));
    const double g = fma(x, ul, fma(y, vl, pe + qe)), f = e1 + e2;
    const double lo = s + (f + (g - B)), hi = s + (f + (g + B));
    *r = lo;
    if (safe) return lo == hi;
    /* bitwise, not short-circuit: the loops vectorize */
    const int range = ((ap >= 0x1p-960) | (x == 0.0) | (uh == 0.0)) & ((aq >= 0x1p-960) | (y == 0.0) | (vh == 0.0));
    return range & (lo == hi);
}

/* The one-term update (no y: DGER, DSYR), decided only where its result is finite: a nonzero
 * RN(exact) is unique, so the value is the one every other path finds, and what it leaves
 * (Inf, NaN, uncertified) goes to the two-term loop unchanged.  ul == 0 (alpha v exact as one
 * double): a + x uh by one FMA, rounded once; a zero from it is the exact value only where x uh
 * is 0 or at least 2^-960 (its last bit then at least 2^-1065, a's at least 2^-1074, so a
 * nonzero sum is at least 2^-1074 and rounds to nonzero), and is written +0, the two-term
 * loop's zero (every error term there is +0, so its lo = s + (+0) = +0); an FMA's -0 becomes
 * +0 by adding +0.  Else two_term.h's budget with no second product: a + p = s + e1
 * (TwoSum), g = x ul + pe (one FMA), lo = s + (e1 + (g - B)), B = 2^-50 |pe| + 2^-103 |s| +
 * 2^-102 |p| (the last where ul != 0): the certificate with no second product.  An exact zero
 * it certifies has B = 0 and every error term +0 (x - x is +0, so are the TwoSum's and
 * TwoProduct's zero errors), so lo = s + (+0) = +0: the two-term loop's zero, which is the
 * same sum with a second product of zero.  The 256-bit loop below computes these operations in
 * this order four elements at a time; this scalar form is the loop of builds without AVX2 and FMA. */
#if !(defined(__AVX2__) && defined(__FMA__))
static inline int64_t one1(double a, double x, double uh, double ul, int safe, int fma_only, double *r)
{
    if (fma_only) {
        const double f = fma(x, uh, a);
        *r = f + 0.0;
        const int64_t range = safe | (fabs(x * uh) >= 0x1p-960) | (x == 0.0) | (uh == 0.0);
        return ((f != 0.0) | range) & (fabs(f) <= 0x1.fffffffffffffp1023);
    }
    const double p = x * uh, pe = fma(x, uh, -p);
    const double s = a + p, b = s - a, e1 = (a - (s - b)) + (p - b);
    const double g = fma(x, ul, pe);
    const double B = fma(0x1p-103, fabs(s), fma(0x1p-50, fabs(pe), (ul != 0.0 ? 0x1p-102 : 0.0) * fabs(p)));
    const double lo = s + (e1 + (g - B)), hi = s + (e1 + (g + B));
    *r = lo;
    const int64_t range = safe | (fabs(p) >= 0x1p-960) | (x == 0.0) | (uh == 0.0);
    return range & (lo == hi) & (fabs(lo) <= 0x1.fffffffffffffp1023);
}
#endif

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
/* The one-term update's constants for a column (one_term_loop) */
typedef struct { __m256d vuh, vul, zero, big, tiny, b50, b102, b103, absm, keep_range; } one_term_k;

/* the constants for the factor uh + ul; keep_range: every lane counts as in range (the caller
 * rules out products below TwoProduct's range) */
static inline __attribute__((always_inline)) one_term_k one_term_consts(double uh, double ul, int keep_range)
{
    return (one_term_k){ _mm256_set1_pd(uh), _mm256_set1_pd(ul), _mm256_setzero_pd(), _mm256_set1_pd(0x1.fffffffffffffp1023),
                         _mm256_set1_pd(0x1p-960), _mm256_set1_pd(0x1p-50), _mm256_set1_pd(ul != 0.0 ? 0x1p-102 : 0.0),
                         _mm256_set1_pd(0x1p-103), _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll)),
                         _mm256_castsi256_pd(_mm256_set1_epi64x(keep_range ? -1 : 0)) };
}

/* one1's operations on four elements, in one1's order (the FMAs the explicit ones): the values,
 * and in *ok the lanes decided */
static inline __attribute__((always_inline)) __m256d one_term4(const one_term_k *k, __m256d va, __m256d vx,
                                                               const int known_safe, const int fma_only, __m256d *ok)
{
    if (fma_only) {
        const __m256d f = _mm256_fmadd_pd(vx, k->vuh, va);
        const __m256d tiny_ok = _mm256_cmp_pd(_mm256_and_pd(_mm256_mul_pd(vx, k->vuh), k->absm), k->tiny, _CMP_GE_OQ);
        const __m256d range = _mm256_or_pd(k->keep_range, _mm256_or_pd(tiny_ok, _mm256_cmp_pd(vx, k->zero, _CMP_EQ_OQ)));
        *ok = _mm256_and_pd(_mm256_or_pd(_mm256_cmp_pd(f, k->zero, _CMP_NEQ_UQ), range),
                            _mm256_cmp_pd(_mm256_and_pd(f, k->absm), k->big, _CMP_LE_OQ));
        return _mm256_add_pd(f, k->zero);
    } else {
        /* the range test first (unless every lane is known in range): a lane out of range
         * is flagged whatever its value, so it goes on with x = 0 (a product below the
         * range has a subnormal low part, whose FMA costs some 30 ns; the lanes in range
         * compute one1's values unchanged) */
        const __m256d p0 = _mm256_mul_pd(vx, k->vuh);
        const __m256d tiny_ok = _mm256_cmp_pd(_mm256_and_pd(p0, k->absm), k->tiny, _CMP_GE_OQ);
        const __m256d range = known_safe ? k->keep_range
                                         : _mm256_or_pd(k->keep_range, _mm256_or_pd(tiny_ok, _mm256_cmp_pd(vx, k->zero, _CMP_EQ_OQ)));
        const __m256d xr = known_safe ? vx : _mm256_and_pd(vx, range), p = known_safe ? p0 : _mm256_and_pd(p0, range);
        const __m256d pe = _mm256_fmsub_pd(xr, k->vuh, p);
        const __m256d s = _mm256_add_pd(va, p), b = _mm256_sub_pd(s, va);
        const __m256d e1 = _mm256_add_pd(_mm256_sub_pd(va, _mm256_sub_pd(s, b)), _mm256_sub_pd(p, b));
        const __m256d g = _mm256_fmadd_pd(xr, k->vul, pe);
        const __m256d B = _mm256_fmadd_pd(k->b103, _mm256_and_pd(s, k->absm),
                                          _mm256_fmadd_pd(k->b50, _mm256_and_pd(pe, k->absm),
                                                          _mm256_mul_pd(k->b102, _mm256_and_pd(p, k->absm))));
        const __m256d lo = _mm256_add_pd(s, _mm256_add_pd(e1, _mm256_sub_pd(g, B)));
        const __m256d hi = _mm256_add_pd(s, _mm256_add_pd(e1, _mm256_add_pd(g, B)));
        const __m256d fin = _mm256_and_pd(_mm256_cmp_pd(lo, hi, _CMP_EQ_OQ),
                                          _mm256_cmp_pd(_mm256_and_pd(lo, k->absm), k->big, _CMP_LE_OQ));
        *ok = known_safe ? fin : _mm256_and_pd(range, fin);
        return lo;
    }
}

/* The one-term loop on unit strides, four elements a vector: one1's operations in one1's order
 * (the FMAs the explicit ones), so the decided elements and their flags are one1's bit for bit;
 * the comparisons stay masks until one movemask a vector instead of 64-bit flags narrowed to
 * bytes; the last m mod 4 as the lanes of one more vector.  Decided elements written, the others
 * flagged (1). */
static inline __attribute__((always_inline)) int64_t one_term_loop(int64_t m, const double *a, const double *x, double uh,
                                                                   double ul, double *out, int safe, uint8_t *fail,
                                                                   const int known_safe, const int fma_only)
{
    const one_term_k k = one_term_consts(uh, ul, safe || uh == 0.0);
    int64_t nf = 0, i = 0;
    for (; i + 4 <= m; i += 4) {
        if (!(i & 4)) ozb_ahead(a + i);   /* (a line holds eight) */
        const __m256d va = _mm256_loadu_pd(a + i), vx = _mm256_loadu_pd(x + i);
        __m256d ok;
        const __m256d r = one_term4(&k, va, vx, known_safe, fma_only, &ok);
        _mm256_storeu_pd(out + i, _mm256_blendv_pd(va, r, ok));
        nf += ozb_put_flags(fail + i, (unsigned)_mm256_movemask_pd(ok), 0xf, 4);
    }
    if (i < m) {
        /* the last m mod 4 as lanes of one vector (zeros beyond m), the decided ones stored one
         * by one with their flags (a masked store is microcoded on AMD's Zen) */
        const int64_t rem = m - i;
        const __m256d va = ozb_first4(a + i, rem), vx = ozb_first4(x + i, rem);
        __m256d ok;
        const __m256d r = one_term4(&k, va, vx, known_safe, fma_only, &ok);
        double rv[4];
        _mm256_storeu_pd(rv, r);
        const unsigned bits = (unsigned)_mm256_movemask_pd(ok);
        for (int64_t q = 0; q < rem; q++) {
            const int d = bits >> q & 1;
            if (d) out[i + q] = rv[q];
            fail[i + q] = (uint8_t)!d;
            nf += !d;
        }
    }
    return nf;
}

/* the loop without the range test where the caller rules out tiny products (every lane in
 * range: safe, or uh = 0), with it where not */
static int64_t one_term(int64_t m, const double *a, const double *x, double uh, double ul, double *out, int safe,
                        uint8_t *fail)
{
    /* each case its own loop, the tests out of it (constants where it is inlined) */
    if (ul == 0.0) {
        if (safe || uh == 0.0) return one_term_loop(m, a, x, uh, ul, out, safe, fail, 1, 1);
        return one_term_loop(m, a, x, uh, ul, out, safe, fail, 0, 1);
    }
    if (safe || uh == 0.0) return one_term_loop(m, a, x, uh, ul, out, safe, fail, 1, 0);
    return one_term_loop(m, a, x, uh, ul, out, safe, fail, 0, 0);
}
/* one_term_loop's known-safe case without flags: its values and decisions, up to the first
 * vector (or the tail) with an element it does not decide */
static inline __attribute__((always_inline)) int64_t decided_prefix(int64_t m, double *a, const double *x, double uh,
                                                                    double ul, const int fma_only)
{
    const one_term_k k = one_term_consts(uh, ul, 1);
    int64_t i = 0;
    __m256d ok;
    for (; i + 4 <= m; i += 4) {
        __m256d r;
        if (fma_only) {   /* one_term4's FMA case with every lane in range: ok = f finite */
            r = _mm256_add_pd(_mm256_fmadd_pd(_mm256_loadu_pd(x + i), k.vuh, _mm256_loadu_pd(a + i)), k.zero);
            ok = _mm256_cmp_pd(_mm256_and_pd(r, k.absm), k.big, _CMP_LE_OQ);
        } else
            r = one_term4(&k, _mm256_loadu_pd(a + i), _mm256_loadu_pd(x + i), 1, 0, &ok);
        if (_mm256_movemask_pd(ok) != 0xf) return i;
        _mm256_storeu_pd(a + i, r);
    }
    if (i < m) {
        const int64_t rem = m - i;
        const __m256d r = one_term4(&k, ozb_first4(a + i, rem), ozb_first4(x + i, rem), 1, fma_only, &ok);
        if (((_mm256_movemask_pd(ok) | (0xf << rem)) & 0xf) != 0xf) return i;
        double rv[4];
        _mm256_storeu_pd(rv, r);
        for (int64_t q = 0; q < rem; q++) a[i + q] = rv[q];
    }
    return m;
}

int64_t ozb_one_term_prefix(int64_t m, double *a, const double *x, double uh, double ul)
{
    return ul == 0.0 ? decided_prefix(m, a, x, uh, ul, 1) : decided_prefix(m, a, x, uh, ul, 0);
}
#else
/* the one-term loop on unit strides, in chunks with 64-bit flags (the lanes' width: the loop
 * stays in vector registers), narrowed to bytes only where a chunk has one: decided elements
 * written, the others flagged (1) */
static int64_t one_term(int64_t m, const double *a, const double *x, double uh, double ul, double *out, int safe,
                        uint8_t *fail)
{
    enum { CH = 256 };
    int64_t fl[CH], nf = 0;
    for (int64_t c0 = 0; c0 < m; c0 += CH) {
        const int64_t len = m - c0 < CH ? m - c0 : CH;
        int64_t bad = 0;
#define ONE_TERM_LOOP(FMA_ONLY)                                                                  \
        for (int64_t i = 0; i < len; i++) {                                                      \
            double r;                                                                            \
            const int64_t ok = one1(a[c0 + i], x[c0 + i], uh, ul, safe, FMA_ONLY, &r);          \
            out[c0 + i] = ok ? r : out[c0 + i];                                                  \
            fl[i] = 1 - ok;                                                                      \
            bad += 1 - ok;                                                                       \
        }
        if (ul == 0.0) ONE_TERM_LOOP(1) else ONE_TERM_LOOP(0)
#undef ONE_TERM_LOOP
        nf += narrow_flags(fail + c0, fl, len, bad);
    }
    return nf;
}

int64_t ozb_one_term_prefix(int64_t m, double *a, const double *x, double uh, double ul)
{
    for (int64_t i = 0; i < m; i++) {
        double r;
        if (!one1(a[i], x[i], uh, ul, 1, ul == 0.0, &r)) return i;
        a[i] = r;
    }
    return m;
}
#endif

static int64_t first_level(int64_t m, const double *a, int64_t inca, const double *x, int64_t incx, double uh,
                           double ul, const double *y, int64_t incy, double vh, double vl, double *out, int64_t inco,
                           int safe, uint8_t *fail, int wide);
static int64_t one_term_left(int64_t m, double *a, const double *x, double uh, double ul, int safe, uint8_t *fail);

/* The second level for the nf elements the first left: their a and out are untouched, so it
 * reads them as inputs (not those whose x uh is below TwoProduct's range: its splits fail
 * there too) */
static int64_t second_level(int64_t m, const double *a, int64_t inca, const double *x, int64_t incx, double uh,
                            double ul, const double *y, int64_t incy, double vh, double vl, double *out, int64_t inco,
                            uint8_t *fail, int64_t nf)
{
    for (int64_t i = 0; i < m && nf > 0; i++)
        if (fail[i] && (fabs(x[i * incx] * uh) >= 0x1p-960 || x[i * incx] == 0.0 || uh == 0.0)) {
            double r;
            if (ozb_two_term_second(a ? a[i * inca] : 0.0, x[i * incx], uh, ul, y ? &y[i * incy] : NULL, vh, vl, &r)) {
                out[i * inco] = r;
                fail[i] = 0;
                nf--;
            }
        }
    return nf;
}

int64_t ozb_two_term(int64_t m, const double *a, int64_t inca, const double *x, int64_t incx, double uh, double ul,
                     const double *y, int64_t incy, double vh, double vl, double *out, int64_t inco, int safe,
                     uint8_t *fail, int wide)
{
    const int64_t nf = first_level(m, a, inca, x, incx, uh, ul, y, incy, vh, vl, out, inco, safe, fail, wide);
    return second_level(m, a, inca, x, incx, uh, ul, y, incy, vh, vl, out, inco, fail, nf);
}

/* What the in-place one-term loop left (flags in fail), element by element as ozb_two_term
 * takes it after the loop */
static int64_t one_term_left(int64_t m, double *a, const double *x, double uh, double ul, int safe, uint8_t *fail)
{
    int64_t nf = 0;
    for (int64_t i = 0; i < m; i++)
        if (fail[i]) {
            /* a product below the range fails one's test as it failed one1's: not computed
             * again (its low part would be subnormal, which costs some 30 ns) */
            if (!safe && !(fabs(x[i] * uh) >= 0x1p-960 || x[i] == 0.0 || uh == 0.0)) {
                nf++;
                continue;
            }
            double r;
            const int ok = one(a[i], x[i], uh, ul, x[i], 0.0, 0.0, safe, &r);
            if (ok) a[i] = r;
            fail[i] = (uint8_t)!ok;
            nf += !ok;
        }
    return nf;
}

int64_t ozb_one_term_rest(int64_t m, double *a, const double *x, double uh, double ul, int safe, uint8_t *fail)
{
    const int64_t nf = one_term_left(m, a, x, uh, ul, safe, fail);
    return second_level(m, a, 1, x, 1, uh, ul, NULL, 0, 0.0, 0.0, a, 1, fail, nf);
}

static int64_t first_level(int64_t m, const double *a, int64_t inca, const double *x, int64_t incx, double uh,
                           double ul, const double *y, int64_t incy, double vh, double vl, double *out, int64_t inco,
                           int safe, uint8_t *fail, int wide)
{
    int64_t nf = 0;
    if (!y && a && out == a && inca == 1 && incx == 1 && inco == 1) {
        /* in place (the rank updates): what one_term leaves, element by element
         * (one_term_left: a[i] is still the input there) */
#if defined(__x86_64__)
        const int64_t left = wide ? ozb_one_term512(m, a, x, uh, ul, out, safe, fail) : one_term(m, a, x, uh, ul, out, safe, fail);
#else
        (void)wide;
        const int64_t left = one_term(m, a, x, uh, ul, out, safe, fail);
#endif
        return left == 0 ? 0 : one_term_left(m, out, x, uh, ul, safe, fail);
    }
#if defined(__x86_64__)
    if (wide && y && a && inca == 1 && incx == 1 && inco == 1 && incy == 1)
        return ozb_two_term512(m, a, x, uh, ul, y, vh, vl, out, safe, fail);
#endif
#if defined(__AVX2__) && defined(__FMA__)
    if (y && a && inca == 1 && incx == 1 && inco == 1 && incy == 1) {
        /* whole vectors by the 256-bit loop, the last m mod 4 by one itself */
        const int64_t m4 = m & ~(int64_t)3;
        nf = ozb_two_term256(m4, a, x, uh, ul, y, vh, vl, out, safe, fail);
        for (int64_t i = m4; i < m; i++) {
            double r;
            const int ok = one(a[i], x[i], uh, ul, y[i], vh, vl, safe, &r);
            if (ok) out[i] = r;
            fail[i] = (uint8_t)!ok;
            nf += !ok;
        }
        return nf;
    }
#endif
    if (inca == 1 && incx == 1 && inco == 1 && (!y || incy == 1) && a) {
        /* the common case in unit strides, one vectorized loop (no second term: y = x times
         * 0, exactly 0 for finite x; an infinite x is flagged by the range test either way) */
        const double *yy = y ? y : x;
        if (!y) vh = vl = 0.0;
        /* chunks with 64-bit flags (the lanes' width: the loop stays in vector registers),
         * narrowed to bytes only where a chunk has one */
        enum { CH = 256 };
        int64_t fl[CH];
        for (int64_t c0 = 0; c0 < m; c0 += CH) {
            const int64_t len = m - c0 < CH ? m - c0 : CH;
            int64_t bad = 0;
            if (safe)
                for (int64_t i = 0; i < len; i++) {
                    double r;
                    const int64_t ok = one(a[c0 + i], x[c0 + i], uh, ul, yy[c0 + i], vh, vl, 1, &r);
                    out[c0 + i] = ok ? r : out[c0 + i];
                    fl[i] = 1 - ok;
                    bad += 1 - ok;
                }
            else
                for (int64_t i = 0; i < len; i++) {
                    double r;
                    const int64_t ok = one(a[c0 + i], x[c0 + i], uh, ul, yy[c0 + i], vh, vl, 0, &r);
                    out[c0 + i] = ok ? r : out[c0 + i];
                    fl[i] = 1 - ok;
                    bad += 1 - ok;
                }
            nf += narrow_flags(fail + c0, fl, len, bad);
        }
        return nf;
    }
    for (int64_t i = 0; i < m; i++) {
        double r;
        const int ok = one(a ? a[i * inca] : 0.0, x[i * incx], uh, ul, y ? y[i * incy] : 0.0, y ? vh : 0.0,
                           y ? vl : 0.0, 0, &r);
        if (ok) out[i * inco] = r;
        fail[i] = (uint8_t)!ok;
        nf += !ok;
    }
    return nf;
}
