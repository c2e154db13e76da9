/* ozblas_dnrm2: RN(sqrt(sum x_i^2)) with the sum exact, in every mode.
 *
 * Frame: e = floor(log2 max|x_i|); the candidate r for sqrt(S 2^-2e) (S' in [1, 4n)) comes from
 * a double-double sum of the squares of x_i 2^-e in eight lanes (fixed lanes, fixed order) over
 * chunks of 2^16 elements, the chunks' double-doubles added by one more compensated sum.  The
 * scan for max|x_i| and the chunks' sums run on the handle's threads, chunk by chunk, and are
 * joined in chunk order: no bit depends on the threads.
 * Certificate: r is RN(sqrt(S')) iff S' lies strictly between the squares of the midpoints next
 * to r, i.e. -r g_dn + g_dn^2/4 < S' - r^2 < r g_up + g_up^2/4 (g: the gaps below and above
 * r).  S' - r^2 is estimated as (sh - rh) - rl + sl (r^2 = rh + rl exactly by TwoProduct;
 * sh - rh exact by Sterbenz), known to within B: the sums' error (all terms positive: at most
 * 2 ((m + 4)^2 + (c + 4)^2) u^2 S' for chunks of at most m elements, c of them), the squares of elements below 2^-480 in the frame (TwoProduct or the
 * scaling inexact: 2^-958 each) and the estimate's own two roundings.  Certified when both
 * inequalities hold with B and a margin of 2^-38 of the gap (which also covers g^2/4).  Only
 * frames whose result is normal (-1000 <= e <= 1000) are certified this way.
 * Otherwise the exact path: the long accumulator holds S exactly, and the signs of
 * S - (mid 2^e)^2 for the midpoints around the candidate (on the final grid: subnormal
 * results round to multiples of 2^-1074) move it until it brackets sqrt(S); an exact tie goes
 * to the even neighbour. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "sum/longacc.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include "core/par.h"
#include <immintrin.h>   /* AVX2: the library's baseline (x86-64-v3) */
#include <math.h>

#define LANES 8

typedef struct { double r; double est, bound; } cand;

static void two_sum(double a, double b, double *s, double *e)
{
    *s = a + b;
    const double bb = *s - a;
    *e = (a - (*s - bb)) + (b - bb);
}

/* The squares of x_i 2^-e (s1 s2 = 2^-e) of one chunk as a double-double h + l by eight
 * compensated lanes, and the count of |x_i 2^-e| < 2^-480 added to *tiny.  Its error is at most
 * 2 (n + 4)^2 u^2 times the chunk's exact sum (all terms positive). */
