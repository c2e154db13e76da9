/* Element operations of the CUDA kernels, written once for the device and the host: the
 * kernels in ozb_kernels.cu apply them per element, and the emulated device (src/cuda,
 * OZBLAS_CUDA_EMULATE=1) applies the same functions on the CPU, so the host tests run the
 * very arithmetic the GPU runs.  Integer and exact operations only: no rounding anywhere. */
#ifndef OZB_KERNEL_OPS_H
#define OZB_KERNEL_OPS_H
#include "ozb_bits_ops.h"

/* A uint8 residue r in [0, m) of the CRT format as an int8 of the same class modulo m
 * (cuBLAS's integer GEMM multiplies s8 x s8; the CPU's oneDNN takes u8 x s8).
 * Budget: m <= 256, so r - m >= -128 whenever r > 127; the result is in [-128, 127], and a
 * product with an s8 residue is at most 128 * 128 = 2^14 in magnitude, so 2^16 terms stay
 * below 2^30 < 2^31 (tighter than the CPU's 255 * 128 budget).  The GEMM's sum is then
 * congruent to the CPU's modulo m, which is all the reconstruction reads (it reduces every
 * product modulo m first). */
OZB_HD int8_t ozb_op_u8_to_s8_mod(uint8_t r, int32_t m)
{
    return (int8_t)(r > 127 ? (int32_t)r - m : (int32_t)r);
}

/* Exact u8 x s8 products where the exact integer is needed (the ACCURATE scaling's bound,
 * values up to 128): r = 16 hi + lo with hi, lo in [0, 15], two s8 GEMMs, hi's result
 * times 16 plus lo's.  Budget: |hi * s8| <= 15 * 128 < 2^11, so 2^16 terms < 2^27. */
OZB_HD int8_t ozb_op_u8_hi(uint8_t r) { return (int8_t)(r >> 4); }
OZB_HD int8_t ozb_op_u8_lo(uint8_t r) { return (int8_t)(r & 15); }
OZB_HD int32_t ozb_op_hi_lo(int32_t hi, int32_t lo) { return hi * 16 + lo; }

/* INT32-packed slices (seed 001 §4.5): an FP64-format digit |d| <= 2^26 - 1 stored as int32
 * (half the bytes of a double), widened in registers.  Skinny products (DOT: 1 x 1 rows,
 * GEMV: one column) accumulate d_a * d_x in binary64: every product and every partial sum is
 * an integer of at most 2b + ceil(log2 kb) <= 53 bits (the format's budget, core/format.c),
 * so each is exact and the sum is the same in any order, on any thread layout. */
OZB_HD double ozb_op_i32_times(int32_t a, double x) { return (double)a * x; }

/* ---- Ozaki scheme II reconstruction (crt/crt.c, FIXED and DOUBLE mode), per element ---- */
#define OZB_OP_CRT_MAXMOD 20

/* x mod m in [0, m) for an integer-valued 0 <= |x| < 2^40 in binary64: the quotient from
 * x * inv (inv = RN(1/m)) is within one of floor(x/m), and the two corrections absorb it;
 * every step is an exact integer operation. */
OZB_HD double ozb_op_crt_mod(double x, double m, double inv)
{
    double c = x - m * floor(x * inv);
    c = c < 0.0 ? c + m : c;
    return c >= m ? c - m : c;
}

/* acc := (acc mod m) + (b mod m): a later k-block folded into the first (below 2^9). */
OZB_HD int32_t ozb_op_crt_fold(int32_t a, int32_t b, int32_t m)
{
    a %= m; b %= m;
    a += a < 0 ? m : 0;
    b += b < 0 ? m : 0;
    return a + b;
}

/* The constants of s moduli as the reconstruction uses them (crt_consts.h: F1 and F2 split
 * into 22-bit halves, so that every product c_t * F stays below 2^30 and every sum of at
 * most 20 of them is exact in binary64). */
typedef struct {
    int    s;
    double md[OZB_OP_CRT_MAXMOD], iv[OZB_OP_CRT_MAXMOD];
    double F1h[OZB_OP_CRT_MAXMOD], F1l[OZB_OP_CRT_MAXMOD], F2h[OZB_OP_CRT_MAXMOD], F2l[OZB_OP_CRT_MAXMOD];
    double f3[OZB_OP_CRT_MAXMOD];
    double Mh, Ml;
} ozb_op_crt_consts;

