/* White-box checks of the error-free sums' vector helpers against their scalar definitions
 * (src/eft/eft_deep_kern.c): the lowest set bit of every operand, which decides where a
 * deep sum's terms are its exact sum (eft_deep_kern.h, "Exact results").  The vector version
 * must equal ozb_deep_lsb on every double: normal, subnormal, zero, powers of two (the
 * implicit bit is the lowest), Inf and NaN, at every position of a vector and in the tail.
 * And the DOT's lane loop with 512-bit vectors (eft_dot512.c) against the 256-bit one: the
 * same totals, sigmas and verdicts, bit for bit, and the GEMM's block likewise (eft_gemm512.c)
 * (skipped where the CPU lacks AVX-512). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"
#include "exact/two_term.h"
#include "exact/rot_pairs.h"
#include "eft/eft_dot.h"
#include "exact/residual.h"
#include "eft/eft_kern.h"
#include "eft/eft_cert4.h"
#include "sum/sum.h"
#include <mpfr.h>

/* src/eft/eft_deep_kern.h (declared there only where the AVX2 kernels are compiled, which
 * the library's x86-64-v3 baseline always is) */
int32_t ozb_deep_lsb(double v);
void ozb_deep_lsb_n(const double *v, int64_t n, int32_t *out);
#define OZB_LSB_NONE (1 << 20)

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

static double from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, 8);
    return v;
}

/* ozb_nearsum against MPFR's exact sum rounded to nearest: sums that cancel to far below their
 * terms (LAPACK's residuals), narrow and wide spans, subnormal terms and results, exact ties
 * (to even), n from 1 to 5000, and exact zeros: every value bit for bit. */
static double mpfr_rn_sum(const double *p, int64_t n)
{
    mpfr_t s, t;
    mpfr_init2(s, 2300);
    mpfr_init2(t, 53);
    mpfr_set_zero(s, 1);
    for (int64_t i = 0; i < n; i++) {
        mpfr_set_d(t, p[i], MPFR_RNDN);
        if (mpfr_add(s, s, t, MPFR_RNDN) != 0) ck_abort_msg("MPFR sum inexact");
    }
    const double r = mpfr_get_d(s, MPFR_RNDN);
    mpfr_clear(s);
    mpfr_clear(t);
    return r;
}

static void nearsum_case(const double *p, int64_t n, const char *what)
{
    double *q = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    memcpy(q, p, sizeof(double) * (size_t)n);
    const double got = ozb_nearsum(q, n), want = mpfr_rn_sum(p, n);
    if (want == 0.0) ck_assert_msg(got == 0.0, "%s n=%lld: got %a, want 0", what, (long long)n, got);
    else ck_assert_msg(memcmp(&got, &want, 8) == 0, "%s n=%lld: got %a, want %a", what, (long long)n, got, want);
    free(q);
}

START_TEST(nearsum_against_mpfr)
{
    uint64_t st = 0x9e3779b97f4a7c15ull;
    double *p = malloc(sizeof(double) * 5002);
    const int64_t ns[] = { 1, 2, 3, 5, 22, 64, 129, 1000, 4095, 4096, 5000 };
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (int kind = 0; kind < 6; kind++)
            for (int rep = 0; rep < (ns[a] > 200 ? 2 : 20); rep++) {
                const int64_t n = ns[a];
                /* kind 0: products' TwoProduct halves and a term cancelling their double sum;
                 * 1: the same near 2^-1000 (subnormal low halves and results); 2: spans of
                 * 2^200; 3: mixed signs, no cancellation term; 4: near
                 * 2^990; 5: integers with exact ties */
                double sum = 0.0;
                for (int64_t i = 0; i < n; i++) {
                    const double u = (double)(next(&st) >> 11) * 0x1p-53 - 0.5;
                    const int e = kind == 2 ? (int)(next(&st) % 200) - 100 : (int)(next(&st) % 40) - 20;
                    double v = ldexp(u, e);
                    if (kind == 1) v = ldexp(v, -1000);
                    if (kind == 4) v = ldexp(v, 980);
                    if (kind == 5) v = (double)((int64_t)(next(&st) % 2001) - 1000) * 0x1p60;
                    if ((kind == 0 || kind == 1) && i % 2 == 1) v = fma(p[i - 1], 0x1p-27 + u, -p[i - 1] * (0x1p-27 + u));
                    p[i] = v;
                    sum += v;
                }
                if (kind == 5 && n >= 2) p[n - 1] = 1.0;     /* 2^60 multiples and 1: a tie where n = 2 */
                if ((kind == 0 || kind == 1) && n >= 3) p[n - 1] = -sum;
                nearsum_case(p, n, kind == 0 ? "cancelling" : kind == 1 ? "near 2^-1000" : kind == 2 ? "wide span"
                                   : kind == 3 ? "mixed" : kind == 4 ? "near 2^990" : "ties");
            }
    /* ties to even by hand: 1 + 2^-53 -> 1, (1 + 2^-52) + 2^-53 -> 1 + 2^-51, their negations,
     * a midpoint reached through cancellation, and an exact zero */
    const double t1[] = { 1.0, 0x1p-53 }, t2[] = { 1.0 + 0x1p-52, 0x1p-53 }, t3[] = { -1.0, -0x1p-53 },
                 t4[] = { 0x1p60, 1.0 + 0x1p-52, -0x1p60, 0x1p-53 }, t5[] = { 0x1p-1070, -0x1p-1070, 3.0, -3.0 },
                 t6[] = { 0x1p-1074, 0x1p-1073, -0x1p-1022 };
    nearsum_case(t1, 2, "tie down"); nearsum_case(t2, 2, "tie up"); nearsum_case(t3, 2, "negative tie");
    nearsum_case(t4, 4, "tie through cancellation"); nearsum_case(t5, 4, "exact zero"); nearsum_case(t6, 3, "subnormal");
    free(p);
}
END_TEST

START_TEST(deep_lsb_definition)
{
    /* value, lowest set bit: v = odd 2^lsb */
    const struct { double v; int32_t lsb; } known[] = {
        { 1.0, 0 }, { -1.0, 0 }, { 3.0, 0 }, { 6.0, 1 }, { 0.75, -2 }, { 0x1p1023, 1023 },
        { 0x1.fffffffffffffp1023, 971 }, { 0x1p-1022, -1022 }, { 0x1p-1074, -1074 },
        { 0x1.8p-1070, -1071 }, { -0x0.0000000000003p-1022, -1074 }, { 0x1p52, 52 }, { 0x1p53 + 2.0, 1 },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        ck_assert_int_eq(ozb_deep_lsb(known[i].v), known[i].lsb);
        int32_t out[5];
        const double v[5] = { known[i].v, known[i].v, known[i].v, known[i].v, known[i].v };
        ozb_deep_lsb_n(v, 5, out);
        for (int j = 0; j < 5; j++) ck_assert_int_eq(out[j], known[i].lsb);
    }
    ck_assert_int_eq(ozb_deep_lsb(0.0), OZB_LSB_NONE);
    ck_assert_int_eq(ozb_deep_lsb(-0.0), OZB_LSB_NONE);
    ck_assert_int_lt(ozb_deep_lsb(INFINITY), -1074 - 2 * OZB_LSB_NONE);
    ck_assert_int_lt(ozb_deep_lsb(NAN), -1074 - 2 * OZB_LSB_NONE);
}
END_TEST

