#define _POSIX_C_SOURCE 200809L
/*
 * Differential fuzzer of ozblas_ddot / ozblas_dgemv / ozblas_dgemm against the exact MPFR
 * references (tests/ref/ozref.h), checking the guarantees of CONTRACT.md §2-§4:
 *
 *  - CORRECTLY_ROUNDED: every output bit is RN(exact) (NaN matches any NaN), also across a
 *    second call with another thread count, workspace limit and slice format;
 *  - every mode: NaN/Inf exactly where the exact computation gives them (§4), no NaN and no
 *    Inf from finite inputs unless the result can legitimately reach the overflow threshold,
 *    DOUBLE within the Algorithm 3 bound (row sums, as tests/tu.c checks it);
 *  - DOUBLE/FIXED: a second call with another thread count and workspace limit (same
 *    configuration, same handle) gives identical bits;
 *  - padding of C, gaps of strided y, and every input buffer untouched; invalid arguments give
 *    OZBLAS_STATUS_INVALID_VALUE with every output untouched; return codes sane.
 *
 * The input bytes are decoded by a small stream reader; when they run out, the stream goes on
 * with a deterministic generator seeded by the bytes, so short inputs still fill large
 * problems (k up to a few thousand, which reaches the blocking paths).
 *
 * Any violated check prints what it saw and calls abort(), so libFuzzer records the input.
 * The same file, linked with fuzz_replay.c, replays a corpus in the ordinary test suite.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ozblas.h"
#include "ozref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ------------------------------------------------------------------ byte stream */

typedef struct {
    const uint8_t *p;
    size_t n, pos;
    uint64_t rng;
} src_t;

static uint64_t mix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned u8(src_t *s)
{
    if (s->pos < s->n) return s->p[s->pos++];
    return (unsigned)(mix64(&s->rng) >> 56);
}
static unsigned u16(src_t *s) { unsigned a = u8(s); return a | (u8(s) << 8); }
static uint64_t u64(src_t *s)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)u8(s) << (8 * i);
    return v;
}

static uint64_t bits_of(double v) { uint64_t b; memcpy(&b, &v, 8); return b; }
static double from_bits(uint64_t b) { double v; memcpy(&v, &b, 8); return v; }

/* ------------------------------------------------------------------ failure reporting */

static char g_ctx[512];
static int g_verbose = -1;   /* $OZBLAS_FUZZ_VERBOSE: print each decoded problem */

static void show_ctx(void)
{
    if (g_verbose < 0) g_verbose = getenv("OZBLAS_FUZZ_VERBOSE") != NULL;
    if (g_verbose) fprintf(stderr, "fuzz_ozblas: %s\n", g_ctx);
}

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\nfuzz_ozblas: CHECK FAILED [%s]: ", g_ctx);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fflush(stderr);
    abort();
}

/* ------------------------------------------------------------------ values */

typedef struct {
    int ebase, espread;   /* exponents of the "ordinary" values */
    unsigned special;     /* per-value threshold (0..255) for special / raw values */
    double last;          /* previous value (for cancellation partners) */
} valgen_t;

static const uint64_t special_bits[] = {
    0x0000000000000000ULL, 0x8000000000000000ULL,   /* +-0 */
    0x7ff0000000000000ULL, 0xfff0000000000000ULL,   /* +-Inf */
    0x7ff8000000000000ULL, 0xfff8000000000000ULL,   /* quiet NaN, negative */
    0x7ff0000000000001ULL, 0x7ff4000000000123ULL,   /* signalling NaNs with payloads */
    0x7fffffffffffffffULL, 0xfff8deadbeefcafeULL,   /* NaN payloads */
    0x7fefffffffffffffULL, 0xffefffffffffffffULL,   /* +-DBL_MAX */
    0x7fe8000000000000ULL, 0xffe8000000000000ULL,   /* +-1.5*2^1023 */
    0x0010000000000000ULL, 0x8010000000000000ULL,   /* +-DBL_MIN */
    0x0000000000000001ULL, 0x8000000000000001ULL,   /* +-denorm min */
    0x000fffffffffffffULL, 0x0008000000000000ULL,   /* largest subnormal, 2^-1023 */
    0x3ff0000000000000ULL, 0xbff0000000000000ULL,   /* +-1 */
    0x3ff0000000000001ULL, 0x3fefffffffffffffULL,   /* 1+u, 1-u/2 */
    0x4340000000000000ULL, 0x3ca0000000000000ULL,   /* 2^53, 2^-53 */
};
#define NSPECIAL (sizeof special_bits / sizeof special_bits[0])

static double finite_of(src_t *s, const valgen_t *g, unsigned sel)
{
    uint64_t mant = ((uint64_t)u16(s) | ((uint64_t)u8(s) << 16)) << 28;   /* 24 random bits */
    if (sel & 8) mant |= u64(s) & ((1ULL << 28) - 1);                    /* full 52 bits   */
    int e = g->ebase + (g->espread ? (int)(u16(s) % (unsigned)(g->espread + 1)) - g->espread / 2 : 0);
    if (e > 1023) e = 1023;
    if (e < -1074) e = -1074;
    double v;
    if (e >= -1022) v = from_bits(((uint64_t)(e + 1023) << 52) | (mant & 0xfffffffffffffULL));
    else {   /* subnormal: the 53-bit significand shifted into the fixed 2^-1074 grid */
        uint64_t sig = ((mant & 0xfffffffffffffULL) | (1ULL << 52)) >> (-1022 - e);
        v = from_bits(sig ? sig : 1);
    }
    return (sel & 1) ? -v : v;
}