/* C' of one element from its s products C[t*ne] (any integers congruent to C' modulo m_t):
 * X1 = sum c_t F1_t, X2 = sum c_t F2_t (exact int64), X3 = sum c_t f3_t; the fraction
 * ((X1 mod 2^44) 2^44 + X2 + X3) 2^-88 mod 1, centred, times M in double-double, rounded
 * once.  The same operations in the same order as the CPU's vectorized loop (crt.c). */
OZB_HD double ozb_op_crt_recon(const int32_t *C, int64_t ne, const ozb_op_crt_consts *k)
{
    double a1h = 0.0, a1l = 0.0, a2h = 0.0, a2l = 0.0, a3 = 0.0;
    for (int t = 0; t < k->s; t++) {
        const double c = ozb_op_crt_mod((double)C[t * ne], k->md[t], k->iv[t]);
        a1h += c * k->F1h[t]; a1l += c * k->F1l[t];
        a2h += c * k->F2h[t]; a2l += c * k->F2l[t];
        a3 += c * k->f3[t];
    }
    const int64_t X1 = ((int64_t)a1h << 22) + (int64_t)a1l;
    const int64_t X2 = ((int64_t)a2h << 22) + (int64_t)a2l;
    const int64_t M44 = ((int64_t)1 << 44) - 1;
    int64_t hi = ((X1 & M44) + (X2 >> 44)) & M44;
    const int64_t lo = X2 & M44;
    if (hi >= ((int64_t)1 << 43)) hi -= (int64_t)1 << 44;     /* centred: C' in (-M/2, M/2) */
    const double vh = (double)hi * 0x1p44, vl = (double)lo + a3;
    const double ph = vh * k->Mh, pe = fma(vh, k->Mh, -ph);
    return ph + (pe + (vh * k->Ml + vl * k->Mh));
}

/* C := beta C for one element, BLAS style: beta == 0 writes +0 without reading C. */
OZB_HD double ozb_op_scale(double c, double beta) { return beta == 0.0 ? 0.0 : beta * c; }

/* binary16 bits of an integer-valued double d with |d| <= 2047 (the FP16 format's digits,
 * at most 11 bits): exact, built from the integer's bits (no conversion rounding). */
OZB_HD uint16_t ozb_op_f16_of_int(double d)
{
    int32_t v = (int32_t)d;
    uint16_t s = v < 0 ? 0x8000u : 0u;
    uint32_t a = (uint32_t)(v < 0 ? -v : v);
    if (a == 0) return s;
    int e = 0;                                           /* floor(log2 a), 0 <= e <= 10 */
    while ((a >> (e + 1)) != 0) e++;
    uint32_t frac = (a << (10 - e)) & 0x3ffu;            /* the bits below the leading one */
    return (uint16_t)(s | (uint16_t)((e + 15) << 10) | (uint16_t)frac);
}

/* ---- splitting on the device (src/cuda/resident.c), the same digits as src/split ---- */

/* One digit of x on the grid 2^w: d = x truncated toward zero to a multiple of 2^w, over
 * 2^w, and the remainder r = x - d 2^w (x with its bits at and above 2^w cleared; exact).
 * For -1022 <= w <= 1022, 2^w and 2^-w are normal: x 2^-w is exact or underflows below 1
 * (trunc gives 0 either way), |d| < 2^beta <= 2^26 fits int32, d 2^w is exact.  Outside,
 * the same digit in integer arithmetic.  Bit for bit split.c's pass_fast/pass_generic. */
OZB_HD void ozb_op_digit(double x, int w, double *dig, double *rem)
{
    if (w >= -1022 && w <= 1022) {
        const double d = (double)(int32_t)(x * ozb_op_pow2(-w));
        *dig = d;
        *rem = x - d * ozb_op_pow2(w);
        return;
    }
    const uint64_t bits = ozb_op_bits(x), mag = bits & OZB_OP_ABS;
    if (mag == 0) { *dig = 0.0; *rem = 0.0; return; }
    const int neg = (int)(bits >> 63), ef = (int)(mag >> 52);
    const uint64_t M = ef ? ((mag & 0xfffffffffffffull) | (1ull << 52)) : mag;
    const int ex = ef ? ef - 1075 : -1074;               /* |x| = M * 2^ex */
    uint64_t Q;
    int64_t R;                                           /* |x| - Q*2^w = R * 2^ex, 0 <= R */
    if (ex >= w) { Q = M << (ex - w); R = 0; }           /* a multiple of 2^w: ex - w < beta */
    else if (w - ex >= 60) { Q = 0; R = (int64_t)M; }    /* |x| < 2^(ex+53) <= 2^(w-7) */
    else { const int sh = w - ex; Q = M >> sh; R = (int64_t)(M - (Q << sh)); }
    const double d = (double)Q, r = ldexp((double)R, ex);
    *dig = neg ? -d : d;
    *rem = neg ? -r : r;
}