static void chunk_sum(const double *xv, int64_t n, int64_t inc, double s1, double s2, double *hp, double *lp, int64_t *tinyp)
{
    double sh[LANES] = { 0 }, sl[LANES] = { 0 };
    int64_t tiny = 0, i = 0;
    if (inc == 1) {   /* contiguous: the same lanes, two AVX2 registers of four */
        const __m256d v1 = _mm256_set1_pd(s1), v2 = _mm256_set1_pd(s2), sign = _mm256_set1_pd(-0.0);
        const __m256d lim = _mm256_set1_pd(0x1p-480);
        __m256d h0 = _mm256_setzero_pd(), h1 = h0, l0 = h0, l1 = h0, k0 = h0, k1 = h0;
        for (; i + LANES <= n; i += LANES) {
            const __m256d y0 = _mm256_mul_pd(_mm256_mul_pd(_mm256_loadu_pd(xv + i), v1), v2);
            const __m256d y1 = _mm256_mul_pd(_mm256_mul_pd(_mm256_loadu_pd(xv + i + 4), v1), v2);
            const __m256d p0 = _mm256_mul_pd(y0, y0), p1 = _mm256_mul_pd(y1, y1);
            const __m256d t0 = _mm256_add_pd(h0, p0), t1 = _mm256_add_pd(h1, p1);
            const __m256d b0 = _mm256_sub_pd(t0, h0), b1 = _mm256_sub_pd(t1, h1);
            const __m256d e0 = _mm256_add_pd(_mm256_sub_pd(h0, _mm256_sub_pd(t0, b0)), _mm256_sub_pd(p0, b0));
            const __m256d e1 = _mm256_add_pd(_mm256_sub_pd(h1, _mm256_sub_pd(t1, b1)), _mm256_sub_pd(p1, b1));
            l0 = _mm256_add_pd(l0, _mm256_add_pd(e0, _mm256_fmsub_pd(y0, y0, p0)));
            l1 = _mm256_add_pd(l1, _mm256_add_pd(e1, _mm256_fmsub_pd(y1, y1, p1)));
            h0 = t0;
            h1 = t1;
            /* count of |y| < 2^-480: 1.0 per lane where the compare holds */
            k0 = _mm256_add_pd(k0, _mm256_and_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, y0), lim, _CMP_LT_OQ), _mm256_set1_pd(1.0)));
            k1 = _mm256_add_pd(k1, _mm256_and_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, y1), lim, _CMP_LT_OQ), _mm256_set1_pd(1.0)));
        }
        double kk[LANES];
        _mm256_storeu_pd(sh, h0); _mm256_storeu_pd(sh + 4, h1);
        _mm256_storeu_pd(sl, l0); _mm256_storeu_pd(sl + 4, l1);
        _mm256_storeu_pd(kk, k0); _mm256_storeu_pd(kk + 4, k1);
        for (int q = 0; q < LANES; q++) tiny += (int64_t)kk[q];
    }
    for (; i + LANES <= n; i += LANES)
        for (int q = 0; q < LANES; q++) {
            const double y = xv[(i + q) * inc] * s1 * s2, p = y * y;
            const double t = sh[q] + p, bb = t - sh[q];
            sl[q] += ((sh[q] - (t - bb)) + (p - bb)) + fma(y, y, -p);
            sh[q] = t;
            tiny += fabs(y) < 0x1p-480;
        }
    for (; i < n; i++) {
        const double y = xv[i * inc] * s1 * s2, p = y * y;
        double s, err;
        two_sum(sh[0], p, &s, &err);
        sh[0] = s;
        sl[0] += err + fma(y, y, -p);
        tiny += fabs(y) < 0x1p-480;
    }
    double h = sh[0], l = sl[0];
    for (int q = 1; q < LANES; q++) {
        double s, err;
        two_sum(h, sh[q], &s, &err);
        h = s;
        l += err + sl[q];
    }
    two_sum(h, l, hp, lp);
    *tinyp += tiny;
}

/* Elements per chunk: the lanes' bound grows as the square of their length, so a long vector
 * is summed in chunks whose double-doubles are added by one more compensated sum */
#define CHUNK ((int64_t)1 << 16)

/* The chunks are computed on the handle's threads in groups of GROUP (their double-doubles
 * and tiny counts on the stack), each group's then added in chunk order: the same additions in
 * the same order on every thread count. */
#define GROUP 64
typedef struct {
    const double *xv;
    int64_t n, inc, c0;       /* the group's first chunk */
    double s1, s2;
    double hl[2 * GROUP];
    int64_t tiny[GROUP];
} group_t;

static int64_t chunk_body(void *ctx, int64_t lo, int64_t hi)
{
    group_t *g = ctx;
    for (int64_t q = lo; q < hi; q++) {
        const int64_t i0 = (g->c0 + q) * CHUNK;
        g->tiny[q] = 0;
        chunk_sum(g->xv + i0 * g->inc, g->n - i0 < CHUNK ? g->n - i0 : CHUNK, g->inc, g->s1, g->s2, &g->hl[2 * q],
                  &g->hl[2 * q + 1], &g->tiny[q]);
    }
    return 0;
}

/* the chunks' double-doubles added in chunk order into (*hp, *lp), their tiny counts into *tp */
static void sum_chunks(const double *xv, int64_t n, int64_t inc, double s1, double s2, int nt, double *hp, double *lp,
                       int64_t *tp)
{
    double h = 0.0, l = 0.0;
    const int64_t chunks = (n + CHUNK - 1) / CHUNK;
    group_t g;   /* (fields set one by one: an initializer would clear the arrays too) */
    g.xv = xv; g.n = n; g.inc = inc; g.s1 = s1; g.s2 = s2;
    for (g.c0 = 0; g.c0 < chunks; g.c0 += GROUP) {
        const int64_t nc = chunks - g.c0 < GROUP ? chunks - g.c0 : GROUP;
        (void)ozb_par_for(nt > 1 && nc > 1, nt, nc, chunk_body, (void *)&g);
        for (int64_t q = 0; q < nc; q++) {
            double s, err;
            two_sum(h, g.hl[2 * q], &s, &err);
            h = s;
            l += err + g.hl[2 * q + 1];
            *tp += g.tiny[q];
        }
    }
    *hp = h;
    *lp = l;
}