START_TEST(deep_lsb_vector_matches_scalar)
{
    enum { N = 1 << 18 };
    double *v = malloc(sizeof(double) * N);
    int32_t *got = malloc(sizeof(int32_t) * N);
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(got);
    uint64_t s = tu_seed | 1;
    for (int i = 0; i < N; i++) {
        uint64_t b = next(&s);
        switch (next(&s) % 8) {
        case 0: b &= 0x800fffffffffffffull; break;                              /* subnormal or zero */
        case 1: b &= 0x8000000000000000ull; break;                              /* +-0 */
        case 2: b |= 0x7ff0000000000000ull; break;                              /* Inf or NaN */
        case 3: b &= 0xfff0000000000000ull; break;                              /* a power of two */
        case 4: b &= 0x800fffffffffffffull; b &= ~((1ull << (next(&s) % 52)) - 1); break;   /* subnormal, low bits clear */
        case 5: b &= ~((1ull << (next(&s) % 53)) - 1); break;                  /* low bits clear */
        default: break;                                                          /* any bits */
        }
        v[i] = from_bits(b);
    }
    for (int64_t n = 0; n <= 9; n++) {            /* short lengths: tails */
        ozb_deep_lsb_n(v, n, got);
        for (int64_t i = 0; i < n; i++) ck_assert_int_eq(got[i], ozb_deep_lsb(v[i]));
    }
    ozb_deep_lsb_n(v + 1, N - 3, got);            /* unaligned start, a tail */
    for (int i = 0; i < N - 3; i++)
        if (got[i] != ozb_deep_lsb(v[i + 1]))
            ck_abort_msg("lsb of %a: vector %d, scalar %d", v[i + 1], got[i], ozb_deep_lsb(v[i + 1]));
    free(v);
    free(got);
}
END_TEST

#if defined(__x86_64__)
/* 1 where the CPU has AVX-512F/DQ; else the test's skip noted (its 512-bit loop never runs here) */
static int have_avx512(const char *name)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return 1;
    tu_skip_note(name, "this CPU has no AVX-512F/DQ: the 512-bit loop never runs here");
    return 0;
}
#endif

#if defined(EFT_AVX2)

/* one DOT's lanes by both loops, in pieces of `chunk` steps (the state carried between calls,
 * as dot_strided does): every field equal, bit for bit, and the same verdict */
static void both_loops(const double *x, const double *y, int64_t n8, int64_t chunk, const char *ctx)
{
    tot4 t[2][2];
    __m256d g[2][2];
    int have[2] = {0, 0}, ok[2] = {1, 1};
    memset(t, 0, sizeof t);
    memset(g, 0, sizeof g);
    for (int64_t j = 0; j < n8; j += chunk) {
        const int64_t c = n8 - j < chunk ? n8 - j : chunk;
        if (ok[0]) ok[0] = ozb_eft_dot_run256(x + 8 * j, y + 8 * j, c, t[0], g[0], &have[0]);
        if (ok[1]) ok[1] = ozb_eft_dot_run512(x + 8 * j, y + 8 * j, c, t[1], g[1], &have[1]);
        ck_assert_msg(ok[0] == ok[1], "%s: verdicts %d (256) and %d (512) at step %lld", ctx, ok[0], ok[1], (long long)j);
        if (!ok[0]) return;                      /* the DOT is left to the caller: nothing else is read */
        ck_assert_msg(have[0] == have[1], "%s: have_g", ctx);
        ck_assert_msg(memcmp(t[0], t[1], sizeof t[0]) == 0, "%s: totals differ at step %lld", ctx, (long long)j);
        ck_assert_msg(memcmp(g[0], g[1], sizeof g[0]) == 0, "%s: sigmas differ at step %lld", ctx, (long long)j);
    }
}
#endif

START_TEST(dot_lanes_512_match_256)
{
#if defined(EFT_AVX2) && defined(__x86_64__)
    if (!have_avx512("dot_lanes_512_match_256")) return;
    enum { N8 = 3000 };                           /* 24000 products: 24 blocks of 128 steps */
    double *x = malloc(sizeof(double) * 8 * N8), *y = malloc(sizeof(double) * 8 * N8);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    ozref_rng r;
    tu_rng(&r, "dot_lanes_512_match_256");
    for (int kind = 0; kind < 7; kind++) {
        for (int64_t l = 0; l < 8 * N8; l++) {
            const double phi = kind == 1 ? 8.0 : 1.0;
            x[l] = (ozref_uniform(&r) - 0.5) * exp(phi * ozref_normal(&r));
            y[l] = (ozref_uniform(&r) - 0.5) * exp(phi * ozref_normal(&r));
            if (kind == 2) x[l] = ldexp(x[l], (int)(l / 1000) * 9);     /* growing: blocks summed again */
            if (kind == 3) x[l] = ldexp(x[l], -(int)(l / 1000) * 9);    /* shrinking */
            if (kind == 4 && l % 3 == 0) y[l] = 0.0;                     /* zeros */
        }
        if (kind == 5) x[5 * 8 * 128 + 3] = INFINITY;                   /* out of range mid-way */
        if (kind == 6) y[7 * 8 * 128 + 6] = 0x1p600, x[7 * 8 * 128 + 6] = 0x1p500;   /* beyond 2^990 */
        char ctx[64];
        for (int c = 0; c < 3; c++) {
            const int64_t chunk = c == 0 ? N8 : c == 1 ? 64 : 1;      /* CHUNK-sized gathers, tails */
            snprintf(ctx, sizeof ctx, "kind %d chunk %lld", kind, (long long)chunk);
            both_loops(x, y, N8, chunk, ctx);
        }
    }
    free(x);
    free(y);
#else
    tu_skip_note("dot_lanes_512_match_256", "not an x86-64 build with the AVX2 kernels");
#endif
}
END_TEST

/* The GEMM's block of a strip times two columns with 512-bit vectors (eft_gemm512.c) against
 * the 256-bit running split it replaces (eft_gemm.c's block_two: CHAIN4 on the strip's two
 * halves and both columns): S and R bit for bit, for blocks of every length up to BL and
 * sigmas across the range (skipped where the CPU lacks AVX-512). */
#if defined(EFT_AVX2) && defined(__x86_64__)
/* One case of the block tests: op(A)'s strip ab (8 nb) with entries up to 2^a, a = (e - 9) / 2,
 * and two columns x0 (to 2^(e - 9 - a)), x1 (to 2^(e - 12 - a)), so that the products stay
 * under 2^-9 of the sigma 2^e (x0) and 2^(e - 1) (x1) */
static void block_case(ozref_rng *r, int e, int64_t nb, double *ab, double *x0, double *x1)
{
    const int a = (e - 9) / 2;
    for (int64_t i = 0; i < 8 * nb; i++) ab[i] = ldexp((2.0 * ozref_uniform(r) - 1.0) * 0.999, a);
    for (int64_t l = 0; l < nb; l++) {
        x0[l] = ldexp((2.0 * ozref_uniform(r) - 1.0) * 0.999, e - 9 - a);
        x1[l] = ldexp((2.0 * ozref_uniform(r) - 1.0) * 0.999, e - 12 - a);
    }
}