/* Row metadata of a k-block, order-free (maxima and minima): the largest |x| as bits and the
 * exponent of the lowest set bit of any nonzero x. */
typedef struct { uint64_t mx; int low; } ozb_op_rowmeta;
#define OZB_OP_LOW_NONE 0x7fffffff

OZB_HD void ozb_op_meta_add(ozb_op_rowmeta *m, double x)
{
    const uint64_t b = ozb_op_bits(x) & OZB_OP_ABS;
    if (b > m->mx) m->mx = b;
    if (b == 0 || b >= OZB_OP_INF_BITS) return;
    const int ef = (int)(b >> 52);
    const uint64_t M = ef ? ((b & 0xfffffffffffffull) | (1ull << 52)) : b;
    const int low = (ef ? ef - 1075 : -1074) + ozb_op_ctz64(M);
    if (low < m->low) m->low = low;
}

/* The row's grid exponent e (max |x| < 2^e) and slice count: split until the remainder is
 * zero, i.e. until the grid 2^(e - ns beta) reaches the lowest set bit L,
 * ns = ceil((e - L)/beta) (split.c stops at the same slice), at most `limit` (FIXED; 0: no
 * limit).  ns = 0 for a zero row, -1 for a row holding Inf or NaN. */
OZB_HD void ozb_op_meta_finish(ozb_op_rowmeta m, int beta, int limit, int32_t *e, int32_t *ns)
{
    if (m.mx >= OZB_OP_INF_BITS) { *e = 0; *ns = -1; return; }
    if (m.mx == 0) { *e = 0; *ns = 0; return; }
    const int E = ozb_op_ilogb(ozb_op_from_bits(m.mx)) + 1;
    int n = (E - m.low + beta - 1) / beta;               /* E > L: n >= 1 */
    if (limit > 0 && n > limit) n = limit;
    *e = E;
    *ns = n;
}

/* The fused DOT/GEMV product (resident.c): at most this many slices per side stay in registers */
#define OZB_OP_FUSED_MAXS 8
/* A fused work item takes half of op(A)'s digits, t0 = 0 or OZB_OP_FUSED_HALF (neighbouring
 * threads the two halves of one stretch of elements: the same loads): 4 x 8 sums in
 * registers instead of 8 x 8 */
#define OZB_OP_FUSED_HALF 4

/* acc[t][u] += digit t of a times x's digit u (xd[u * xs]), t < nsa, u < nsb.  Exact: each
 * digit product is an integer below 2^(2 beta) and a block's kb of them stay below
 * 2^(2 beta + ceil(log2 kb)) <= 2^53 (the format's budget, core/format.c), so every partial
 * sum, in any order and on any thread layout, is the same integer. */
/* The first ns digits of x on the grid 2^e (ozb_op_split_item's chain), zeros after them up
 * to OZB_OP_FUSED_MAXS: the digits the split would have stored, kept in registers. */
OZB_HD void ozb_op_digits(double x, int e, int ns, int beta, double d[OZB_OP_FUSED_MAXS])
{
    for (int t = 0; t < OZB_OP_FUSED_MAXS; t++) {
        d[t] = 0.0;
        if (t < ns) ozb_op_digit(x, e - (t + 1) * beta, &d[t], &x);
    }
}

OZB_HD void ozb_op_fused_acc(double a, int ea, int nsa, int beta, const double *xd, int64_t xs, int nsb, int t0,
                             double acc[OZB_OP_FUSED_HALF][OZB_OP_FUSED_MAXS])
{
    double r = a, d;
    for (int t = 0; t < t0; t++) {                      /* the other half's digits: only the chain */
        if (t >= nsa) return;
        ozb_op_digit(r, ea - (t + 1) * beta, &d, &r);
    }
    for (int tt = 0; tt < OZB_OP_FUSED_HALF; tt++) {    /* constant indices: acc stays in registers */
        if (t0 + tt >= nsa) break;
        ozb_op_digit(r, ea - (t0 + tt + 1) * beta, &d, &r);
        for (int u = 0; u < OZB_OP_FUSED_MAXS; u++) {
            if (u >= nsb) break;
            acc[tt][u] += d * xd[u * xs];
        }
    }
}
#endif