static double gen_value(src_t *s, valgen_t *g)
{
    unsigned sel = u8(s);
    double v;
    if (sel < g->special) {
        unsigned t = u8(s);
        if (t < 160) v = from_bits(special_bits[t % NSPECIAL]);
        else if (t < 230) v = from_bits(u64(s));           /* raw bits */
        else v = (t & 1) ? INFINITY : NAN;
    } else {
        switch (sel % 8) {
        case 0: v = (double)(int8_t)u8(s); break;           /* small integers */
        case 1: v = -g->last; break;                        /* cancellation partner */
        case 2: v = g->last * 0x1p-30 + finite_of(s, g, sel); break;
        default: v = finite_of(s, g, sel); break;
        }
        if (!isfinite(v)) v = 1.0;
    }
    g->last = v;
    return v;
}

static double *alloc_fill(src_t *s, valgen_t *g, size_t n)
{
    double *p = malloc(sizeof(double) * (n ? n : 1));
    if (!p) fail("malloc(%zu doubles)", n);
    for (size_t i = 0; i < (n ? n : 1); i++) p[i] = gen_value(s, g);
    return p;
}

static double *dup(const double *p, size_t n)
{
    double *q = malloc(sizeof(double) * (n ? n : 1));
    if (!q) fail("malloc");
    memcpy(q, p, sizeof(double) * (n ? n : 1));
    return q;
}

/* ------------------------------------------------------------------ decoding helpers */

static int64_t size_of_byte(unsigned b, int64_t maxv)
{
    if (b >= 250) return -(int64_t)(b - 249);            /* negative: invalid */
    return (int64_t)(b % (unsigned)(maxv + 1));
}
static int64_t dec_size(src_t *s, int64_t maxv) { return size_of_byte(u8(s), maxv); }

static int64_t dec_ld(src_t *s, int64_t rows, int *invalid)
{
    int64_t min = rows > 1 ? rows : 1;
    unsigned b = u8(s);
    if (b >= 244) { *invalid = 1; return min - 1 - (int64_t)(b % 3); }
    if (b < 160) return min;
    return min + (int64_t)(b % 5);
}

static int64_t dec_inc(src_t *s)
{
    static const int64_t tab[] = {1, 1, 1, 1, -1, -1, 2, -2, 3, -3, 0, 1, 5, -4, 1, -1};
    return tab[u8(s) % 16];
}

static ozblas_operation_t dec_op(src_t *s)
{
    unsigned b = u8(s);
    if (b < 122) return OZBLAS_OP_N;
    if (b < 244) return OZBLAS_OP_T;
    static const int bad[] = {2, -1, 'N', 'T', 0x7fffffff, 3};
    return (ozblas_operation_t)bad[b % 6];
}

static double dec_scalar(src_t *s, valgen_t *g, int is_beta)
{
    unsigned b = u8(s);
    switch (b % 16) {
    case 0: case 1: return 0.0;
    case 2: return -0.0;
    case 3: case 4: case 5: return 1.0;
    case 6: return -1.0;
    case 7: return is_beta ? 0.0 : 2.0;
    default: return gen_value(s, g);
    }
}

static size_t vec_len(int64_t n, int64_t inc)
{
    if (n <= 0) return 1;
    int64_t a = inc < 0 ? -inc : inc;
    return (size_t)(1 + (n - 1) * a);
}

static size_t mat_len(int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 1;
    return (size_t)(ld * (cols - 1) + rows);
}

/* ------------------------------------------------------------------ checks */

/* |alpha| sum |a_l||b_l| + |beta||c| in long double (never overflows for finite inputs;
 * NaN or Inf exactly when a contributing term is special); alpha == 0 or k == 0: A, B not
 * read; beta == 0: c not read. */
static long double absb_elem(int64_t k, const double *a, int64_t sa, const double *b, int64_t sb,
                             double alpha, double beta, double c_in)
{
    long double s = 0;
    if (k > 0 && alpha != 0) {
        long double t = 0;
        for (int64_t l = 0; l < k; l++) t += fabsl((long double)a[l * sa]) * fabsl((long double)b[l * sb]);
        s = fabsl((long double)alpha) * t;
    }
    if (beta != 0) s += fabsl((long double)beta) * fabsl((long double)c_in);
    return s;
}

/* The finite part of absb_elem: |alpha| sum |a_l||b_l| over pairs of finite entries (alpha
 * finite), which Algorithm 3's weights still count where an element's result is NaN/Inf
 * (e.g. from beta*C): it belongs to the row's error bound (run_dgemm). */
static long double absb_finite_part(int64_t k, const double *a, int64_t sa, const double *b, int64_t sb, double alpha)
{
    if (k <= 0 || alpha == 0 || !isfinite(alpha)) return 0;
    long double t = 0;
    for (int64_t l = 0; l < k; l++)
        if (isfinite(a[l * sa]) && isfinite(b[l * sb])) t += fabsl((long double)a[l * sa]) * fabsl((long double)b[l * sb]);
    return fabsl((long double)alpha) * t;
}

static const char *mode_name(int m)
{
    return m == OZBLAS_MODE_DOUBLE ? "DOUBLE" : m == OZBLAS_MODE_CORRECTLY_ROUNDED ? "CR" : m == OZBLAS_MODE_FIXED ? "FIXED" : "?";
}

static long double ulp_of(double v)
{
    if (!(fabs(v) >= 0x1.0p-1022)) return 0x1.0p-1074L;
    return ldexpl(1.0L, ilogb(v) - 52);
}