/* eft_gemm.c's block_two by the 256-bit running split: tau (T) and R of the four halves */
static void chain_two(const double *ab, const double *x0, const double *x1, int64_t nb, const __m256d gs[4], __m256d T[4],
                      __m256d R[4])
{
    for (int v = 0; v < 4; v++) { T[v] = gs[v]; R[v] = _mm256_setzero_pd(); }
    for (int64_t l = 0; l < nb; l++) {
        const __m256d a0 = _mm256_loadu_pd(ab + 8 * l), a1 = _mm256_loadu_pd(ab + 8 * l + 4);
        const __m256d xv = _mm256_set1_pd(x0[l]), xw = _mm256_set1_pd(x1[l]);
        CHAIN4(T[0], R[0], a0, xv);
        CHAIN4(T[1], R[1], a1, xv);
        CHAIN4(T[2], R[2], a0, xw);
        CHAIN4(T[3], R[3], a1, xw);
    }
}
#endif

START_TEST(gemm_block_512_match_256)   /* (and the four-column loop's totals) */
{
#if defined(EFT_AVX2) && defined(__x86_64__)
    if (!have_avx512("gemm_block_512_match_256")) return;
    ozref_rng r;
    tu_rng(&r, "gemm_block_512_match_256");
    double ab[8 * BL], x0[BL], x1[BL];
    const int es[] = {-960, -300, 0, 700, 1000};
    const int64_t nbs[] = {1, 3, 32, 127, 128};
    for (size_t ie = 0; ie < sizeof es / sizeof *es; ie++)
        for (size_t in = 0; in < sizeof nbs / sizeof *nbs; in++) {
            const int64_t nb = nbs[in];
            const int e = es[ie];
            block_case(&r, e, nb, ab, x0, x1);
            /* sigmas per half and column: 2^e, 2^e, 2^(e-1), 2^e */
            const __m256d gs[4] = { _mm256_set1_pd(ldexp(1.0, e)), _mm256_set1_pd(ldexp(1.0, e)),
                                    _mm256_set1_pd(ldexp(1.0, e - 1)), _mm256_set1_pd(ldexp(1.0, e)) };
            __m256d T[4], R[4], S5[4], R5[4];
            chain_two(ab, x0, x1, nb, gs, T, R);
            ozb_eft_block_two512(ab, x0, x1, nb, gs, S5, R5);
            for (int v = 0; v < 4; v++) {
                double s256[4], s512[4], r256[4], r512[4];
                _mm256_storeu_pd(s256, _mm256_sub_pd(T[v], gs[v]));
                _mm256_storeu_pd(s512, S5[v]);
                _mm256_storeu_pd(r256, R[v]);
                _mm256_storeu_pd(r512, R5[v]);
                ck_assert_msg(memcmp(s256, s512, sizeof s256) == 0 && memcmp(r256, r512, sizeof r256) == 0,
                              "e %d nb %lld half %d: S or R differ", e, (long long)nb, v);
            }
            /* strip_quad's loop on the columns x0, x1, x1, x0 (sigmas alike): after one block
             * the totals of tot_first, after a second (op(A) and sigma 2^-30 times as large: a
             * TwoSum of the totals that is not exact) those of tot_add */
            const double *xs[4] = { x0, x1, x1, x0 };
            const __m256d g8[8] = { gs[0], gs[1], gs[2], gs[3], gs[2], gs[3], gs[0], gs[1] };
            const __m256d sc = _mm256_set1_pd(0x1p-30);
            const __m256d h4[4] = { _mm256_mul_pd(gs[0], sc), _mm256_mul_pd(gs[1], sc), _mm256_mul_pd(gs[2], sc),
                                    _mm256_mul_pd(gs[3], sc) };
            const __m256d h8[8] = { h4[0], h4[1], h4[2], h4[3], h4[2], h4[3], h4[0], h4[1] };
            double tot[4 * 32], ab2[8 * BL];
            for (int64_t i = 0; i < 8 * nb; i++) ab2[i] = ldexp(0.75 * ab[i], -30);
            __m256d T2[4], R2[4];
            chain_two(ab2, x0, x1, nb, h4, T2, R2);
            for (int round = 0; round < 2; round++) {
                ozb_eft_block_four512(round ? ab2 : ab, xs, nb, round ? h8 : g8, tot, round == 0);
                for (int c = 0; c < 4; c++)
                    for (int hf = 0; hf < 2; hf++) {
                        const int v = (c == 1 || c == 2 ? 2 : 0) + hf;   /* block_two's half */
                        tot4 t;
                        tot_first(&t, _mm256_sub_pd(T[v], gs[v]), R[v], gs[v]);
                        if (round) tot_add(&t, _mm256_sub_pd(T2[v], h4[v]), R2[v], h4[v]);
                        double want[16];
                        _mm256_storeu_pd(want, t.s); _mm256_storeu_pd(want + 4, t.c);
                        _mm256_storeu_pd(want + 8, t.a); _mm256_storeu_pd(want + 12, t.g);
                        for (int f = 0; f < 4; f++)
                            ck_assert_msg(memcmp(want + 4 * f, tot + 32 * c + 8 * f + 4 * hf, 4 * sizeof(double)) == 0,
                                          "e %d nb %lld column %d half %d round %d: total %d differs", e, (long long)nb, c,
                                          hf, round, f);
                    }
            }
        }
#else
    tu_skip_note("gemm_block_512_match_256", "not an x86-64 build with the AVX2 kernels");
#endif
}
END_TEST

/* The six-column loop (eft_gemm6.c, the 256-bit kernel set's) against block_two's running
 * split: after one block the totals of tot_first, after a second (op(A) and sigma 2^-30 times
 * as large: a TwoSum of the totals that is not exact) those of tot_add, every lane bit for bit,
 * for blocks of every length up to BL and sigmas across the range */