/* candidate r, estimate of S' - r^2 and its bound, in the frame 2^-e, the chunks on nt threads */
static cand candidate(const double *xv, int64_t n, int64_t inc, int e, int nt)
{
    /* x 2^-e as two exact power-of-two products (2^-e alone leaves the range below e = -1023) */
    const double s1 = e < -1000 ? 0x1p600 : 1.0, s2 = ldexp(1.0, e < -1000 ? -e - 600 : -e);
    double h, l;
    int64_t tiny = 0;
    const int64_t chunks = (n + CHUNK - 1) / CHUNK;
    if (chunks == 1) chunk_sum(xv, n, inc, s1, s2, &h, &l, &tiny);   /* (0 + (h, l) is (h, l)) */
    else sum_chunks(xv, n, inc, s1, s2, nt, &h, &l, &tiny);
    two_sum(h, l, &h, &l);
    /* sqrt(h) alone misses sqrt(h + l) by up to an ulp: one Newton step on the double-double
     * (r0 + (h + l - r0^2) / (2 r0)) leaves the candidate wrong only next to a midpoint */
    const double r0 = sqrt(h), q0 = r0 * r0;
    const double r = r0 + (((h - q0) - fma(r0, r0, -q0)) + l) / (2.0 * r0);
    const double rh = r * r, rl = fma(r, r, -rh), d = h - rh;
    const double est = (d - rl) + l;
    /* the chunks' errors: 2 (m + 4)^2 u^2 S' in all for chunks of at most m elements (their
     * exact sums add up to S'); the sum of the chunks' double-doubles is itself a compensated
     * sum of `chunks` positive terms: 2 (chunks + 4)^2 u^2 S' more.  S' <= 2 h. */
    const double nn = (double)(n < CHUNK ? n : CHUNK) + 4.0, nc = chunks > 1 ? (double)chunks + 4.0 : 0.0;
    const double bound = 2.0 * (nn * nn + nc * nc) * 0x1p-106 * h * 2.0 + (double)tiny * 0x1p-958 +
                         0x1p-51 * (fabs(d) + fabs(rl) + fabs(l));
    return (cand){ r, est, bound };
}

/* sign of S - ((c + s g/2) 2^e)^2, S in acc (kept) */
static int mid_sign(const ozb_longacc *acc, double c, double g, int s, int e)
{
    ozb_longacc t = *acc;
    int q;
    const double f = frexp(c, &q);
    const uint64_t C = (uint64_t)ldexp(f, 53);
    const int qc = q - 53, lg = ilogb(g);
    ozb_la_add(&t, 1, (ozb_u128)C * C, 2 * qc + 2 * e);
    ozb_la_add(&t, s > 0, (ozb_u128)C, qc + lg + 2 * e);
    ozb_la_add(&t, 1, (ozb_u128)1, 2 * lg - 2 + 2 * e);
    int sign;
    (void)ozb_la_round(&t, &sign);
    return sign;
}

/* of two neighbours on the final grid, the one whose double has an even last bit */
static double even_of(double a, double b, int e)
{
    const double fa = ldexp(a, e);
    uint64_t bits;
    memcpy(&bits, &fa, sizeof bits);
    return (bits & 1) ? b : a;
}

static double exact_path(const double *xv, int64_t n, int64_t inc, int e, double c)
{
    ozb_longacc acc;
    ozb_la_init(&acc);
    for (int64_t i = 0; i < n; i++) ozb_la_add_product(&acc, xv[i * inc], xv[i * inc]);
    const double tg = e < -1000 ? ldexp(1.0, -1074 - e) : 0.0;   /* the subnormal grid, in the frame */
    if (tg > 0.0) c = nearbyint(c / tg) * tg;
    for (int it = 0; it < 16; it++) {
        const double gu = fmax(nextafter(c, INFINITY) - c, tg);
        const int su = mid_sign(&acc, c, gu, 1, e);
        if (su > 0) { c += gu; continue; }
        if (su == 0) return ldexp(even_of(c, c + gu, e), e);
        const double gd = fmax(c - nextafter(c, 0.0), tg);
        if (c - gd < 0.0) break;
        const int sd = mid_sign(&acc, c, gd, -1, e);
        if (sd < 0) { c -= gd; continue; }
        if (sd == 0) return ldexp(even_of(c - gd, c, e), e);
        break;
    }
    return ldexp(c, e);
}