/* One output element: got against ref (RN(exact)) with absb (see absb_elem), inner dim k. */
static void check_elem(int mode, double got, double ref, long double absb, int64_t k, const char *what, int64_t idx)
{
    const long double u = 0x1.0p-53L;
    const int same = bits_of(got) == bits_of(ref) || (isnan(got) && isnan(ref));
    if (!isfinite(absb)) {
        /* a special term contributes: the exact computation's NaN/Inf, in every mode */
        if (!same) fail("%s %" PRId64 ": special inputs: got %a (0x%016" PRIx64 "), exact IEEE result %a", what, idx, got, bits_of(got), ref);
        return;
    }
    if (mode == OZBLAS_MODE_CORRECTLY_ROUNDED) {
        if (bits_of(got) != bits_of(ref))
            fail("%s %" PRId64 ": got %a (0x%016" PRIx64 "), RN(exact) %a (0x%016" PRIx64 ")", what, idx, got, bits_of(got), ref, bits_of(ref));
        return;
    }
    /* DOUBLE / FIXED, finite inputs */
    if (isnan(got)) fail("%s %" PRId64 ": spurious NaN from finite inputs (RN(exact) %a)", what, idx, ref);
    const long double margin = 4 * (long double)(k + 1) * u * absb;
    if (isinf(got) && absb + margin < (long double)DBL_MAX)
        fail("%s %" PRId64 ": spurious Inf from finite inputs (RN(exact) %a, |terms| sum %Lg)", what, idx, ref, absb);
    /* DOUBLE where the exact result overflows or got does: the error's lower bound counts in
     * the row's Algorithm 3 bound (grp_add); with heavy cancellation that bound allows even an
     * Inf of the other sign, as a conventional DGEMM may give. */
}

/* DOUBLE mode error bound (Algorithm 3, seed 000) over a group (one row of C, or one element):
 * sum|got-ref| <= 4 k u sum absb + 4 sum ulp(ref); only elements with finite got and ref. */
typedef struct { long double err, b, ulps; } grp_t;
static void grp_add(grp_t *g, double got, double ref, long double absb)
{
    if (!isfinite(absb) || isnan(got)) return;
    const long double M = (long double)DBL_MAX;
    long double e;
    if (isfinite(got) && isfinite(ref)) e = fabsl((long double)got - (long double)ref);
    else if (isinf(ref) && isfinite(got)) e = M - (signbit(ref) ? -(long double)got : (long double)got);  /* |exact| >= DBL_MAX */
    else if (isinf(ref)) e = signbit(ref) == signbit(got) ? 0 : 2 * M;                                     /* both Inf */
    else e = M - (signbit(got) ? -(long double)ref : (long double)ref);                                    /* got Inf: computed beyond DBL_MAX */
    g->err += e > 0 ? e : 0;
    g->b += absb;
    g->ulps += ulp_of(isfinite(ref) ? ref : DBL_MAX);
}
static void grp_check(const grp_t *g, int64_t k, const char *what, int64_t idx)
{
    long double bound = 4 * (long double)k * 0x1.0p-53L * g->b + 4 * g->ulps;
    if (g->err > bound) fail("%s %" PRId64 ": DOUBLE error sum %Lg exceeds the Algorithm 3 bound %Lg", what, idx, g->err, bound);
}

static void check_same(const double *got, const double *exp, size_t n, int nan_any, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (bits_of(got[i]) == bits_of(exp[i])) continue;
        if (nan_any && isnan(got[i]) && isnan(exp[i])) continue;
        fail("%s: element %zu changed/differs: got %a (0x%016" PRIx64 "), expected %a (0x%016" PRIx64 ")",
             what, i, got[i], bits_of(got[i]), exp[i], bits_of(exp[i]));
    }
}

static void check_status(ozblas_status_t st, const char *what)
{
    if ((int)st < (int)OZBLAS_STATUS_SUCCESS || (int)st > (int)OZBLAS_STATUS_EXECUTION_FAILED)
        fail("%s: status %d is not an ozblas_status_t", what, (int)st);
}

/* ------------------------------------------------------------------ configuration */

typedef struct {
    int mode, split, fast, sum, engine, scaling;
    int threads[2];
    size_t ws[2];
    int engine2;      /* CORRECTLY_ROUNDED: slice format of the second call */
} cfg_t;

static ozblas_handle_t make_handle(const cfg_t *c, int run)
{
    ozblas_handle_t h = NULL;
    ozblas_status_t st = ozblas_create(&h);
    if (st != OZBLAS_STATUS_SUCCESS || !h) fail("ozblas_create: %d", (int)st);
    if (ozblas_set_mode(h, (ozblas_mode_t)c->mode) != OZBLAS_STATUS_SUCCESS) fail("set_mode");
    if (ozblas_set_split_count(h, c->split) != OZBLAS_STATUS_SUCCESS) fail("set_split_count");
    if (ozblas_set_fast_mode(h, c->fast) != OZBLAS_STATUS_SUCCESS) fail("set_fast_mode");
    if (ozblas_set_summation(h, (ozblas_summation_t)c->sum) != OZBLAS_STATUS_SUCCESS) fail("set_summation");
    if (ozblas_set_crt_scaling(h, (ozblas_crt_scaling_t)c->scaling) != OZBLAS_STATUS_SUCCESS) fail("set_crt_scaling");
    if (ozblas_set_engine(h, (ozblas_engine_t)(run ? c->engine2 : c->engine)) != OZBLAS_STATUS_SUCCESS) fail("set_engine");
    if (ozblas_set_num_threads(h, c->threads[run]) != OZBLAS_STATUS_SUCCESS) fail("set_num_threads");
    if (ozblas_set_workspace_limit(h, c->ws[run]) != OZBLAS_STATUS_SUCCESS) fail("set_workspace_limit");
    return h;
}

/* The CUDA backend's twin: a CUDA handle on the emulated device (host memory, the backend's
 * own staging, products and kernels' element operations; src/cuda/dev.h) configured as the
 * first call's handle.  It must return the same status and write the same bits, padding and
 * gaps included (CONTRACT §3: one result per configuration, whatever the backend). */