START_TEST(gemm_block_six_match_two)
{
#if defined(EFT_AVX2) && defined(__x86_64__)
    ozref_rng r;
    tu_rng(&r, "gemm_block_six_match_two");
    double ab[8 * BL], ab2[8 * BL], x0[BL], x1[BL];
    const int es[] = {-960, -300, 0, 700, 1000};
    const int64_t nbs[] = {1, 3, 32, 127, 128};
    for (size_t ie = 0; ie < sizeof es / sizeof *es; ie++)
        for (size_t in = 0; in < sizeof nbs / sizeof *nbs; in++) {
            const int64_t nb = nbs[in];
            const int e = es[ie];
            block_case(&r, e, nb, ab, x0, x1);
            for (int64_t i = 0; i < 8 * nb; i++) ab2[i] = ldexp(0.75 * ab[i], -30);
            const __m256d gs[4] = { _mm256_set1_pd(ldexp(1.0, e)), _mm256_set1_pd(ldexp(1.0, e)),
                                    _mm256_set1_pd(ldexp(1.0, e - 1)), _mm256_set1_pd(ldexp(1.0, e)) };
            const __m256d sc = _mm256_set1_pd(0x1p-30);
            const __m256d h4[4] = { _mm256_mul_pd(gs[0], sc), _mm256_mul_pd(gs[1], sc), _mm256_mul_pd(gs[2], sc),
                                    _mm256_mul_pd(gs[3], sc) };
            __m256d T[4], R[4], T2[4], R2[4];
            chain_two(ab, x0, x1, nb, gs, T, R);
            chain_two(ab2, x0, x1, nb, h4, T2, R2);
            /* columns x0, x1, x1, x0, x0, x1: block_two's halves 0/1 (x0) and 2/3 (x1) */
            const double *xs[6] = { x0, x1, x1, x0, x0, x1 };
            const int col[6] = { 0, 2, 2, 0, 0, 2 };
            __m256d g12[12], h12[12];
            for (int c = 0; c < 6; c++)
                for (int hf = 0; hf < 2; hf++) { g12[2 * c + hf] = gs[col[c] + hf]; h12[2 * c + hf] = h4[col[c] + hf]; }
            tot4 tot[12];
            for (int round = 0; round < 2; round++) {
                ozb_eft_block_six(round ? ab2 : ab, xs, nb, round ? h12 : g12, tot, round == 0);
                for (int c = 0; c < 6; c++)
                    for (int hf = 0; hf < 2; hf++) {
                        const int v = col[c] + hf;
                        tot4 t;
                        tot_first(&t, _mm256_sub_pd(T[v], gs[v]), R[v], gs[v]);
                        if (round) tot_add(&t, _mm256_sub_pd(T2[v], h4[v]), R2[v], h4[v]);
                        const __m256d w[4] = { t.s, t.c, t.a, t.g }, got[4] = { tot[2 * c + hf].s, tot[2 * c + hf].c,
                                                                                  tot[2 * c + hf].a, tot[2 * c + hf].g };
                        for (int f = 0; f < 4; f++) {
                            double a4[4], b4[4];
                            _mm256_storeu_pd(a4, w[f]);
                            _mm256_storeu_pd(b4, got[f]);
                            ck_assert_msg(memcmp(a4, b4, sizeof a4) == 0, "e %d nb %lld column %d half %d round %d: total %d differs",
                                          e, (long long)nb, c, hf, round, f);
                        }
                    }
            }
        }
#else
    tu_skip_note("gemm_block_six_match_two", "not an x86-64 build with the AVX2 kernels");
#endif
}
END_TEST

/* DROT's pair loop (exact/rot_pairs.c ozb_rot_pairs, and its 512-bit loop where the CPU has
 * one): every pair it certifies is RN of its exact two-term sums, against MPFR, bit for bit
 * (nonzero results; an exact zero +0; an infinity only where it is RN), no NaN nor pair with a
 * non-finite input is certified, and a pair it leaves is not written (out of place: the
 * outputs keep a sentinel; in place: x and y keep their values, and the flags are the same);
 * on lengths around the vector widths (the tails), random operands of several magnitudes, and
 * zeros, subnormals, products near 2^-960, huge, Inf and NaN among them, for rotations, zero
 * and huge or tiny entries of H. */
