/* Long accumulator: the exact sum of products of doubles in a fixed-point big
 * integer, rounded once.  It is the fallback of ozb_sum_nearest where NearSum's
 * scaled frame would leave the normal range, and the source of exact signs for
 * the special-value rules.  Integer arithmetic only: nothing here rounds. */
#include "sum/longacc.h"
#include <math.h>
#include <string.h>

void ozb_la_init(ozb_longacc *a)
{
    memset(a->d, 0, sizeof a->d);
    a->lo = OZB_LA_DIGITS;
    a->hi = -1;
}

void ozb_la_add(ozb_longacc *a, int neg, ozb_u128 mag, int exp)
{
    if (mag == 0) return;
    int pos = exp - OZB_LA_EMIN;
    int d0 = pos >> 5, sh = pos & 31;
    for (int j = 0; j < 4 && mag != 0; j++, mag >>= 32) {
        uint64_t v = (uint64_t)(mag & 0xffffffffu) << sh;   /* < 2^63 */
        int64_t lo = (int64_t)(v & 0xffffffffu), hi = (int64_t)(v >> 32);
        int idx = d0 + j;
        if (neg) { a->d[idx] -= lo; a->d[idx + 1] -= hi; }
        else     { a->d[idx] += lo; a->d[idx + 1] += hi; }
        if (idx < a->lo) a->lo = idx;
        if (idx + 1 > a->hi) a->hi = idx + 1;
    }
}

/* |x| = M * 2^e with M an integer < 2^53 */
static uint64_t decompose(double x, int *e, int *neg)
{
    uint64_t b; memcpy(&b, &x, sizeof b);
    *neg = (int)(b >> 63);
    int ef = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & 0xfffffffffffffull;
    if (ef) { m |= 1ull << 52; *e = ef - 1075; } else *e = -1074;
    return m;
}

void ozb_la_add_product(ozb_longacc *a, double x, double y)
{
    int ex, ey, nx, ny;
    uint64_t mx = decompose(x, &ex, &nx), my = decompose(y, &ey, &ny);
    ozb_la_add(a, nx ^ ny, (ozb_u128)mx * my, ex + ey);
}

static int bit_at(const int64_t *d, int pos) { return (int)((d[pos >> 5] >> (pos & 31)) & 1); }

double ozb_la_round(ozb_longacc *a, int *sign)
{
    *sign = 0;
    if (a->hi < 0) { a->lo = OZB_LA_DIGITS; return 0.0; }
    int lo = a->lo, hi = a->hi + 2;
    if (hi >= OZB_LA_DIGITS) hi = OZB_LA_DIGITS - 1;
    int64_t *d = a->d;
    /* resolve carries: digits into [0, 2^32), the final carry is the sign (0 or -1) */
    int64_t carry = 0;
    for (int i = lo; i <= hi; i++) {
        int64_t x = d[i] + carry;
        int64_t low = x & 0xffffffff;
        carry = (x - low) / 4294967296LL;
        d[i] = low;
    }
    int neg = carry < 0;
    if (neg) {                                  /* two's complement over [lo, hi] */
        int64_t c = 1;
        for (int i = lo; i <= hi; i++) {
            int64_t x = (0xffffffff - d[i]) + c;
            c = x >> 32;
            d[i] = x & 0xffffffff;
        }
    }
    int top = hi;
    while (top >= lo && d[top] == 0) top--;
    double result = 0.0;
    if (top >= lo) {
        *sign = neg ? -1 : 1;
        int msb = top * 32 + (31 - __builtin_clz((unsigned)d[top]));
        int emsb = msb + OZB_LA_EMIN;                  /* value in [2^emsb, 2^(emsb+1)) */
        int elsb = emsb - 52 > -1074 ? emsb - 52 : -1074;
        int plsb = elsb - OZB_LA_EMIN;
        uint64_t M = 0;
        for (int p = msb; p >= plsb; p--) M = (M << 1) | (uint64_t)bit_at(d, p);
        int rbit = 0, sticky = 0;
        if (plsb - 1 >= 0 && plsb - 1 <= msb) rbit = bit_at(d, plsb - 1);
        int ps = plsb - 1;                             /* bits strictly below ps are sticky */
        if (ps > msb + 1) ps = msb + 1;                /* value entirely below the round bit */
        if (ps > 0) {
            int q = ps >> 5;
            if (q <= hi && (d[q] & ((1LL << (ps & 31)) - 1))) sticky = 1;
            for (int i = lo; i < q && !sticky; i++) if (d[i]) sticky = 1;
        }
        if (plsb - 1 > msb) {                          /* whole value below half the smallest unit */
            rbit = 0; sticky = 1; M = 0;
        }
        if (rbit && (sticky || (M & 1))) M++;
        result = ldexp((double)M, elsb);               /* exact, or +Inf on overflow */
        if (neg) result = -result;
    }
    for (int i = lo; i <= hi; i++) d[i] = 0;
    a->lo = OZB_LA_DIGITS;
    a->hi = -1;
    return result;
}