static ozblas_handle_t make_twin(const cfg_t *c)
{
    setenv("OZBLAS_CUDA_EMULATE", "1", 1);
    ozblas_handle_t h = NULL;
    ozblas_status_t st = ozblas_create_cuda(&h, 0);
    if (st != OZBLAS_STATUS_SUCCESS || !h) fail("ozblas_create_cuda (emulated): %d", (int)st);
    if (ozblas_set_mode(h, (ozblas_mode_t)c->mode) != OZBLAS_STATUS_SUCCESS) fail("twin set_mode");
    if (ozblas_set_split_count(h, c->split) != OZBLAS_STATUS_SUCCESS) fail("twin set_split_count");
    if (ozblas_set_fast_mode(h, c->fast) != OZBLAS_STATUS_SUCCESS) fail("twin set_fast_mode");
    if (ozblas_set_summation(h, (ozblas_summation_t)c->sum) != OZBLAS_STATUS_SUCCESS) fail("twin set_summation");
    if (ozblas_set_crt_scaling(h, (ozblas_crt_scaling_t)c->scaling) != OZBLAS_STATUS_SUCCESS) fail("twin set_crt_scaling");
    if (ozblas_set_engine(h, (ozblas_engine_t)c->engine) != OZBLAS_STATUS_SUCCESS) fail("twin set_engine");
    if (ozblas_set_num_threads(h, c->threads[0]) != OZBLAS_STATUS_SUCCESS) fail("twin set_num_threads");
    if (ozblas_set_workspace_limit(h, c->ws[0]) != OZBLAS_STATUS_SUCCESS) fail("twin set_workspace_limit");
    return h;
}

static void set_run(ozblas_handle_t h, const cfg_t *c, int run)
{
    if (ozblas_set_engine(h, (ozblas_engine_t)(run ? c->engine2 : c->engine)) != OZBLAS_STATUS_SUCCESS) fail("set_engine");
    if (ozblas_set_num_threads(h, c->threads[run]) != OZBLAS_STATUS_SUCCESS) fail("set_num_threads");
    if (ozblas_set_workspace_limit(h, c->ws[run]) != OZBLAS_STATUS_SUCCESS) fail("set_workspace_limit");
}

static int engine_supported(int e)
{
    ozblas_handle_t h = NULL;
    if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS) fail("ozblas_create");
    ozblas_status_t st = ozblas_set_engine(h, (ozblas_engine_t)e);
    ozblas_destroy(h);
    if (st == OZBLAS_STATUS_NOT_SUPPORTED && (e == OZBLAS_ENGINE_INT8 || e == OZBLAS_ENGINE_CRT_INT8)) return 0;
    if (st != OZBLAS_STATUS_SUCCESS) fail("set_engine(%d): %d", e, (int)st);
    return 1;
}

/* configuration setters on bad values: INVALID_VALUE and nothing changed */
static void check_setters(src_t *s)
{
    ozblas_handle_t h = NULL;
    if (ozblas_create(&h) != OZBLAS_STATUS_SUCCESS) fail("ozblas_create");
    /* invalid for every enum setter (all have at most 4 values) and for fast mode */
    static const int bad[] = {-1, 4, 5, 0x7fffffff, 1000, -0x7fffffff - 1};
    int v = bad[u8(s) % 6];
    if (ozblas_set_mode(h, (ozblas_mode_t)v) != OZBLAS_STATUS_INVALID_VALUE) fail("set_mode(%d) accepted", v);
    if (ozblas_set_mode(h, (ozblas_mode_t)3) != OZBLAS_STATUS_INVALID_VALUE) fail("set_mode(3) accepted");
    if (ozblas_set_engine(h, (ozblas_engine_t)v) != OZBLAS_STATUS_INVALID_VALUE) fail("set_engine(%d) accepted", v);
    if (ozblas_set_summation(h, (ozblas_summation_t)v) != OZBLAS_STATUS_INVALID_VALUE) fail("set_summation(%d) accepted", v);
    if (ozblas_set_summation(h, (ozblas_summation_t)2) != OZBLAS_STATUS_INVALID_VALUE) fail("set_summation(2) accepted");
    if (ozblas_set_crt_scaling(h, (ozblas_crt_scaling_t)v) != OZBLAS_STATUS_INVALID_VALUE) fail("set_crt_scaling(%d) accepted", v);
    if (ozblas_set_fast_mode(h, v) != OZBLAS_STATUS_INVALID_VALUE) fail("set_fast_mode(%d) accepted", v);
    if (ozblas_set_fast_mode(h, 2) != OZBLAS_STATUS_INVALID_VALUE) fail("set_fast_mode(2) accepted");
    if (ozblas_set_split_count(h, 0) != OZBLAS_STATUS_INVALID_VALUE) fail("set_split_count(0) accepted");
    if (ozblas_set_split_count(h, -1) != OZBLAS_STATUS_INVALID_VALUE) fail("set_split_count(-1) accepted");
    ozblas_mode_t m; ozblas_engine_t e;
    if (ozblas_get_mode(h, &m) != OZBLAS_STATUS_SUCCESS || m != OZBLAS_MODE_DOUBLE) fail("mode changed by a rejected set");
    if (ozblas_get_engine(h, &e) != OZBLAS_STATUS_SUCCESS || e != OZBLAS_ENGINE_FP64) fail("engine changed by a rejected set");
    if (ozblas_set_mode(NULL, OZBLAS_MODE_DOUBLE) != OZBLAS_STATUS_INVALID_VALUE) fail("set_mode(NULL) accepted");
    if (ozblas_get_mode(h, NULL) != OZBLAS_STATUS_INVALID_VALUE) fail("get_mode(h, NULL) accepted");
    ozblas_destroy(h);
}

