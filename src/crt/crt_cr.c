/* Correct rounding through Ozaki scheme II (beyond seed 002).
 *
 * Exact scaling: row i of op(A) is multiplied by 2^ka_i with ka_i = -(the lowest set bit of
 * the row), so every A'_il = a_il 2^ka_i is an integer and nothing is truncated (likewise
 * the columns of op(B)).  Then C'_ij = sum_l A'_il B'_lj is the exact integer product and
 * |C'_ij| <= ||A'_i||_2 ||B'_j||_2; with the moduli's product M above twice the largest such
 * bound, the centred residues determine C' exactly.  The residues go through the same exact
 * u8 x s8 GEMMs as the other modes; the reconstruction here is exact: Garner's mixed-radix
 * digits (small-integer arithmetic, vectorised across elements), the integer C' in 32-bit
 * limbs, and one correct rounding of alpha 2^-(ka_i + kb_j) C' + beta c.  The result is
 * RN(exact): the same bits as every other format.
 *
 * Where the rows' bit spans need more than the table's 48 moduli (M ~ 2^337), or the
 * inputs hold Inf/NaN, ozb_crt_cr_run returns NOT_SUPPORTED and the caller uses FP64
 * slices (the same bits).  Compiled with -ffp-contract=off. */
#include "crt/crt.h"
#include "crt/crt_consts.h"
#include "core/special.h"
#include "sum/sum.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#ifdef OZBLAS_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#define KBLOCK ((int64_t)1 << 16)   /* 2^16 products of |u8 x s8| <= 255 * 128 stay below 2^31 */
#define SPAN_MAX 400                /* bits per row beyond which the table cannot cover it */
#define LIMBS 12                    /* 32-bit limbs of C' (M < 2^337 < 2^384) */

typedef struct { int32_t ka; int32_t lb; int ok, zero; } crscale_t;   /* lb: log2 bound of ||x 2^ka||_2 */

/* lowest set bit (as an exponent) of a finite nonzero double */
static int low_bit(double x)
{
    uint64_t b = ozb_bits(x) & 0x7fffffffffffffffull;
    const int ef = (int)(b >> 52);
    uint64_t m = b & 0xfffffffffffffull;
    if (ef) m |= 1ull << 52;
    return (ef ? ef - 1075 : -1074) + __builtin_ctzll(m);
}

static void cr_scales(const ozb_view *v, int64_t rows, int64_t k, crscale_t *rs, int nt)
{
    #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && rows * k >= 65536)
    for (int64_t i = 0; i < rows; i++) {
        int64_t mx = 0;
        int lo = INT32_MAX;
        for (int64_t l = 0; l < k; l++) {
            const double x = ozb_view_at(v, i, l);
            const int64_t b = (int64_t)(ozb_bits(x) & 0x7fffffffffffffffull);
            mx = b > mx ? b : mx;
            if (b != 0 && b < 0x7ff0000000000000LL) { const int q = low_bit(x); lo = q < lo ? q : lo; }
        }
        rs[i].zero = mx == 0;
        rs[i].ok = mx < 0x7ff0000000000000LL;
        rs[i].ka = 0; rs[i].lb = 0;
        if (mx == 0 || !rs[i].ok) continue;
        double m; memcpy(&m, &mx, sizeof m);
        const int e = ozb_ilogb(m) + 1;               /* max < 2^e */
        if (e - lo > SPAN_MAX) { rs[i].ok = 0; continue; }
        double s2 = 0.0;
        const double g = ozb_pow2(-e > 1000 ? 1000 : -e < -1000 ? -1000 : -e), g2 = ozb_pow2(-e - (-e > 1000 ? 1000 : -e < -1000 ? -1000 : -e));
        for (int64_t l = 0; l < k; l++) { const double x = ozb_view_at(v, i, l) * g * g2; s2 += x * x; }
        const double n2 = sqrt(s2) * (1.0 + 0x1p-40);  /* >= ||x 2^-e||_2 */
        int c = ozb_ilogb(n2);
        if (n2 != ozb_pow2(c)) c++;
        rs[i].ka = -lo;
        rs[i].lb = (e - lo) + c;                       /* ||x 2^ka||_2 <= 2^lb */
    }
}