/* NaN where x[0..n) (stride inc) holds one, else max |x_i| (Inf where it holds one) */
static double scan(const double *xv, int64_t n, int64_t inc)
{
    double mx = 0.0;
    int nan = 0;
    int64_t i = 0;
    if (inc == 1) {   /* contiguous: four lanes of max and of "unordered" */
        const __m256d sign = _mm256_set1_pd(-0.0);
        __m256d m = _mm256_setzero_pd(), u = m;
        for (; i + 4 <= n; i += 4) {
            const __m256d v = _mm256_andnot_pd(sign, _mm256_loadu_pd(xv + i));
            m = _mm256_max_pd(v, m);
            u = _mm256_or_pd(u, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
        }
        double mm[4];
        _mm256_storeu_pd(mm, m);
        nan = _mm256_movemask_pd(u) != 0;
        for (int q = 0; q < 4; q++) mx = mm[q] > mx ? mm[q] : mx;
    }
    for (; i < n; i++) {
        const double v = fabs(xv[i * inc]);
        nan |= isnan(v);
        mx = v > mx ? v : mx;
    }
    return nan ? NAN : mx;
}

/* the scan of a group of chunks on the threads, each chunk's result in m */
typedef struct {
    const double *xv;
    int64_t n, inc, c0;
    double m[GROUP];
} scan_t;

static int64_t scan_body(void *ctx, int64_t lo, int64_t hi)
{
    scan_t *sc = ctx;
    for (int64_t q = lo; q < hi; q++) {
        const int64_t i0 = (sc->c0 + q) * CHUNK;
        sc->m[q] = scan(sc->xv + i0 * sc->inc, sc->n - i0 < CHUNK ? sc->n - i0 : CHUNK, sc->inc);
    }
    return 0;
}

ozblas_status_t ozblas_dnrm2(ozblas_handle_t h, int64_t n, const double *x, int64_t incx, double *result)
{
    if (!h || !result || (n > 0 && !x)) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    *result = 0.0;
    if (n <= 0) return OZBLAS_STATUS_SUCCESS;
    const double *xv = ozb_vec0(x, n, incx);
    ozb_fpenv_t env;   /* CONTRACT §1's environment (DAZ would read a subnormal x_i as 0), and */
    const int changed = ozb_fpenv_enter(&env);
    const int nt = changed ? 1 : ozb_threads_for(h, (double)n);   /* ... threads that carry it */
    double mx = 0.0;
    scan_t sc;   /* (as group_t) */
    sc.xv = xv; sc.n = n; sc.inc = incx;
    const int64_t chunks = (n + CHUNK - 1) / CHUNK;
    if (chunks == 1) mx = scan(xv, n, incx);   /* (short vectors: no groups) */
    else for (sc.c0 = 0; sc.c0 < chunks && !isnan(mx); sc.c0 += GROUP) {
        const int64_t nc = chunks - sc.c0 < GROUP ? chunks - sc.c0 : GROUP;
        (void)ozb_par_for(nt > 1 && nc > 1, nt, nc, scan_body, (void *)&sc);
        for (int64_t q = 0; q < nc; q++) mx = sc.m[q] > mx || isnan(sc.m[q]) ? sc.m[q] : mx;
    }
    if (!isfinite(mx))
        *result = isnan(mx) ? NAN : INFINITY;
    else if (mx > 0.0) {
        const int e = ilogb(mx);
        const cand cd = candidate(xv, n, incx, e, nt);
        const double r = cd.r;
        const double gu = nextafter(r, INFINITY) - r, gd = r - nextafter(r, 0.0);
        if (e >= -1000 && e <= 1000 && cd.est + cd.bound < r * gu * (1.0 - 0x1p-38) &&
            cd.est - cd.bound > -(r * gd) * (1.0 - 0x1p-38))
            *result = ldexp(r, e);
        else
            *result = exact_path(xv, n, incx, e, cd.r);
    }
    ozb_fpenv_leave(env, changed);
    return OZBLAS_STATUS_SUCCESS;
}