START_TEST(rot_pairs_exact)
{
    ozref_rng r;
    tu_rng(&r, "rot_pairs_exact");
    enum { N = 203 };
    static const double special[] = { 0.0, -0.0, 0x1p-1074, -0x1p-1000, 0x1p-480, 0x1p-500, 0x1p1000, -0x1p1020,
                                      INFINITY, -INFINITY, NAN, 1.0 };
    const double hs[][4] = { { 0.6, 0.8, -0.8, 0.6 }, { 0.0, 1.0, -1.0, 0.0 }, { -1.0, 0.0, 0.0, 3.0 },
                             { 0x1p-600, 3.0, 0x1p70, -0x1p-3 }, { 0x1.8p900, -0x1p-3, 0.25, 0x1p-1060 },
                             { 1.0, -1.0, 1.0, 1.0 }, { 0x1p-930, -0x1.8p-925, 0x1p-940, 0x1p-923 },
                             { 0.0, 0.0, 0.0, 0.0 }, { INFINITY, 0.5, 0.5, 1.0 }, { 0.5, NAN, 1.0, 0.5 },
                             { 1.0, 0.0, 0.0, 0x1p-50 } };
    double x[N], y[N], nx[N], ny[N], xi[N], yi[N];
    uint8_t f[N], fi[N];
    mpfr_t a, b;
    mpfr_inits2(4400, a, b, (mpfr_ptr)0);
    const double sentinel = -0x1.5555p-7;   /* no new element equals it here */
    for (int wide = 0; wide <= ozb_eft_cpu_wide(); wide++)
    for (size_t q = 0; q < sizeof hs / sizeof *hs; q++)
        for (int64_t m = 1; m <= N; m += (m < 40 ? 1 : 61)) {
            for (int64_t i = 0; i < m; i++) {
                x[i] = ldexp(2.0 * ozref_uniform(&r) - 1.0, (int)(ozref_uniform(&r) * 40.0) - 20);
                y[i] = i % 7 == 3 ? x[i] * 0.75 : ldexp(2.0 * ozref_uniform(&r) - 1.0, (int)(ozref_uniform(&r) * 40.0) - 20);
                if (i % 9 == 2) y[i] = x[i];                          /* exact cancellations where h = (1, -1) */
                if (i % 5 == 1) x[i] = special[(size_t)(i + q) % (sizeof special / sizeof *special)];
                if (i % 11 == 4) y[i] = special[(size_t)(3 * i + q) % (sizeof special / sizeof *special)];
            }
            const double *h = hs[q];
            for (int64_t i = 0; i < N; i++) nx[i] = ny[i] = sentinel;
            memcpy(xi, x, sizeof x);
            memcpy(yi, y, sizeof y);
            int64_t nf = ozb_rot_pairs(m, x, y, h, nx, ny, f, wide), count = 0;
            ck_assert_int_eq(ozb_rot_pairs(m, xi, yi, h, xi, yi, fi, wide), nf);
            ck_assert(tu_bits(nx[m]) == tu_bits(sentinel) && tu_bits(ny[m]) == tu_bits(sentinel));
            for (int64_t i = 0; i < m; i++) {
                count += f[i];
                ck_assert_int_eq(f[i], fi[i]);
                if (f[i]) {
                    ck_assert_msg(tu_bits(nx[i]) == tu_bits(sentinel) && tu_bits(ny[i]) == tu_bits(sentinel) &&
                                      tu_bits(xi[i]) == tu_bits(x[i]) && tu_bits(yi[i]) == tu_bits(y[i]),
                                  "wide %d h %zu m %lld element %lld: a pair left was written", wide, q, (long long)m,
                                  (long long)i);
                    continue;
                }
                ck_assert(tu_bits(xi[i]) == tu_bits(nx[i]) && tu_bits(yi[i]) == tu_bits(ny[i]));
                for (int k = 0; k < 2; k++) {
                    const double got = k ? ny[i] : nx[i];
                    ck_assert_msg(isfinite(x[i]) && isfinite(y[i]) && !isnan(got), "h %zu m %lld element %lld: non-finite certified",
                                  q, (long long)m, (long long)i);
                    mpfr_set_d(a, h[2 * k], MPFR_RNDN);
                    mpfr_mul_d(a, a, x[i], MPFR_RNDN);
                    mpfr_set_d(b, h[2 * k + 1], MPFR_RNDN);
                    mpfr_mul_d(b, b, y[i], MPFR_RNDN);
                    mpfr_add(a, a, b, MPFR_RNDN);                          /* exact at 4400 bits */
                    const double want = mpfr_get_d(a, MPFR_RNDN);
                    if (want == 0.0)
                        ck_assert_msg(tu_bits(got) == 0, "h %zu m %lld element %lld: exact zero as %a", q, (long long)m,
                                      (long long)i, got);
                    else
                        ck_assert_msg(tu_bits(got) == tu_bits(want), "h %zu m %lld element %lld (%a, %a): %a against %a", q,
                                      (long long)m, (long long)i, x[i], y[i], got, want);
                }
            }
            ck_assert_int_eq(nf, count);
        }
    /* each new element's bound comes from its own row of H: a rotation by a tiny c meeting an
     * x far larger than y (c x + s y about y) and H's rows of very different sizes are
     * certified like any other (these fixed pairs are far from any rounding boundary; they
     * also show the loops decide pairs at all, whatever the random ones above do) */
    for (int wide = 0; wide <= ozb_eft_cpu_wide(); wide++) {
        const double hc[2][4] = { { 0x1p-60, 1.0, -1.0, 0x1p-60 }, { 1.0, 0.0, 0.0, 0x1p-50 } };
        for (int q = 0; q < 2; q++) {
            for (int64_t i = 0; i < 16; i++) {
                x[i] = ldexp(1.0 + (double)i / 16.0 + 0x1p-20, 60);
                y[i] = 1.0 + (double)i / 32.0 + 0x1p-25;
            }
            ck_assert_msg(ozb_rot_pairs(16, x, y, hc[q], nx, ny, f, wide) == 0, "wide %d H %d: pairs left", wide, q);
        }
    }
    /* products below the subnormal grid: x = y = k 2^-1074 (k = 1..39, the last vector partly
     * filled) against c = s = 0.1 makes p and q round to the grid with low parts that
     * TwoProduct cannot hold (k = 13: 1.3 2^-1074 each, whose lost 0.3 2^-1074 add up past a
     * midpoint: RN is 3 2^-1074, the rounded parts give 2), while the relative part of the bound
     * underflows to zero; each pair certified there must still be RN(exact).  Then (set 1) x
     * and y near 2^-960 and 2^-961, whose results lie far enough above the grid for the
     * bound's absolute 2^-1022 to certify some. */
    for (int set = 0; set < 2; set++)
    for (int wide = 0; wide <= ozb_eft_cpu_wide(); wide++) {
        const double ht[4] = { 0.1, 0.1, -0.1, 0.3 };
        for (int64_t i = 0; i < 39; i++) {
            x[i] = set ? ldexp(1.0 + (double)i / 64.0, -960) : ldexp((double)(i + 1), -1074);
            y[i] = set ? ldexp(1.0 + (double)i / 128.0 + 0x1p-30, -961) : x[i];
        }
        const int64_t left = ozb_rot_pairs(39, x, y, ht, nx, ny, f, wide);
        if (set) ck_assert_msg(left < 39, "wide %d: no pair near 2^-960 certified", wide);
        for (int64_t i = 0; i < 39; i++)
            for (int k = 0; k < 2 && !f[i]; k++) {
                mpfr_set_d(a, ht[2 * k], MPFR_RNDN);
                mpfr_mul_d(a, a, x[i], MPFR_RNDN);
                mpfr_set_d(b, ht[2 * k + 1], MPFR_RNDN);
                mpfr_mul_d(b, b, y[i], MPFR_RNDN);
                mpfr_add(a, a, b, MPFR_RNDN);
                const double want = mpfr_get_d(a, MPFR_RNDN), got = k ? ny[i] : nx[i];
                ck_assert_msg(tu_bits(got) == tu_bits(want == 0.0 ? 0.0 : want), "wide %d: tiny pair %lld: %a against %a",
                              wide, (long long)i, got, want);
            }
    }
    mpfr_clears(a, b, (mpfr_ptr)0);
}
END_TEST

/* DSYR2's two-term loop (exact/two_term.c ozb_two_term with y, unit strides): the 512-bit loop
 * (where the CPU has it) leaves the same elements and writes the same bits as the 256-bit one,
 * and every element the whole method decides is RN(a + x u + y v) against MPFR; lengths around
 * the vector widths, a, x, y of several magnitudes with zeros, subnormals, products near
 * 2^-960, huge, Inf and NaN among them (in a too), safe and not, for factors that split
 * exactly in two (alpha 1/3) or one (alpha -1), and a zero factor on either side. */
START_TEST(two_term_512_match_256)
{
    if (!ozb_eft_cpu_wide()) {
        tu_skip_note("two_term_512_match_256", "the CPU has no 512-bit kernel set");
        return;
    }
    ozref_rng r;
    tu_rng(&r, "two_term_512_match_256");
    enum { N = 41 };
    static const double special[] = { 0.0, -0.0, 0x1p-1074, -0x1p-1000, 0x1p-480, 0x1p1000, INFINITY, NAN, 1.0 };
    double a[N], x[N], y[N], o[2][N];
    uint8_t f[2][N];
    mpfr_t acc, p;
    mpfr_inits2(4400, acc, p, (mpfr_ptr)0);
    for (int rep = 0; rep < 600; rep++) {
        const int64_t m = 1 + rep % N;
        const int kind = rep % 5, safe = kind == 0;
        for (int64_t i = 0; i < m; i++) {
            a[i] = ldexp(2.0 * ozref_uniform(&r) - 1.0, (int)(ozref_uniform(&r) * 20.0) - 10);
            x[i] = ldexp(2.0 * ozref_uniform(&r) - 1.0, (int)(ozref_uniform(&r) * 20.0) - 10);
            y[i] = ldexp(2.0 * ozref_uniform(&r) - 1.0, (int)(ozref_uniform(&r) * 20.0) - 10);
            if (kind >= 3 && i % 3 == 1) x[i] = special[(size_t)(rep + i) % (sizeof special / sizeof *special)];
            if (kind == 4 && i % 4 == 2) y[i] = special[(size_t)(2 * rep + i) % (sizeof special / sizeof *special)];
            if (kind == 2 && i % 2) a[i] = -(x[i] + y[i]);   /* results that cancel */
            if (kind == 1 && i % 5 == 3) a[i] = special[(size_t)(rep + 2 * i) % (sizeof special / sizeof *special)];
        }
        const double alpha = rep % 3 == 0 ? -1.0 : 1.0 / 3.0;
        const double v = rep % 7 == 3 ? 0.0 : 2.0 * ozref_uniform(&r) - 1.0, w = rep % 11 == 5 ? 0.0 : 2.0 * ozref_uniform(&r) - 1.0;
        double uh, ul, vh, vl;
        ck_assert(ozb_two_prod_exact(alpha, v, &uh, &ul) && ozb_two_prod_exact(alpha, w, &vh, &vl));
        for (int wide = 0; wide < 2; wide++) {
            memcpy(o[wide], a, sizeof a);
            (void)ozb_two_term(m, o[wide], 1, x, 1, uh, ul, y, 1, vh, vl, o[wide], 1, safe, f[wide], wide);
        }
        for (int64_t i = 0; i < m; i++) {
            ck_assert_msg(f[0][i] == f[1][i] && tu_bits(o[0][i]) == tu_bits(o[1][i]),
                          "rep %d element %lld: 256-bit %a (%d), 512-bit %a (%d)", rep, (long long)i, o[0][i], f[0][i],
                          o[1][i], f[1][i]);
            if (f[0][i] || !isfinite(a[i]) || !isfinite(x[i]) || !isfinite(y[i])) continue;
            mpfr_set_d(acc, a[i], MPFR_RNDN);
            mpfr_set_d(p, alpha, MPFR_RNDN);
            mpfr_mul_d(p, p, v, MPFR_RNDN);
            mpfr_mul_d(p, p, x[i], MPFR_RNDN);
            mpfr_add(acc, acc, p, MPFR_RNDN);
            mpfr_set_d(p, alpha, MPFR_RNDN);
            mpfr_mul_d(p, p, w, MPFR_RNDN);
            mpfr_mul_d(p, p, y[i], MPFR_RNDN);
            mpfr_add(acc, acc, p, MPFR_RNDN);
            const double want = mpfr_get_d(acc, MPFR_RNDN);
            ck_assert_msg(tu_bits(o[0][i]) == tu_bits(want) || (want == 0.0 && o[0][i] == 0.0),
                          "rep %d element %lld: %a against %a", rep, (long long)i, o[0][i], want);
        }
    }
    mpfr_clears(acc, p, (mpfr_ptr)0);
}
END_TEST