/* ------------------------------------------------------------------ routines */

/* the outcome expected from the arguments (CONTRACT §4) */
enum { EXP_OK = 0, EXP_INVALID = 1, EXP_EITHER = 2 /* NULL where no data is read */ };

static void run_ddot(src_t *s, const cfg_t *c, valgen_t *g, unsigned nullmask)
{
    int64_t n;
    unsigned b = u8(s);
    if (b >= 235 && b < 250) n = 100 + (int64_t)(u16(s) % 4000);   /* long: several blocks of the fused and GEMM-ized paths */
    else n = size_of_byte(b, 40);
    int64_t incx = dec_inc(s), incy = dec_inc(s);
    size_t nx = vec_len(n, incx), ny = vec_len(n, incy);
    double *x = alloc_fill(s, g, nx), *y = alloc_fill(s, g, ny);
    double *x0 = dup(x, nx), *y0 = dup(y, ny);
    const double *px = (nullmask & 1) ? NULL : x, *py = (nullmask & 2) ? NULL : y;
    const int null_res = (nullmask & 4) != 0;
    snprintf(g_ctx, sizeof g_ctx, "ddot %s split=%d fast=%d sum=%d engine=%d/%d scaling=%d n=%" PRId64 " incx=%" PRId64 " incy=%" PRId64 " null=%u",
             mode_name(c->mode), c->split, c->fast, c->sum, c->engine, c->engine2, c->scaling, n, incx, incy, nullmask & 7);
    show_ctx();
    if (g_verbose && px && py)
        for (int64_t i = 0; i < n && i < 16; i++)
            fprintf(stderr, "  x[%lld] = %a, y[%lld] = %a\n", (long long)i, px[i * (incx < 0 ? -incx : incx)],
                    (long long)i, py[i * (incy < 0 ? -incy : incy)]);

    int expect = EXP_OK;
    if (null_res) expect = EXP_INVALID;
    else if (n > 0 && (!px || !py)) expect = EXP_INVALID;

    const double sentinel = from_bits(0x7ff8deadbeefcafeULL);
    double res[2] = {sentinel, sentinel};
    ozblas_status_t st0 = OZBLAS_STATUS_SUCCESS;
    ozblas_handle_t h = make_handle(c, 0);
    for (int run = 0; run < 2; run++) {
        if (run) set_run(h, c, 1);
        ozblas_status_t st = ozblas_ddot(h, n, px, incx, py, incy, null_res ? NULL : &res[run]);
        if (run == 0) st0 = st;
        check_status(st, "ddot");
        check_same(x, x0, nx, 0, "ddot: x modified");
        check_same(y, y0, ny, 0, "ddot: y modified");
        if (expect == EXP_INVALID) {
            if (st != OZBLAS_STATUS_INVALID_VALUE) fail("ddot: invalid arguments gave status %d", (int)st);
            if (bits_of(res[run]) != bits_of(sentinel)) fail("ddot: result written on invalid arguments");
            continue;
        }
        if (st != OZBLAS_STATUS_SUCCESS) fail("ddot: status %d (%s)", (int)st, ozblas_status_string(st));
        double ref = ozref_ddot(n, x, incx, y, incy);
        long double ab = 0;
        int64_t k = n > 0 ? n : 0;
        if (n > 0) {
            const double *xs = incx < 0 ? x + (n - 1) * -incx : x, *ys = incy < 0 ? y + (n - 1) * -incy : y;
            ab = absb_elem(n, xs, incx, ys, incy, 1.0, 0.0, 0.0);
        }
        check_elem(c->mode, res[run], ref, ab, k, run ? "ddot (2nd call)" : "ddot", 0);
        if (c->mode == OZBLAS_MODE_DOUBLE) {
            grp_t gr = {0, 0, 0};
            grp_add(&gr, res[run], ref, ab);
            grp_check(&gr, k, "ddot", 0);
        }
    }
    if (expect == EXP_OK && bits_of(res[0]) != bits_of(res[1]))
        fail("ddot: not reproducible: %a (threads %d, ws %zu) vs %a (threads %d, ws %zu)",
             res[0], c->threads[0], c->ws[0], res[1], c->threads[1], c->ws[1]);
    {
        ozblas_handle_t g = make_twin(c);
        double rt = sentinel;
        ozblas_status_t st = ozblas_ddot(g, n, px, incx, py, incy, null_res ? NULL : &rt);
        if (st != st0) fail("ddot: CUDA (emulated) status %d, CPU %d", (int)st, (int)st0);
        if (!null_res && bits_of(rt) != bits_of(res[0])) fail("ddot: CUDA (emulated) %a, CPU %a", rt, res[0]);
        ozblas_destroy(g);
    }
    if (ozblas_ddot(NULL, n, px, incx, py, incy, &res[0]) != OZBLAS_STATUS_INVALID_VALUE) fail("ddot: NULL handle accepted");
    ozblas_destroy(h);
    free(x); free(y); free(x0); free(y0);
}