/* Garner constants for s moduli: inv[t] = (m_0 ... m_{t-1})^-1 mod m_t,
 * P[u][t] = (m_0 ... m_{u-1}) mod m_t (u < t); M and floor(M/2) in 32-bit limbs. */
typedef struct { int s; int32_t inv[OZB_CRT_NMOD]; int32_t P[OZB_CRT_NMOD][OZB_CRT_NMOD]; uint32_t M[LIMBS], H[LIMBS]; } garner_t;

static int64_t inv_mod(int64_t x, int64_t m)
{
    int64_t r0 = m, r1 = ((x % m) + m) % m, t0 = 0, t1 = 1;
    while (r1) { int64_t q = r0 / r1, tmp = r0 - q * r1; r0 = r1; r1 = tmp; tmp = t0 - q * t1; t0 = t1; t1 = tmp; }
    return ((t0 % m) + m) % m;
}

static void garner_init(int s, garner_t *g)
{
    g->s = s;
    for (int t = 0; t < s; t++) {
        const int64_t m = ozb_crt_moduli[t];
        int64_t pr = 1 % m;
        for (int u = 0; u < t; u++) { g->P[u][t] = (int32_t)pr; pr = pr * ozb_crt_moduli[u] % m; }
        g->inv[t] = (int32_t)inv_mod(pr, m);
    }
    memset(g->M, 0, sizeof g->M);
    g->M[0] = 1;
    for (int t = 0; t < s; t++) {
        uint64_t carry = 0;
        for (int q = 0; q < LIMBS; q++) {
            const uint64_t v = (uint64_t)g->M[q] * (uint64_t)ozb_crt_moduli[t] + carry;
            g->M[q] = (uint32_t)v; carry = v >> 32;
        }
    }
    uint32_t c = 0;
    for (int q = LIMBS - 1; q >= 0; q--) { g->H[q] = (g->M[q] >> 1) | (c << 31); c = g->M[q] & 1; }
}

/* floor(log2 M) for s moduli */
static int log2M_of(int s)
{
    garner_t g;
    garner_init(s, &g);
    for (int q = LIMBS - 1; q >= 0; q--)
        if (g.M[q]) return 32 * q + 31 - __builtin_clz(g.M[q]);
    return 0;
}

/* RN(X 2^E) for the integer X > 0 in L limbs, or 0 with *ok = 0 when the result would be
 * subnormal or overflow (the caller then takes the long accumulator). */
static double round_limbs(const uint32_t *X, int L, int E, int *ok)
{
    int top = L - 1;
    while (X[top] == 0) top--;
    const int T = 32 * top + 31 - __builtin_clz(X[top]);   /* highest set bit */
    /* W = bits T-63 .. T (zeros below bit 0), sticky = any set bit below T-63 */
    uint64_t W = 0;
    int sticky = 0;
    {
        const int lo = T - 63;                    /* bit position of W's lowest bit */
        for (int q = top; q >= 0; q--) {
            /* limb q covers bits 32q .. 32q+31 */
            const int base = 32 * q;
            if (base + 31 < lo) { if (X[q]) sticky = 1; continue; }
            for (int bit = 31; bit >= 0; bit--) {
                const int pos = base + bit;
                if (pos > T) continue;
                const uint64_t v = (X[q] >> bit) & 1u;
                if (pos >= lo) W |= v << (pos - lo);
                else if (v) sticky = 1;
            }
        }
    }
    uint64_t mant = W >> 11;                      /* 53 bits: T-52 .. T */
    const int rbit = (int)((W >> 10) & 1);
    sticky |= (W & 0x3ff) != 0;
    int sh = T - 52;                              /* X ~ mant 2^sh */
    if (T < 53) { mant = 0; for (int q = top; q >= 0; q--) mant = (mant << 32) | X[q]; sh = 0; }
    else if (rbit && (sticky || (mant & 1))) {
        mant++;
        if (mant == (1ull << 53)) { mant >>= 1; sh++; }
    }
    const int ex = sh + E + 52;                   /* result below 2^(ex+1) */
    if (ex < -1022 || ex > 1023) { *ok = 0; return 0.0; }
    *ok = 1;
    return ldexp((double)mant, sh + E);           /* exact: 53 bits, normal exponent */
}