/* ozb_two_term on fixed data each width must decide as stated, on the 256-bit loops always and
 * the 512-bit ones where the CPU has them */
START_TEST(two_term_fixed)
{
    enum { N = 41 };
    const int widths = ozb_eft_cpu_wide() ? 2 : 1;
    double x[N], y[N], o[2][N];
    uint8_t f[2][N];
    /* small integers: every result exact, every error term zero (B = 0), so both widths decide
     * every element, and write a - 3 x - 5 y */
    for (int wide = 0; wide < widths; wide++) {
        for (int64_t i = 0; i < N; i++) { o[wide][i] = (double)(i - 20); x[i] = (double)(i % 7 - 3); y[i] = (double)(i % 5 - 2); }
        ck_assert_int_eq(ozb_two_term(N, o[wide], 1, x, 1, -3.0, 0.0, y, 1, -5.0, 0.0, o[wide], 1, 0, f[wide], wide), 0);
        for (int64_t i = 0; i < N; i++)
            ck_assert_msg(o[wide][i] == (double)(i - 20) - 3.0 * x[i] - 5.0 * y[i], "wide %d element %lld: %a", wide,
                          (long long)i, o[wide][i]);
    }
    /* x uh exact (pe = 0) and a = 0 (e1 = 0): only the bound's product term keeps the loops from
     * certifying RN(p + RN(x ul)), a tie rounded to even, for RN(p + x ul) just above it: x =
     * 1 + 2^-51, uh = 1 and ul = 0x1.ffffffffffffdp-54 (x ul just below 2^-53 + 2^-106, rounded
     * to 2^-53), so x (uh + ul) rounds to 1 + 2^-51 + 2^-52 and p + RN(x ul) to 1 + 2^-51.  In place
     * with one term (the rank updates' loops) and with two (the second term alone nonzero);
     * each element that value or flagged and untouched (for the exact sums). */
    const double ul = 0x1.ffffffffffffdp-54;
    for (int wide = 0; wide < widths; wide++)
        for (int two = 0; two < 2; two++) {
            for (int64_t i = 0; i < N; i++) {
                o[wide][i] = 0.0;
                x[i] = two ? 0.0 : 1.0 + 0x1p-51;
                y[i] = 1.0 + 0x1p-51;
            }
            (void)ozb_two_term(N, o[wide], 1, x, 1, 1.0, ul, two ? y : NULL, 1, 1.0, ul, o[wide], 1, 1, f[wide], wide);
            for (int64_t i = 0; i < N; i++)
                ck_assert_msg(f[wide][i] ? o[wide][i] == 0.0 : o[wide][i] == 1.0 + 0x1p-51 + 0x1p-52,
                              "wide %d two %d element %lld: %a (flag %d)", wide, two, (long long)i, o[wide][i], f[wide][i]);
        }
    /* a product below TwoProduct's range, in place and not known safe: x uh = 2^-1074 (1 + 2^-52)
     * rounds to 2^-1074 and its low part is lost, so a + p with a = 2^-1021 is a tie (rounded to
     * a) where the exact value lies above it (2^-1021 + 2^-1073): each element that value or
     * flagged and untouched */
    for (int wide = 0; wide < widths; wide++) {
        for (int64_t i = 0; i < N; i++) {
            o[wide][i] = 0x1p-1021;
            x[i] = 0x1.0000000000001p-537;
        }
        (void)ozb_two_term(N, o[wide], 1, x, 1, 0x1p-537, 0x1p-600, NULL, 1, 0.0, 0.0, o[wide], 1, 0, f[wide], wide);
        for (int64_t i = 0; i < N; i++)
            ck_assert_msg(f[wide][i] ? o[wide][i] == 0x1p-1021 : o[wide][i] == 0x1p-1021 + 0x1p-1073,
                          "tiny: wide %d element %lld: %a (flag %d)", wide, (long long)i, o[wide][i], f[wide][i]);
    }
    /* a TwoSum's tie: a = 1 and the product x uh = 2^-53 exactly (the first TwoSum's with one
     * term, the second's with x = 0 and y vh = 2^-53), so s = 1 with an error of 2^-53 exactly,
     * and the low product 2^-113 (ul, vl = 2^-60) is lost when it joins that error: only the
     * bound's 2^-103 |s| keeps the loops from certifying the tie's 1, where the exact value
     * lies above it (RN = 1 + 2^-52).  Each element that value or flagged and untouched. */
    for (int wide = 0; wide < widths; wide++)
        for (int two = 0; two < 2; two++) {
            for (int64_t i = 0; i < N; i++) {
                o[wide][i] = 1.0;
                x[i] = two ? 0.0 : 0x1p-53;
                y[i] = 0x1p-53;
            }
            (void)ozb_two_term(N, o[wide], 1, x, 1, 1.0, 0x1p-60, two ? y : NULL, 1, 1.0, 0x1p-60, o[wide], 1, 1, f[wide],
                               wide);
            for (int64_t i = 0; i < N; i++)
                ck_assert_msg(f[wide][i] ? o[wide][i] == 1.0 : o[wide][i] == 1.0 + 0x1p-52,
                              "tie: wide %d two %d element %lld: %a (flag %d)", wide, two, (long long)i, o[wide][i],
                              f[wide][i]);
        }
}
END_TEST