static void run_dgemv(src_t *s, const cfg_t *c, valgen_t *g, unsigned nullmask)
{
    ozblas_operation_t tr = dec_op(s);
    int64_t m, n;
    unsigned b = u8(s);
    int valid_op = tr == OZBLAS_OP_N || tr == OZBLAS_OP_T;
    if (b >= 240) {   /* long inner dimension, few outputs */
        int64_t inner = 100 + (int64_t)(u16(s) % 5000), outer = 1 + (int64_t)(u8(s) % 4);
        if (tr == OZBLAS_OP_T) { m = inner; n = outer; } else { m = outer; n = inner; }
    } else {
        m = dec_size(s, 40);
        n = dec_size(s, 40);
    }
    int bad = 0;
    int64_t lda = dec_ld(s, m, &bad);
    int64_t incx = dec_inc(s), incy = dec_inc(s);
    double alpha = dec_scalar(s, g, 0), beta = dec_scalar(s, g, 1);
    const int tn = tr != OZBLAS_OP_T;
    int64_t lenx = tn ? n : m, leny = tn ? m : n;
    int invalid = !valid_op || m < 0 || n < 0 || bad || incx == 0 || incy == 0;
    size_t na = invalid ? 1 : mat_len(m, n, lda);
    size_t nx = invalid ? 1 : vec_len(lenx, incx), ny = invalid ? 1 : vec_len(leny, incy);
    double *A = alloc_fill(s, g, na), *x = alloc_fill(s, g, nx), *y = alloc_fill(s, g, ny);
    double *A0 = dup(A, na), *x0 = dup(x, nx), *y0 = dup(y, ny);
    const double *pA = (nullmask & 1) ? NULL : A, *px = (nullmask & 2) ? NULL : x;
    double *py = (nullmask & 4) ? NULL : y;
    snprintf(g_ctx, sizeof g_ctx, "dgemv %s split=%d fast=%d sum=%d engine=%d/%d scaling=%d trans=%d m=%" PRId64 " n=%" PRId64
             " lda=%" PRId64 " incx=%" PRId64 " incy=%" PRId64 " alpha=%a beta=%a null=%u",
             mode_name(c->mode), c->split, c->fast, c->sum, c->engine, c->engine2, c->scaling, (int)tr, m, n, lda, incx, incy,
             alpha, beta, nullmask & 7);
    show_ctx();

    int expect = EXP_OK;
    const int empty = m == 0 || n == 0;
    if (invalid) expect = EXP_INVALID;
    else if (!py) expect = empty ? EXP_EITHER : EXP_INVALID;
    else if (alpha != 0 && (!pA || !px)) expect = empty ? EXP_EITHER : EXP_INVALID;
    else if (!pA || !px) expect = EXP_EITHER;   /* alpha == 0: A and x are not read */

    /* expected y */
    double *yref = dup(y, ny);
    long double *ab = calloc((size_t)(leny > 0 ? leny : 1), sizeof(long double));
    if (!invalid && !empty) {
        ozref_dgemv(!tn, m, n, alpha, A, lda, x, incx, beta, yref, incy);
        const double *xs = incx < 0 ? x + (lenx - 1) * -incx : x;
        const double *ys = incy < 0 ? y + (leny - 1) * -incy : y;
        for (int64_t i = 0; i < leny; i++)
            ab[i] = tn ? absb_elem(lenx, A + i, lda, xs, incx, alpha, beta, ys[i * incy])
                       : absb_elem(lenx, A + i * lda, 1, xs, incx, alpha, beta, ys[i * incy]);
    }
    double *yout[2] = {NULL, NULL}, *yfirst = NULL;
    ozblas_status_t st0 = OZBLAS_STATUS_SUCCESS;
    ozblas_handle_t h = make_handle(c, 0);
    for (int run = 0; run < 2; run++) {
        if (run) { set_run(h, c, 1); memcpy(y, y0, sizeof(double) * ny); }
        ozblas_status_t st = ozblas_dgemv(h, tr, m, n, alpha, pA, lda, px, incx, beta, py, incy);
        if (run == 0) { st0 = st; yfirst = dup(y, ny); }
        check_status(st, "dgemv");
        check_same(A, A0, na, 0, "dgemv: A modified");
        check_same(x, x0, nx, 0, "dgemv: x modified");
        if (expect == EXP_INVALID || (expect == EXP_EITHER && st == OZBLAS_STATUS_INVALID_VALUE)) {
            if (st != OZBLAS_STATUS_INVALID_VALUE) fail("dgemv: invalid arguments gave status %d", (int)st);
            check_same(y, y0, ny, 0, "dgemv: y written on invalid arguments");
            continue;
        }
        if (st != OZBLAS_STATUS_SUCCESS) fail("dgemv: status %d (%s)", (int)st, ozblas_status_string(st));
        if (empty) { check_same(y, y0, ny, 0, "dgemv: y written by an empty problem"); continue; }
        const int64_t ainc = incy < 0 ? -incy : incy;
        const double *ys = incy < 0 ? y + (leny - 1) * ainc : y, *yr = incy < 0 ? yref + (leny - 1) * ainc : yref;
        const char *what = run ? "dgemv y (2nd call)" : "dgemv y";
        grp_t gr = {0, 0, 0};
        for (int64_t i = 0; i < leny; i++) {
            check_elem(c->mode, ys[i * incy], yr[i * incy], ab[i], lenx, what, i);
            if (c->mode == OZBLAS_MODE_DOUBLE) {   /* each element of y is one row of C */
                gr.err = gr.b = gr.ulps = 0;
                grp_add(&gr, ys[i * incy], yr[i * incy], ab[i]);
                grp_check(&gr, lenx, what, i);
            }
        }
        /* gaps between the strided elements of y untouched */
        for (size_t p = 0; p < ny; p++)
            if (ainc > 1 && p % (size_t)ainc != 0 && bits_of(y[p]) != bits_of(y0[p]))
                fail("dgemv: gap element %zu of y (incy %" PRId64 ") written", p, incy);
        yout[run] = dup(y, ny);
    }
    if (yout[0] && yout[1]) check_same(yout[1], yout[0], ny, 0, "dgemv: not reproducible across threads/workspace/engine");
    {
        ozblas_handle_t g = make_twin(c);
        memcpy(y, y0, sizeof(double) * ny);
        ozblas_status_t st = ozblas_dgemv(g, tr, m, n, alpha, pA, lda, px, incx, beta, py, incy);
        if (st != st0) fail("dgemv: CUDA (emulated) status %d, CPU %d", (int)st, (int)st0);
        check_same(y, yfirst, ny, 0, "dgemv: CUDA (emulated) differs from CPU");
        ozblas_destroy(g);
    }
    free(yfirst);
    if (!invalid && !empty && ozblas_dgemv(NULL, tr, m, n, alpha, pA, lda, px, incx, beta, py, incy) != OZBLAS_STATUS_INVALID_VALUE)
        fail("dgemv: NULL handle accepted");
    ozblas_destroy(h);
    free(A); free(x); free(y); free(A0); free(x0); free(y0); free(yref); free(ab); free(yout[0]); free(yout[1]);
}