/* x mod m in [0, m) for 0 <= x < 2^40 (binary64: the quotient from x*inv is within one) */
static inline int32_t mod_small(double x, double m, double inv)
{
    double r = x - m * floor(x * inv);
    r = r < 0.0 ? r + m : r;
    r = r >= m ? r - m : r;
    return (int32_t)r;
}

ozblas_status_t ozb_crt_cr_run(ozblas_handle_t h, const ozb_problem *pr, int nt)
{
#ifndef OZBLAS_HAVE_DNNL
    (void)h; (void)pr; (void)nt;
    return OZBLAS_STATUS_NOT_SUPPORTED;
#else
    if (!isfinite(pr->alpha)) return OZBLAS_STATUS_NOT_SUPPORTED;
    const double t0 = ozb_now();
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    crscale_t *ra = ozb_buf_get(h, OZB_BUF_WA, sizeof(crscale_t) * (size_t)m);
    crscale_t *rb = ozb_buf_get(h, OZB_BUF_WB, sizeof(crscale_t) * (size_t)n);
    if (!ra || !rb) return OZBLAS_STATUS_ALLOC_FAILED;
    cr_scales(&pr->a, m, k, ra, nt);
    cr_scales(&pr->b, n, k, rb, nt);
    int lbA = INT32_MIN, lbB = INT32_MIN;
    for (int64_t i = 0; i < m; i++) { if (!ra[i].ok) return OZBLAS_STATUS_NOT_SUPPORTED; if (!ra[i].zero && ra[i].lb > lbA) lbA = ra[i].lb; }
    for (int64_t j = 0; j < n; j++) { if (!rb[j].ok) return OZBLAS_STATUS_NOT_SUPPORTED; if (!rb[j].zero && rb[j].lb > lbB) lbB = rb[j].lb; }
    /* |C'| <= 2^(lbA + lbB) <= 2^(floor(log2 M) - 1) < M/2 */
    int s = 2;
    if (lbA != INT32_MIN && lbB != INT32_MIN) {
        while (s <= OZB_CRT_NMOD && log2M_of(s) - 1 < lbA + lbB) s++;
        if (s > OZB_CRT_NMOD) return OZBLAS_STATUS_NOT_SUPPORTED;
    }
    garner_t *G = malloc(sizeof *G);
    if (!G) return OZBLAS_STATUS_ALLOC_FAILED;
    garner_init(s, G);
    /* 2^E mod m_t for E up to SPAN_MAX + 1100 */
    enum { NE = SPAN_MAX + 1100 };
    uint8_t *p2 = malloc((size_t)s * NE);
    if (!p2) { free(G); return OZBLAS_STATUS_ALLOC_FAILED; }
    for (int t = 0; t < s; t++) {
        int v = 1 % ozb_crt_moduli[t];
        for (int E = 0; E < NE; E++) { p2[(size_t)t * NE + E] = (uint8_t)v; v = v * 2 % ozb_crt_moduli[t]; }
    }
    const double t1 = ozb_now();

    const int64_t kb = k < KBLOCK ? k : KBLOCK, nkb = (k + kb - 1) / kb;
    const size_t limit = ozb_workspace_limit(h);
    int64_t mb = m, nb = n;
    for (;;) {
        double bytes = (double)s * (double)(mb + nb) * (double)kb + (4.0 * s + 8.0) * (double)mb * (double)nb;
        if (bytes <= (double)limit || (mb == 1 && nb == 1)) break;
        if (mb >= nb) mb = (mb + 1) / 2; else nb = (nb + 1) / 2;
    }
    int8_t *resA = ozb_buf_get(h, OZB_BUF_SA, (size_t)s * (size_t)mb * (size_t)kb + 64);
    uint8_t *resB = ozb_buf_get(h, OZB_BUF_SB, (size_t)s * (size_t)nb * (size_t)kb + 64);
    int32_t *C32 = ozb_buf_get(h, OZB_BUF_P, sizeof(int32_t) * ((size_t)s + 1) * (size_t)mb * (size_t)nb + 64);
    double *dec = ozb_buf_get(h, OZB_BUF_SCRATCH, sizeof(double) * 3 * (size_t)kb * (size_t)nt + 64);
    if (!resA || !resB || !C32 || !dec) { free(G); free(p2); return OZBLAS_STATUS_ALLOC_FAILED; }
    const int L = log2M_of(s) / 32 + 2;          /* limbs of C' and M */
    double tres = 0.0, tmul = 0.0, tsum = 0.0;
    int64_t calls = 0, slow = 0;
    const int saved = omp_get_max_threads();
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0, ne = mbb * nbb;
            int32_t *Ctmp = C32 + (int64_t)s * ne;
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                double ta = ozb_now();
                /* residues in the row layout: resB[t][j][l] in [0, m), resA[t][i][l] centred.
                 * Each scaled entry |x| = (h 2^26 + l) 2^E exactly (h < 2^27, l < 2^26); per
                 * modulus, x mod m = ((h (2^26 mod m) + l) mod m) (2^E mod m) mod m. */
                #pragma omp parallel num_threads(nt) if(nt > 1 && (mbb + nbb) * kbb >= 65536)
                {
                    double *hh = dec + (size_t)omp_get_thread_num() * 3 * (size_t)kbb, *ll = hh + kbb;
                    int32_t *ee = (int32_t *)(ll + kbb);
                    #pragma omp for schedule(static)
                    for (int64_t r = 0; r < mbb + nbb; r++) {
                        const int isA = r < mbb;
                        const int64_t row = isA ? i0 + r : j0 + (r - mbb);
                        const crscale_t *sc = isA ? &ra[row] : &rb[row];
                        const ozb_view *v = isA ? &pr->a : &pr->b;
                        /* 2^ka as two normal factors: x 2^ka is an integer below 2^SPAN_MAX, exact */
                        const int k1 = sc->ka > 1000 ? 1000 : sc->ka < -1000 ? -1000 : sc->ka;
                        const double g1 = ozb_pow2(k1), g2 = ozb_pow2(sc->ka - k1);
                        for (int64_t l = 0; l < kbb; l++) {
                            const double x = sc->zero ? 0.0 : ozb_view_at(v, row, l0 + l) * g1 * g2;
                            double ax = fabs(x);
                            int E = ax == 0.0 ? 0 : ozb_ilogb(ax) - 52;
                            if (E < 0) E = 0;
                            const double M53 = ax * ozb_pow2(-E);   /* exact integer < 2^53 */
                            const double hi = trunc(M53 * 0x1p-26);
                            hh[l] = x < 0.0 ? -hi : hi;             /* the sign rides on both parts */
                            ll[l] = x < 0.0 ? -(M53 - hi * 0x1p26) : M53 - hi * 0x1p26;
                            ee[l] = E;
                        }
                        for (int t = 0; t < s; t++) {
                            const double mt = (double)ozb_crt_moduli[t], inv = 1.0 / mt;
                            const double p26 = (double)(((int64_t)1 << 26) % ozb_crt_moduli[t]);
                            const uint8_t *pt = p2 + (size_t)t * NE;
                            if (isA) {
                                int8_t *o = resA + ((int64_t)t * mbb + r) * kbb;
                                for (int64_t l = 0; l < kbb; l++) {
                                    /* |y| < 2^27 2^8 + 2^26: exact; y mod m then times 2^E mod m (< 2^16) */
                                    const double y = hh[l] * p26 + ll[l];
                                    const double ay = fabs(y);
                                    int32_t q = mod_small(ay, mt, inv);
                                    q = mod_small((double)q * (double)pt[ee[l]], mt, inv);
                                    if (y < 0.0 && q) q = (int32_t)mt - q;
                                    o[l] = (int8_t)(q > 127 ? q - (int32_t)mt : q);
                                }
                            } else {
                                uint8_t *o = resB + ((int64_t)t * nbb + (r - mbb)) * kbb;
                                for (int64_t l = 0; l < kbb; l++) {
                                    const double y = hh[l] * p26 + ll[l];
                                    const double ay = fabs(y);
                                    int32_t q = mod_small(ay, mt, inv);
                                    q = mod_small((double)q * (double)pt[ee[l]], mt, inv);
                                    if (y < 0.0 && q) q = (int32_t)mt - q;
                                    o[l] = (uint8_t)q;
                                }
                            }
                        }
                    }
                }
                double tb = ozb_now();
                tres += tb - ta;
                for (int t = 0; t < s; t++) {
                    int32_t *dst = kk == 0 ? C32 + (int64_t)t * ne : Ctmp;
                    const int32_t co = 0;
                    omp_set_num_threads(nt);
                    dnnl_gemm_u8s8s32('N', 'T', 'F', nbb, mbb, kbb, 1.0f, resB + (size_t)t * nbb * kbb, kbb, 0,
                                      resA + (size_t)t * mbb * kbb, kbb, 0, 0.0f, dst, mbb, &co);
                    omp_set_num_threads(saved);
                    calls++;
                    if (kk > 0) {
                        const int32_t mt = ozb_crt_moduli[t];
                        int32_t *acc = C32 + (int64_t)t * ne;
                        for (int64_t e = 0; e < ne; e++) {
                            int32_t a = acc[e] % mt, b = dst[e] % mt;
                            a += a < 0 ? mt : 0; b += b < 0 ? mt : 0;
                            acc[e] = a + b;
                        }
                    }
                }
                tmul += ozb_now() - tb;
            }
            double te = ozb_now();
            /* Garner's digits in place: C32[t] := v_t = ((c_t - sum_{u<t} v_u P[u][t]) inv_t) mod m_t,
             * all small integers (the sum stays below 48 * 2^16), loops across elements */
            int32_t *acc = Ctmp;
            for (int t = 0; t < s; t++) {
                const double mt = (double)ozb_crt_moduli[t], inv = 1.0 / mt, iv = (double)G->inv[t];
                int32_t *ct = C32 + (int64_t)t * ne;
                #pragma omp parallel num_threads(nt) if(nt > 1 && ne >= 16384)
                {
                    #pragma omp for schedule(static)
                    for (int64_t e = 0; e < ne; e++) acc[e] = 0;
                    for (int u = 0; u < t; u++) {
                        const int32_t P = G->P[u][t];
                        const int32_t *vu = C32 + (int64_t)u * ne;
                        #pragma omp for schedule(static)
                        for (int64_t e = 0; e < ne; e++) acc[e] += vu[e] * P;
                    }
                    #pragma omp for schedule(static)
                    for (int64_t e = 0; e < ne; e++) {
                        /* c_t - acc + 2^31-ish offset kept non-negative: c_t in (-2^31, 2^31) */
                        const int32_t c = mod_small(fabs((double)ct[e]), mt, inv);
                        const int32_t cs = ct[e] < 0 && c ? (int32_t)mt - c : c;
                        const int32_t a = mod_small((double)acc[e], mt, inv);
                        const int32_t d = cs - a < 0 ? cs - a + (int32_t)mt : cs - a;
                        ct[e] = mod_small((double)d * iv, mt, inv);
                    }
                }
            }
            /* C' by Horner in limbs, centred, then one rounding with alpha, beta */
            const int use_c = pr->beta != 0.0;
            int ea;
            const double fa = frexp(fabs(pr->alpha), &ea);
            const int alpha_pow2 = fa == 0.5;         /* |alpha| = 2^(ea-1) */
            #pragma omp parallel for num_threads(nt) schedule(static) reduction(+:slow) if(nt > 1 && ne >= 4096)
            for (int64_t e = 0; e < ne; e++) {
                const int64_t il = e % mbb, jl = e / mbb, gi = i0 + il, gj = j0 + jl;
                double *cij = pr->c + gi * pr->crs + gj * pr->ccs;
                const double cval = use_c ? *cij : 0.0;
                if (use_c && (!isfinite(pr->beta) || !isfinite(cval))) {
                    int fin;
                    *cij = ozb_special_combine(pr->alpha, OZB_CLASS_FINITE, 0, pr->beta, cval, use_c, &fin);
                    if (!fin) continue;
                }
                uint32_t X[LIMBS];
                memset(X, 0, sizeof X);
                for (int t = s - 1; t >= 0; t--) {    /* X = X m_t + v_t */
                    uint64_t carry = (uint64_t)(uint32_t)C32[(int64_t)t * ne + e];
                    for (int q = 0; q < L; q++) {
                        const uint64_t v = (uint64_t)X[q] * (uint64_t)ozb_crt_moduli[t] + carry;
                        X[q] = (uint32_t)v; carry = v >> 32;
                    }
                }
                /* centred: X >= M/2 (X > floor(M/2)) means X - M < 0 */
                int neg = 0;
                for (int q = L - 1; q >= 0; q--)
                    if (X[q] != G->H[q]) { neg = X[q] > G->H[q]; break; }
                if (neg) {                            /* X := M - X */
                    int64_t br = 0;
                    for (int q = 0; q < L; q++) {
                        int64_t v = (int64_t)G->M[q] - (int64_t)X[q] - br;
                        br = v < 0; X[q] = (uint32_t)(v + (br ? ((int64_t)1 << 32) : 0));
                    }
                }
                int zero = 1;
                for (int q = 0; q < L; q++) zero &= X[q] == 0;
                const int E = -(ra[gi].ka + rb[gj].ka);
                if (zero) { *cij = use_c ? (cval == 0.0 ? 0.0 : pr->beta * cval) : 0.0; continue; }
                int ok = 0;
                double r = 0.0;
                if (alpha_pow2 && (!use_c || cval == 0.0)) {
                    r = round_limbs(X, L, E + ea - 1, &ok);
                    if (ok) r = ((pr->alpha < 0) != neg) ? -r : r;
                }
                if (!ok) {                            /* the exact path: 52-bit chunks, long accumulator */
                    double P[8];
                    int32_t PE[8];
                    int np = 0;
                    for (int b = 0; b < 32 * L; b += 52) {
                        uint64_t chunk = 0;
                        for (int bit = 51; bit >= 0; bit--) {
                            const int pos = b + bit;
                            chunk = (chunk << 1) | (pos < 32 * L ? (X[pos >> 5] >> (pos & 31)) & 1u : 0u);
                        }
                        if (chunk) { P[np] = neg ? -(double)chunk : (double)chunk; PE[np++] = E + b; }
                    }
                    r = ozb_sum_exact(P, PE, np, pr->alpha, pr->beta, cval, use_c);
                    slow++;
                }
                *cij = r;
            }
            tsum += ozb_now() - te;
        }
    }
    free(G);
    free(p2);
    ozblas_info_t *info = &h->info;
    memset(info, 0, sizeof *info);
    info->mode = h->mode;
    info->summation = OZBLAS_SUM_NEARSUM;
    info->engine = h->engine;
    info->slices_a = info->slices_b = info->split_count = s;   /* moduli */
    info->gemm_calls = calls;
    info->slice_products = calls;
    info->gemm_flops = 2.0 * (double)m * (double)n * (double)k * s;
    info->blocks = ((m + mb - 1) / mb) * ((n + nb - 1) / nb);
    info->block_m = mb; info->block_n = nb; info->block_k = kb;
    info->exact_fallbacks = slow;
    info->seconds_split = (t1 - t0) + tres;
    info->seconds_multiply = tmul;
    info->seconds_sum = tsum;
    return OZBLAS_STATUS_SUCCESS;
#endif
}
