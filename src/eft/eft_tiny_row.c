/* Rows of tiny products (eft_tiny_row.h). */
#include "eft/eft_tiny_row.h"
#include "eft/eft_dot_small.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

/* the exponent field of v, 1 for zeros and subnormals: |v| < 2^(field - 1022) */
static inline int64_t exp_field(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    const int64_t e = (int64_t)((u >> 52) & 0x7ff);
    return e ? e : 1;
}

/* the row with a scaled by 2^600 through the short DOT (eft_tiny_row.h), 0 < k <
 * OZB_DOT_ONE_SIGMA; its 16 KiB of copies in their own frame, entered only here */
static __attribute__((noinline)) int scaled_row(const double *a, const double *b, int64_t k, double *out)
{
    double s[OZB_DOT_ONE_SIGMA + 1], bb[OZB_DOT_ONE_SIGMA + 1], v;
    for (int64_t l = 0; l < k; l++) s[l] = a[l] * 0x1p600;
    if (!ozb_eft_dot_unit(s, b, k, 0, &v) || v == 0.0) return 0;
    if (fabs(v) >= 0x1p-422) {
        *out = v * 0x1p-600;
        return 1;
    }
    const double C = v < 0.0 ? 0x1p-421 : -0x1p-421;
    memcpy(bb, b, sizeof(double) * (size_t)k);
    s[k] = C;
    bb[k] = 1.0;
    double r;
    if (!ozb_eft_dot_unit(s, bb, k + 1, 0, &r)) return 0;
    r = (r - C) * 0x1p-600;
    *out = r == 0.0 ? copysign(0.0, v) : r;     /* nonzero but below 2^-1075: a signed zero */
    return 1;
}

int ozb_eft_tiny_row(const double *a, const double *b, int64_t k, double *out)
{
    if (a[0] != 1.0 || b[0] == 0.0 || !isfinite(b[0])) return 0;
    int64_t M = -1, amax = 0;
    for (int64_t l = 1; l < k; l++) {
        const int64_t ea = exp_field(a[l]), eb = exp_field(b[l]);
        if (ea == 2047 || eb == 2047) return 0;          /* Inf, NaN */
        if (a[l] != 0.0 && b[l] != 0.0 && ea + eb > M) M = ea + eb;
        if (ea > amax) amax = ea;
    }
    if (M < 0) {                                          /* every other product exactly 0 */
        *out = b[0];
        return 1;
    }
    int64_t lg = 0;
    while (((int64_t)1 << lg) < k - 1) lg++;
    uint64_t u;
    memcpy(&u, &b[0], sizeof u);
    const int64_t f = (int64_t)((u >> 52) & 0x7ff), half = f ? f - 1077 : -1075;
    if (M - 2044 + lg <= half) {
        *out = b[0];
        return 1;
    }
    if (M - 2044 > -900 || amax > 1023 + 400 || f > 1023 + 300 || k >= OZB_DOT_ONE_SIGMA) return 0;
    return scaled_row(a, b, k, out);
}