static void run_dgemm(src_t *s, const cfg_t *c, valgen_t *g, unsigned nullmask)
{
    ozblas_operation_t ta = dec_op(s), tb = dec_op(s);
    int64_t m, n, k;
    unsigned b = u8(s);
    if (b >= 236) {   /* long k: several k-blocks for the narrow slice formats */
        m = 1 + (int64_t)(u8(s) % 8);
        n = 1 + (int64_t)(u8(s) % 10);
        k = 100 + (int64_t)(u16(s) % 3000);
    } else if (b >= 224) {  /* m*n*k >= 65536: the threaded paths */
        m = 24 + (int64_t)(u8(s) % 20);
        n = 24 + (int64_t)(u8(s) % 20);
        k = 90 + (int64_t)(u8(s) % 60);
    } else {
        m = dec_size(s, 40);
        n = dec_size(s, 40);
        k = dec_size(s, 40);
    }
    const int vop = (ta == OZBLAS_OP_N || ta == OZBLAS_OP_T) && (tb == OZBLAS_OP_N || tb == OZBLAS_OP_T);
    const int tA = ta == OZBLAS_OP_T, tB = tb == OZBLAS_OP_T;
    int64_t ra = tA ? k : m, ca = tA ? m : k, rb = tB ? n : k, cb = tB ? k : n;
    int bad = 0;
    int64_t lda = dec_ld(s, ra, &bad), ldb = dec_ld(s, rb, &bad), ldc = dec_ld(s, m, &bad);
    double alpha = dec_scalar(s, g, 0), beta = dec_scalar(s, g, 1);
    int invalid = !vop || m < 0 || n < 0 || k < 0 || bad;
    size_t na = invalid ? 1 : mat_len(ra, ca, lda), nb = invalid ? 1 : mat_len(rb, cb, ldb), nc = invalid ? 1 : mat_len(m, n, ldc);
    double *A = alloc_fill(s, g, na), *B = alloc_fill(s, g, nb), *C = alloc_fill(s, g, nc);
    double *A0 = dup(A, na), *B0 = dup(B, nb), *C0 = dup(C, nc);
    const double *pA = (nullmask & 1) ? NULL : A, *pB = (nullmask & 2) ? NULL : B;
    double *pC = (nullmask & 4) ? NULL : C;
    snprintf(g_ctx, sizeof g_ctx, "dgemm %s split=%d fast=%d sum=%d engine=%d/%d scaling=%d ta=%d tb=%d m=%" PRId64 " n=%" PRId64
             " k=%" PRId64 " lda=%" PRId64 " ldb=%" PRId64 " ldc=%" PRId64 " alpha=%a beta=%a null=%u",
             mode_name(c->mode), c->split, c->fast, c->sum, c->engine, c->engine2, c->scaling, (int)ta, (int)tb, m, n, k,
             lda, ldb, ldc, alpha, beta, nullmask & 7);
    show_ctx();

    const int empty = m == 0 || n == 0;
    const int reads_ab = alpha != 0 && k > 0;
    int expect = EXP_OK;
    if (invalid) expect = EXP_INVALID;
    else if (!pC) expect = empty ? EXP_EITHER : EXP_INVALID;
    else if (reads_ab && (!pA || !pB)) expect = empty ? EXP_EITHER : EXP_INVALID;
    else if (!pA || !pB) expect = EXP_EITHER;

    double *Cref = dup(C, nc);
    long double *ab = NULL;
    if (!invalid && !empty) {
        ozref_dgemm(tA, tB, m, n, k, alpha, A, lda, B, ldb, beta, Cref, ldc);
        ab = malloc(sizeof(long double) * (size_t)(m * n));
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++) {
                const double *a = tA ? A + i * lda : A + i, *bb = tB ? B + j : B + j * ldb;
                ab[i + j * m] = absb_elem(k, a, tA ? 1 : lda, bb, tB ? ldb : 1, alpha, beta, C[i + j * ldc]);
            }
    }
    double *Cout[2] = {NULL, NULL}, *Cfirst = NULL;
    ozblas_status_t st0 = OZBLAS_STATUS_SUCCESS;
    ozblas_handle_t h = make_handle(c, 0);
    for (int run = 0; run < 2; run++) {
        if (run) { set_run(h, c, 1); memcpy(C, C0, sizeof(double) * nc); }
        ozblas_status_t st = ozblas_dgemm(h, ta, tb, m, n, k, alpha, pA, lda, pB, ldb, beta, pC, ldc);
        if (run == 0) { st0 = st; Cfirst = dup(C, nc); }
        check_status(st, "dgemm");
        check_same(A, A0, na, 0, "dgemm: A modified");
        check_same(B, B0, nb, 0, "dgemm: B modified");
        if (expect == EXP_INVALID || (expect == EXP_EITHER && st == OZBLAS_STATUS_INVALID_VALUE)) {
            if (st != OZBLAS_STATUS_INVALID_VALUE) fail("dgemm: invalid arguments gave status %d", (int)st);
            check_same(C, C0, nc, 0, "dgemm: C written on invalid arguments");
            continue;
        }
        if (st != OZBLAS_STATUS_SUCCESS) fail("dgemm: status %d (%s)", (int)st, ozblas_status_string(st));
        if (empty) { check_same(C, C0, nc, 0, "dgemm: C written by an empty problem"); continue; }
        const char *what = run ? "dgemm C (2nd call)" : "dgemm C";
        for (int64_t i = 0; i < m; i++) {
            grp_t gr = {0, 0, 0};
            for (int64_t j = 0; j < n; j++) {
                check_elem(c->mode, C[i + j * ldc], Cref[i + j * ldc], ab[i + j * m], k, what, i + j * m);
                grp_add(&gr, C[i + j * ldc], Cref[i + j * ldc], ab[i + j * m]);
                if (!isfinite(ab[i + j * m]))
                    gr.b += absb_finite_part(k, tA ? A + i * lda : A + i, tA ? 1 : lda, tB ? B + j : B + j * ldb, tB ? ldb : 1, alpha);
            }
            if (c->mode == OZBLAS_MODE_DOUBLE) grp_check(&gr, k, "dgemm row", i);
        }
        /* padding rows m..ldc-1 of each column untouched */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = m; i < ldc && i + j * ldc < (int64_t)nc; i++)
                if (bits_of(C[i + j * ldc]) != bits_of(C0[i + j * ldc]))
                    fail("dgemm: padding C(%" PRId64 ",%" PRId64 ") (ldc %" PRId64 ") written", i, j, ldc);
        Cout[run] = dup(C, nc);
    }
    if (Cout[0] && Cout[1]) check_same(Cout[1], Cout[0], nc, 0, "dgemm: not reproducible across threads/workspace/engine");
    {
        ozblas_handle_t g = make_twin(c);
        memcpy(C, C0, sizeof(double) * nc);
        ozblas_status_t st = ozblas_dgemm(g, ta, tb, m, n, k, alpha, pA, lda, pB, ldb, beta, pC, ldc);
        if (st != st0) fail("dgemm: CUDA (emulated) status %d, CPU %d", (int)st, (int)st0);
        check_same(C, Cfirst, nc, 0, "dgemm: CUDA (emulated) differs from CPU");
        ozblas_destroy(g);
    }
    free(Cfirst);
    if (!invalid && !empty && ozblas_dgemm(NULL, ta, tb, m, n, k, alpha, pA, lda, pB, ldb, beta, pC, ldc) != OZBLAS_STATUS_INVALID_VALUE)
        fail("dgemm: NULL handle accepted");
    ozblas_destroy(h);
    free(A); free(B); free(C); free(A0); free(B0); free(C0); free(Cref); free(ab); free(Cout[0]); free(Cout[1]);
}