/* DTBSV's short residual (exact/residual.h) over t[l step] x[l]: the last term by
 * ozb_resid_last where last (the chains' way), else every term by ozb_resid_add */
static int resid_short(double c, const double *t, int64_t step, const double *x, int64_t n, int last, double *out)
{
    ozb_resid_t q = ozb_resid_start(c);
    for (int64_t l = 0; l < n; l++) {
        if (last && l == n - 1) ozb_resid_last(&q, t[l * step], x[l]);
        else ozb_resid_add(&q, t[l * step], x[l]);
    }
    return ozb_resid_finish(&q, out);
}

/* DTBSV's short residual (exact/residual.h): every value it certifies is RN(c - sum t x) against
 * MPFR, bit for bit, nonzero and finite, with and without the Fast2Sum last term; rows of 0 to
 * 32 products of several magnitudes, strides 1 and -3, rows that cancel to below an ulp of c (c
 * the rounded sum) or exactly (c the exact sum of integers), products near 2^-960 and below,
 * huge, Inf and NaN among them.  A fixed row it must certify, 1 + 2^-53 + 2^-80, whose value
 * the error terms alone decide. */
START_TEST(residual_short_exact)
{
    ozref_rng r;
    tu_rng(&r, "residual_short_exact");
    static const double special[] = { 0.0, -0.0, 0x1p-1074, 0x1p-480, 0x1p-500, 0x1p1000, INFINITY, NAN, 1.0 };
    double t[3 * 33], x[33];
    mpfr_t acc, p;
    mpfr_inits2(4400, acc, p, (mpfr_ptr)0);
    for (int last = 0; last < 2; last++) {
        /* 1 + 2^-53 + 2^-80: each partial sum rounds to 1 (a tie, then below one), the errors
         * carry the value past the midpoint to 1 + 2^-52 */
        const double ft[2] = { -0x1p-53, -0x1p-80 }, fx[2] = { 1.0, 1.0 };
        double got;
        ck_assert(resid_short(1.0, ft, 1, fx, 2, last, &got));
        ck_assert_msg(tu_bits(got) == tu_bits(1.0 + 0x1p-52), "fixed row: %a", got);
    }
    for (int rep = 0; rep < 3000; rep++) {
        const int64_t n = rep % 33, step = rep % 2 ? -3 : 1;
        double *t0 = step < 0 ? t + 3 * 32 : t;
        const int kind = rep % 7;
        for (int64_t l = 0; l < n; l++) {
            t0[l * step] = ldexp(2.0 * ozref_uniform(&r) - 1.0, (int)(ozref_uniform(&r) * 30.0) - 15);
            x[l] = ldexp(2.0 * ozref_uniform(&r) - 1.0, (int)(ozref_uniform(&r) * 30.0) - 15);
            if (kind == 5 && l % 4 == 1) x[l] = special[(size_t)(rep + l) % (sizeof special / sizeof *special)];
            if (kind == 6) t0[l * step] = ldexp(t0[l * step], -1000);  /* products about 2^-960 and below */
        }
        double c = ldexp(2.0 * ozref_uniform(&r) - 1.0, (int)(ozref_uniform(&r) * 10.0) - (kind == 6 ? 1000 : 0));
        if (kind == 2 || kind == 6) {   /* c = RN(sum t x): the residual cancels to below an ulp of c */
            mpfr_set_d(acc, 0.0, MPFR_RNDN);
            for (int64_t l = 0; l < n; l++) {
                mpfr_set_d(p, t0[l * step], MPFR_RNDN);
                mpfr_mul_d(p, p, x[l], MPFR_RNDN);
                mpfr_add(acc, acc, p, MPFR_RNDN);
            }
            c = mpfr_get_d(acc, MPFR_RNDN);
        }
        if (kind == 3 || kind == 4) {     /* c the exact sum of small integers: a cancelling row */
            c = 0.0;
            for (int64_t l = 0; l < n; l++) {
                t0[l * step] = (double)((rep + 3 * l) % 9 - 4);
                x[l] = (double)((rep * 7 + l) % 5 - 2);
                c += t0[l * step] * x[l];
            }
            if (kind == 4) c += 0x1p-40;
        }
        double got;
        if (!resid_short(c, t0, step, x, n, rep % 4 < 2, &got)) continue;
        mpfr_set_d(acc, c, MPFR_RNDN);
        for (int64_t l = 0; l < n; l++) {
            mpfr_set_d(p, t0[l * step], MPFR_RNDN);
            mpfr_mul_d(p, p, x[l], MPFR_RNDN);
            mpfr_sub(acc, acc, p, MPFR_RNDN);
        }
        const double want = mpfr_get_d(acc, MPFR_RNDN);
        ck_assert_msg(isfinite(got) && got != 0.0, "rep %d: certified %a", rep, got);
        ck_assert_msg(tu_bits(got) == tu_bits(want), "rep %d n %lld: %a against %a", rep, (long long)n, got, want);
    }
    mpfr_clears(acc, p, (mpfr_ptr)0);
}
END_TEST

/* The strips' bounds on |D| are never below N 2^-52 A + G EBC + 2^-1000, for totals of every
 * size: ozb_eft_bound4 (eft_cert4.h) and ozb_eft_fold_bound (eft_dot.c) against the formula in
 * long double (the roundings' margin: a relative 2^-50), tiny totals included (raised to
 * BOUND_A_MIN and BOUND_G_MIN so that no product is subnormal, never lowered).  And the 512-bit
 * certificate (ozb_eft_quad_put512) through its verdicts: a column of rows with small A is
 * certified (RN(S) = S), tiny totals too, while a column is not where one row's S + C lies
 * 2^-80 above a midpoint with A = 1 (a bound of 2^-45), nor one where it does with G = 2^20
 * (2^-72) */
