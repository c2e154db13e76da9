/* White-box checks of the error-free sums' vector helpers against their scalar definitions
 * (src/fused/eft_deep_kern.c): the lowest set bit of every operand, which decides where a
 * deep sum's terms are its exact sum (eft_deep_kern.h, "Exact results").  The vector version
 * must equal ozb_deep_lsb on every double: normal, subnormal, zero, powers of two (the
 * implicit bit is the lowest), Inf and NaN, at every position of a vector and in the tail. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tu.h"

/* src/fused/eft_deep_kern.h (declared there only where the AVX2 kernels are compiled, which
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

static Suite *eft_kernels_suite(void)
{
    Suite *s = suite_create("eft_kernels");
    TCase *tc = tcase_create("eft_kernels");
    tcase_set_timeout(tc, tu_timeout(120));
    tcase_add_test(tc, deep_lsb_definition);
    tcase_add_test(tc, deep_lsb_vector_matches_scalar);
    suite_add_tcase(s, tc);
    return s;
}

TU_MAIN("test_eft_kernels", eft_kernels_suite)