/* ------------------------------------------------------------------ entry point */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int supported[4] = {-1, -1, -1, -1};
    if (supported[0] < 0)
        for (int e = 0; e < 4; e++) supported[e] = engine_supported(e);

    src_t s = {data, size, 0, 0x6f7a626c6173ULL};
    for (size_t i = 0; i < size; i++) { s.rng ^= data[i]; s.rng *= 0x100000001b3ULL; }
    g_ctx[0] = 0;

    const unsigned routine = u8(&s) % 3;
    cfg_t c;
    c.mode = (int)(u8(&s) % 3);
    unsigned sb = u8(&s);
    c.split = sb >= 240 ? 1 + (int)(sb % 40) : 1 + (int)(sb % 6);
    unsigned fl = u8(&s);
    c.fast = fl & 1;
    c.sum = (fl >> 1) & 1;
    c.scaling = (fl >> 2) & 1;
    c.engine = (int)((fl >> 3) & 3);
    if (!supported[c.engine]) c.engine = OZBLAS_ENGINE_FP64;
    c.engine2 = c.engine;
    if (c.mode == OZBLAS_MODE_CORRECTLY_ROUNDED) {   /* the unique result: any slice format */
        int e2 = (int)((fl >> 5) & 3);
        if (supported[e2]) c.engine2 = e2;
    }
    static const size_t wstab[4] = {0, (size_t)1 << 12, (size_t)1 << 16, (size_t)1 << 20};
    unsigned tw = u8(&s);
    c.threads[0] = 1 + (int)(tw & 1);
    c.threads[1] = 3 - c.threads[0];
    c.ws[0] = wstab[(tw >> 1) & 3];
    c.ws[1] = wstab[(((tw >> 1) & 3) + 1 + (tw >> 3) % 3) & 3];
    if (tw >= 250) check_setters(&s);

    valgen_t g;
    int8_t eb = (int8_t)u8(&s);
    unsigned es = u8(&s);
    g.ebase = (int)eb * 8;
    g.espread = es < 128 ? (int)(es % 16) : es < 224 ? (int)(es % 128) : (int)(es % 8) * 300;
    unsigned sp = u8(&s);
    g.special = sp < 128 ? 0 : sp < 224 ? (sp & 7) : (sp & 63);
    g.last = 1.0;
    unsigned nb = u8(&s);
    unsigned nullmask = nb >= 240 ? 1 + (nb & 7) % 7 : 0;

    switch (routine) {
    case 0: run_ddot(&s, &c, &g, nullmask); break;
    case 1: run_dgemv(&s, &c, &g, nullmask); break;
    default: run_dgemm(&s, &c, &g, nullmask); break;
    }
    return 0;
}