START_TEST(bounds_cover_totals)
{
#if defined(EFT_AVX2) && defined(__x86_64__)
    const double N = 128.0;
    const double as[8] = { 1.0, 0x1p-40, 0x1p-900, 0x1p-969, 0x1p-975, 0x1p-1000, 0x1p-1070, 0.0 };
    const double gs[8] = { 1.0, 0x1p-20, 0x1p-900, 0x1p-929, 0x1p-935, 0x1p-1000, 0x1p-1074, 0.0 };
    for (int i = 0; i < 8; i += 4) {
        tot4 t;
        t.s = _mm256_setzero_pd();
        t.c = t.s;
        t.a = _mm256_loadu_pd(as + i);
        t.g = _mm256_loadu_pd(gs + i);
        double b4[4];
        _mm256_storeu_pd(b4, ozb_eft_bound4(&t, N));
        for (int l = 0; l < 4; l++) {
            const long double want = ((long double)N * 0x1p-52L * (long double)as[i + l] +
                                      (long double)gs[i + l] * (long double)EBC + 0x1p-1000L) * (1.0L - 0x1p-50L);
            const fold_t f = { 0.0, 0.0, as[i + l], gs[i + l] };
            ck_assert_msg((long double)b4[l] >= want, "bound4: A %a G %a: %a", as[i + l], gs[i + l], b4[l]);
            ck_assert_msg((long double)ozb_eft_fold_bound(f, N) >= want, "fold_bound: A %a G %a: %a", as[i + l], gs[i + l],
                          ozb_eft_fold_bound(f, N));
        }
    }
    if (!have_avx512("bounds_cover_totals")) return;
    double tot[4 * 32], c[4 * 8];
    for (int q = 0; q < 4; q++)
        for (int l = 0; l < 8; l++) {
            double *t = tot + 32 * q;
            t[l] = q == 2 ? 0.75 * (l + 1) : 1.0 + l / 8.0;
            t[8 + l] = 0.0;
            t[16 + l] = q == 2 ? 0x1p-1000 : 0x1p-60;
            t[24 + l] = q == 2 ? 0x1p-1000 : 0x1p-60;
            if ((q == 1 || q == 3) && l == 5) {      /* 2^-80 above the midpoint of 1 and 1 + 2^-52 */
                t[l] = 1.0;
                t[8 + l] = 0x1p-53 + 0x1p-80;
                t[16 + l] = q == 1 ? 1.0 : 0x1p-60;
                t[24 + l] = q == 1 ? 0x1p-60 : 0x1p20;
            }
        }
    memset(c, 0, sizeof c);
    ck_assert_int_eq(ozb_eft_quad_put512(tot, 0, N, 1.0, 0, 0.0, c, 8), 0x5);
    for (int l = 0; l < 8; l++) {
        ck_assert(c[l] == tot[l]);
        ck_assert(c[16 + l] == tot[64 + l]);
    }
#else
    tu_skip_note("bounds_cover_totals", "not an x86-64 build with the AVX2 kernels");
#endif
}
END_TEST

/* The running split of eft_gemm.c (CHAIN4, eft_kern.h): for every block it may see (nb <= BL
 * products per lane, each |x y| below 2^-9 sigma, sigma from 2^-960 to 2^1000), S = tau - sigma
 * and R satisfy the bound the totals assume, |S + R - sum x y| <= nb^2 u^2 sigma (1 + 2^-40)
 * + nb 2^-1075, against the exact sum (MPFR, 4096 bits: every product exactly).  Products of
 * random signs, all at the bound with one sign (tau furthest from sigma), and tiny ones beside
 * them (r subnormal where sigma is small). */
START_TEST(chain_split_bound)
{
#if defined(EFT_AVX2)
    ozref_rng r;
    tu_rng(&r, "chain_split_bound");
    const int es[] = {-960, -900, -300, 0, 400, 1000};
    const int64_t nbs[] = {1, 2, 7, 64, 127, 128};
    double x[4 * BL], y[4 * BL];
    mpfr_t acc, p, t;
    mpfr_inits2(4096, acc, p, t, (mpfr_ptr)0);
    for (size_t ie = 0; ie < sizeof es / sizeof *es; ie++)
        for (size_t in = 0; in < sizeof nbs / sizeof *nbs; in++)
            for (int kind = 0; kind < 4; kind++) {
                const int e = es[ie];
                const int64_t nb = nbs[in];
                const int a = (e - 9) / 2;                       /* x near 2^a, y near 2^(e - 9 - a) */
                for (int64_t i = 0; i < 4 * nb; i++) {
                    double u1 = (2.0 * ozref_uniform(&r) - 1.0) * 0.999, u2 = (2.0 * ozref_uniform(&r) - 1.0) * 0.999;
                    if (kind == 1) { u1 = 1.0 - 0x1p-53 * (double)(i % 7); u2 = 1.0 - 0x1p-52 * (double)(i % 5 + 1); }
                    if (kind == 2) { u1 = -(1.0 - 0x1p-53 * (double)(i % 3)); u2 = 1.0 - 0x1p-52 * (double)(i % 11 + 1); }
                    if (kind == 3 && i % 2) u1 = ldexp(u1, -40 - (int)(i % 30));      /* tiny beside large */
                    x[i] = ldexp(u1, a);
                    y[i] = ldexp(u2, e - 9 - a);
                    ck_assert(fabs(x[i] * y[i]) < ldexp(1.0, e - 9));
                }
                /* lanes 0..3: products i = 4 l + lane, as a strip lays its rows */
                const __m256d g = _mm256_set1_pd(ldexp(1.0, e));
                __m256d T = g, R = _mm256_setzero_pd();
                for (int64_t l = 0; l < nb; l++) CHAIN4(T, R, _mm256_loadu_pd(x + 4 * l), _mm256_loadu_pd(y + 4 * l));
                double S[4], Rv[4];
                _mm256_storeu_pd(S, _mm256_sub_pd(T, g));
                _mm256_storeu_pd(Rv, R);
                const double bound = (double)(nb * nb) * ldexp(1.0, e - 106) * (1.0 + 0x1p-40) + (double)nb * 0x1p-1074;
                for (int lane = 0; lane < 4; lane++) {
                    mpfr_set_d(acc, 0.0, MPFR_RNDN);
                    for (int64_t l = 0; l < nb; l++) {
                        mpfr_set_d(p, x[4 * l + lane], MPFR_RNDN);
                        mpfr_mul_d(p, p, y[4 * l + lane], MPFR_RNDN);   /* exact at 4096 bits */
                        mpfr_add(acc, acc, p, MPFR_RNDN);
                    }
                    mpfr_set_d(t, S[lane], MPFR_RNDN);
                    mpfr_add_d(t, t, Rv[lane], MPFR_RNDN);
                    mpfr_sub(t, t, acc, MPFR_RNDN);
                    mpfr_abs(t, t, MPFR_RNDN);
                    ck_assert_msg(mpfr_cmp_d(t, bound) <= 0, "sigma 2^%d, nb %lld, kind %d, lane %d: |S + R - exact| = %.3e > %.3e",
                                  e, (long long)nb, kind, lane, mpfr_get_d(t, MPFR_RNDU), bound);
                }
            }
    mpfr_clears(acc, p, t, (mpfr_ptr)0);
#else
    tu_skip_note("chain_split_bound", "not an x86-64 build with the AVX2 kernels");
#endif
}
END_TEST

static Suite *eft_kernels_suite(void)
{
    Suite *s = suite_create("eft_kernels");
    TCase *tc = tcase_create("eft_kernels");
    tcase_set_timeout(tc, tu_timeout(120));
    tcase_add_test(tc, deep_lsb_definition);
    tcase_add_test(tc, nearsum_against_mpfr);
    tcase_add_test(tc, deep_lsb_vector_matches_scalar);
    tcase_add_test(tc, dot_lanes_512_match_256);
    tcase_add_test(tc, gemm_block_512_match_256);
    tcase_add_test(tc, gemm_block_six_match_two);
    tcase_add_test(tc, rot_pairs_exact);
    tcase_add_test(tc, two_term_512_match_256);
    tcase_add_test(tc, residual_short_exact);
    tcase_add_test(tc, two_term_fixed);
    tcase_add_test(tc, chain_split_bound);
    tcase_add_test(tc, bounds_cover_totals);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_eft_kernels", eft_kernels_suite)
