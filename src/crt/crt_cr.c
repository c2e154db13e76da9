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
#include "core/info.h"
#include "core/tiles.h"
#include "core/par.h"
#include "crt/crt.h"
#include "crt/crt_consts.h"
#include "crt/crt_gemm.h"
#include "core/backend.h"
#include "sum/special.h"
#include "sum/sum.h"
#include "sum/longacc.h"
#include "crt/crt_garner.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#define SPAN_MAX 400                /* bits per row beyond which the table cannot cover it */
#define OZB_CRT_SPANLIMBS 16        /* 26-bit limbs of a scaled entry (16 * 26 = 416 > SPAN_MAX) */

typedef struct { int32_t ka, lb, span; int ok, zero; } crscale_t;   /* lb: log2 bound of ||x 2^ka||_2; entries < 2^span */

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
    OZB_PARALLEL_FOR_IF(nt > 1 && rows * k >= OZB_PAR_WORK, nt, schedule(static),
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
        rs[i].ka = 0; rs[i].lb = 0; rs[i].span = 0;
        if (mx == 0 || !rs[i].ok) continue;
        double m; memcpy(&m, &mx, sizeof m);
        const int e = ozb_ilogb(m) + 1;               /* max < 2^e */
        if (e - lo > SPAN_MAX) { rs[i].ok = 0; continue; }
        double s2 = 0.0;
        double g[2];
        ozb_pow2_pair(-e, g);
        for (int64_t l = 0; l < k; l++) { const double x = ozb_view_at(v, i, l) * g[0] * g[1]; s2 += x * x; }
        const double n2 = sqrt(s2) * (1.0 + 0x1p-40);  /* >= ||x 2^-e||_2 */
        int c = ozb_ilogb(n2);
        if (n2 != ozb_pow2(c)) c++;
        rs[i].ka = -lo;
        rs[i].span = e - lo;
        rs[i].lb = (e - lo) + c;                       /* ||x 2^ka||_2 <= 2^lb */
    });
}

static inline int32_t mod_small(double x, double m, double inv) { return (int32_t)ozb_crt_mod(x, m, inv); }

/* Residues of the exactly scaled rows r0..r0+rows-1 over l0..l0+kb-1 (crt.c's layouts:
 * row layout out[(t*rows + i)*kb + l], column layout (v->rs == 1) out[(t*kb + l)*rows + i]).
 * Each integer |x| < 2^(26 nl) is cut into 26-bit limbs d_j (exact binary64 steps), and
 * x mod m = sum_j d_j (2^(26 j) mod m) mod m: below nl 2^34 < 2^40, exact, vectorisable.
 * uns: [0, m) as uint8 (op(B)); else centred into [-128, 127] as int8 (op(A)). */
OZB_CLONES static void limb_residues(const double *x, int64_t n, int nl, int s, const double *F, int uns,
                                     uint8_t *out, int64_t tstride, double *D)
{
    double *r = D + (int64_t)nl * n, *y = r + n;     /* remainders, then the sums */
    for (int64_t i = 0; i < n; i++) r[i] = fabs(x[i]);
    for (int j = nl - 1; j >= 0; j--) {
        const double w = ozb_pow2(26 * j), iw = ozb_pow2(-26 * j);
        double *Dj = D + (int64_t)j * n;
        for (int64_t i = 0; i < n; i++) {
            const double d = trunc(r[i] * iw);
            Dj[i] = d;
            r[i] -= d * w;
        }
    }
    for (int t = 0; t < s; t++) {
        const double mt = (double)ozb_crt_moduli[t], inv = 1.0 / mt;
        const double *Ft = F + (int64_t)t * 16;
        uint8_t *o = out + t * tstride;
        for (int64_t i = 0; i < n; i++) y[i] = 0.0;
        for (int j = 0; j < nl; j++) {
            const double f = Ft[j], *Dj = D + (int64_t)j * n;
            for (int64_t i = 0; i < n; i++) y[i] += Dj[i] * f;
        }
        const double top = uns ? 1e300 : 127.0;          /* centring threshold (none for uint8) */
        for (int64_t i = 0; i < n; i++) {
            double q = ozb_crt_mod(y[i], mt, inv);
            q = (x[i] < 0.0 && q != 0.0) ? mt - q : q;   /* x mod m for negative x */
            q = q > top ? q - mt : q;
            o[i] = (uint8_t)(int32_t)q;
        }
    }
}

static int cr_residues(const ozb_view *v, const crscale_t *rs, int64_t r0, int64_t rows, int64_t l0, int64_t kb,
                       int s, int nl, const double *F, int uns, uint8_t *out, double *tmp, int nt)
{
    const int col = v->rs == 1 && v->cs != 1 && rows > 1;
    const int64_t len = col ? rows : kb;
    OZB_PARALLEL_IF(nt > 1 && rows * kb >= OZB_PAR_WORK, num_threads(nt),
    {
        double *x = tmp + (size_t)omp_get_thread_num() * (size_t)(nl + 5) * (size_t)len, *D = x + len;
        double *g1 = D + (int64_t)(nl + 2) * len, *g2 = g1 + len;
        if (col) {
            for (int64_t i = 0; i < rows; i++) {
                const crscale_t *sc = &rs[r0 + i];
                double g[2] = {0.0, 0.0};
                if (!sc->zero) ozb_pow2_pair(sc->ka, g);
                g1[i] = g[0];
                g2[i] = g[1];
            }
            OZB_PRAGMA(omp for schedule(static))
            for (int64_t l = 0; l < kb; l++) {
                const double *c = v->p + r0 + (l0 + l) * v->cs;
                for (int64_t i = 0; i < rows; i++) x[i] = c[i] * g1[i] * g2[i];   /* exact integers */
                limb_residues(x, rows, nl, s, F, uns, out + l * rows, kb * rows, D);
            }
        } else {
            OZB_PRAGMA(omp for schedule(static))
            for (int64_t i = 0; i < rows; i++) {
                const crscale_t *sc = &rs[r0 + i];
                double f[2] = {0.0, 0.0};
                if (!sc->zero) ozb_pow2_pair(sc->ka, f);
                const double f1 = f[0], f2 = f[1];
                const double *src = v->p + (r0 + i) * v->rs + l0 * v->cs;
                for (int64_t l = 0; l < kb; l++) x[l] = src[l * v->cs] * f1 * f2;
                limb_residues(x, kb, nl, s, F, uns, out + i * kb, rows * kb, D);
            }
        }
    });
    return col;
}

/* Garner's mixed-radix digits of w elements (AVX-512 clone where the CPU has it):
 * V[t*ld + q] = ((c_t - sum_{u<t} v_u P[u][t]) inv_t) mod m_t with c_t = C[t*ne + q] mod m_t;
 * small integers throughout (the sum stays below 48 * 2^16), exact in any vector width. */
OZB_CLONES static void garner_digits(const int32_t *C, int64_t ne, int64_t w, const garner_t *G, int32_t *V,
                                     int32_t *acc, int64_t ld)
{
    for (int t = 0; t < G->s; t++) {
        const double mt = (double)ozb_crt_moduli[t], inv = 1.0 / mt, iv = (double)G->inv[t];
        for (int64_t q = 0; q < w; q++) acc[q] = 0;
        for (int u = 0; u < t; u++) {
            const int32_t P = G->P[u][t], *vu = V + (int64_t)u * ld;
            for (int64_t q = 0; q < w; q++) acc[q] += vu[q] * P;
        }
        const int32_t *ct = C + (int64_t)t * ne;
        int32_t *vt = V + (int64_t)t * ld;
        for (int64_t q = 0; q < w; q++) {
            const int32_t c = mod_small(fabs((double)ct[q]), mt, inv);
            const int32_t cs = ct[q] < 0 && c ? (int32_t)mt - c : c;
            const int32_t a = mod_small((double)acc[q], mt, inv);
            const int32_t d = cs - a < 0 ? cs - a + (int32_t)mt : cs - a;
            vt[q] = mod_small((double)d * iv, mt, inv);
        }
    }
}

ozblas_status_t ozb_crt_cr_run(ozblas_handle_t h, const ozb_problem *pr, int nt)
{
    /* the residue GEMMs need an exact INT8 product: oneDNN on the CPU, cuBLAS on a device */
    if (!ozb_format_for(h, OZBLAS_ENGINE_INT8, NULL)) return OZBLAS_STATUS_NOT_SUPPORTED;
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
        while (s <= OZB_CRT_NMOD && ozb_log2M_of(s) - 1 < lbA + lbB) s++;
        if (s > OZB_CRT_NMOD) return OZBLAS_STATUS_NOT_SUPPORTED;
    }
    garner_t *G = malloc(sizeof *G);
    if (!G) return OZBLAS_STATUS_ALLOC_FAILED;
    ozb_garner_init(s, G);
    const double t1 = ozb_now();

    const int64_t kb = k < OZB_CRT_KBLOCK ? k : OZB_CRT_KBLOCK, nkb = (k + kb - 1) / kb;
    const size_t limit = ozb_workspace_limit(h);
    int64_t mb, nb;
    ozb_tiles(limit, m, n, (ozb_tile_cost){(double)s * (double)kb, (double)s * (double)kb, 4.0 * s + 8.0, 0.0, 0.0}, &mb, &nb);
    int8_t *resA = ozb_buf_get(h, OZB_BUF_SA, (size_t)s * (size_t)mb * (size_t)kb + 64);
    uint8_t *resB = ozb_buf_get(h, OZB_BUF_SB, (size_t)s * (size_t)nb * (size_t)kb + 64);
    int32_t *C32 = ozb_buf_get(h, OZB_BUF_P, sizeof(int32_t) * ((size_t)s + 1) * (size_t)mb * (size_t)nb + 64);
    /* limbs per entry: the largest span of either side, in 26-bit limbs (at most 16) */
    int spanA = 1, spanB = 1;
    for (int64_t i = 0; i < m; i++) if (!ra[i].zero && ra[i].span > spanA) spanA = ra[i].span;
    for (int64_t j = 0; j < n; j++) if (!rb[j].zero && rb[j].span > spanB) spanB = rb[j].span;
    const int nlA = (spanA + 25) / 26, nlB = (spanB + 25) / 26;
    const int64_t dlen = kb > (mb > nb ? mb : nb) ? kb : (mb > nb ? mb : nb);
    double *dec = ozb_buf_get(h, OZB_BUF_SCRATCH, sizeof(double) * (size_t)(OZB_CRT_SPANLIMBS + 5) * (size_t)dlen * (size_t)nt + 64);
    double F[OZB_CRT_NMOD * 16];                  /* 2^(26 j) mod m_t */
    for (int t = 0; t < s; t++) {
        int64_t f = 1;
        for (int j = 0; j < 16; j++) { F[t * 16 + j] = (double)f; f = (f << 26) % ozb_crt_moduli[t]; }
    }
    if (!resA || !resB || !C32 || !dec) { free(G); return OZBLAS_STATUS_ALLOC_FAILED; }
    const int lm = ozb_log2M_of(s), L = lm / 64 + 2 < LIMBS ? lm / 64 + 2 : LIMBS;   /* limbs of C' and M */
    int32_t *vbuf = ozb_buf_get(h, OZB_BUF_TERMS, sizeof(int32_t) * (size_t)(s + 1) * 256 * (size_t)nt + 64);
    if (!vbuf) { free(G); return OZBLAS_STATUS_ALLOC_FAILED; }
    /* Horner groups of up to seven moduli, from the top: t = ghi[g] .. glo[g], product gM[g] < 2^56 */
    int glo[OZB_CRT_NMOD], ghi[OZB_CRT_NMOD], ngroups = 0;
    uint64_t gM[OZB_CRT_NMOD];
    for (int t = s - 1; t >= 0; ngroups++) {
        ghi[ngroups] = t;
        gM[ngroups] = 1;
        for (int c = 0; c < 7 && t >= 0; c++, t--) gM[ngroups] *= (uint64_t)ozb_crt_moduli[t];
        glo[ngroups] = t + 1;
    }
    /* limbs in use after group g: X < product of the groups so far < 2^(56 (g+1)) */
    int glimbs[OZB_CRT_NMOD];
    for (int g = 0; g < ngroups; g++) glimbs[g] = (56 * (g + 1)) / 64 + 1 < L ? (56 * (g + 1)) / 64 + 1 : L;
    double tres = 0.0, tmul = 0.0, tsum = 0.0;
    int64_t calls = 0, slow = 0;
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0, ne = mbb * nbb;
            int32_t *Ctmp = C32 + (int64_t)s * ne;
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                double ta = ozb_now();
                const int colB = cr_residues(&pr->b, rb, j0, nbb, l0, kbb, s, nlB, F, 1, resB, dec, nt);
                const int colA = cr_residues(&pr->a, ra, i0, mbb, l0, kbb, s, nlA, F, 0, (uint8_t *)resA, dec, nt);
                double tb = ozb_now();
                tres += tb - ta;
                for (int t = 0; t < s; t++) {
                    int32_t *dst = kk == 0 ? C32 + (int64_t)t * ne : Ctmp;
                    if (h->be->crt_gemm(h, resB + (size_t)t * nbb * kbb, colB, (const int8_t *)resA + (size_t)t * mbb * kbb, colA,
                                        mbb, nbb, kbb, dst, ozb_crt_moduli[t], nt)) { free(G); return ozb_crt_tile_failed(h, i0, j0); }
                    calls++;
                    if (kk > 0) ozb_crt_fold(C32 + (int64_t)t * ne, dst, ne, ozb_crt_moduli[t]);   /* a later k-block, modulo m_t */
                }
                tmul += ozb_now() - tb;
            }
            double te = ozb_now();
            /* Per chunk of elements (in cache): Garner's mixed-radix digits
             * v_t = ((c_t - sum_{u<t} v_u P[u][t]) inv_t) mod m_t (small integers: the sum stays
             * below 48 * 2^16), then C' = v_0 + m_0 (v_1 + m_1 (...)) by Horner in 64-bit limbs,
             * seven moduli per big-integer step (their product is below 2^56), centred, and
             * one rounding of alpha 2^E C' + beta c. */
            const int use_c = pr->beta != 0.0;
            int ea;
            const double fa = frexp(fabs(pr->alpha), &ea);
            const int alpha_pow2 = fa == 0.5;         /* |alpha| = 2^(ea-1) */
            const int64_t CH = 256, nch = (ne + CH - 1) / CH;
            OZB_PARALLEL_IF(nt > 1 && ne >= 4096, num_threads(nt) reduction(+:slow),
            {
                int32_t *V = vbuf + (size_t)omp_get_thread_num() * (size_t)(s + 1) * (size_t)CH, *acc = V + (int64_t)s * CH;
                OZB_PRAGMA(omp for schedule(static))
                for (int64_t ch = 0; ch < nch; ch++) {
                    const int64_t e0 = ch * CH, w = e0 + CH < ne ? CH : ne - e0;
                    garner_digits(C32 + e0, ne, w, G, V, acc, CH);
                    for (int64_t q = 0; q < w; q++) {
                        const int64_t e = e0 + q;
                        const int64_t il = e % mbb, jl = e / mbb, gi = i0 + il, gj = j0 + jl;
                        double *cij = pr->c + gi * pr->crs + gj * pr->ccs;
                        const double cval = use_c ? *cij : 0.0;
                        if (use_c && (!isfinite(pr->beta) || !isfinite(cval))) {
                            int fin;
                            *cij = ozb_special_combine(pr->alpha, OZB_CLASS_FINITE, 0, pr->beta, cval, use_c, &fin);
                            if (!fin) continue;
                        }
                        uint64_t X[LIMBS];
                        memset(X, 0, sizeof X);
                        for (int g = 0; g < ngroups; g++) {    /* from the top group down */
                            uint64_t W = 0;
                            for (int t = ghi[g]; t >= glo[g]; t--) W = W * (uint64_t)ozb_crt_moduli[t] + (uint64_t)V[(int64_t)t * CH + q];
                            ozb_u128 carry = W;
                            for (int l = 0; l < glimbs[g]; l++) {
                                const ozb_u128 v = (ozb_u128)X[l] * gM[g] + carry;
                                X[l] = (uint64_t)v; carry = v >> 64;
                            }
                        }
                        /* centred: X > floor(M/2) means C' = X - M < 0 */
                        int neg = 0;
                        for (int l = L - 1; l >= 0; l--)
                            if (X[l] != G->H[l]) { neg = X[l] > G->H[l]; break; }
                        if (neg) {                    /* X := M - X */
                            uint64_t br = 0;
                            for (int l = 0; l < L; l++) {
                                const uint64_t mq = G->M[l], xq = X[l];
                                const uint64_t d = mq - xq - br;
                                br = (mq < xq) || (mq - xq < br);
                                X[l] = d;
                            }
                        }
                        int zero = 1;
                        for (int l = 0; l < L; l++) zero &= X[l] == 0;
                        const int E = -(ra[gi].ka + rb[gj].ka);
                        if (zero) { *cij = use_c ? (cval == 0.0 ? 0.0 : pr->beta * cval) : 0.0; continue; }
                        int ok = 0;
                        double r = 0.0;
                        if (alpha_pow2 && (!use_c || cval == 0.0)) {
                            r = ozb_round_limbs(X, L, E + ea - 1, &ok);
                            if (ok) r = ((pr->alpha < 0) != neg) ? -r : r;
                        }
                        if (!ok) {                    /* the exact path: 52-bit chunks, long accumulator */
                            double P[8];
                            int32_t PE[8];
                            int np = 0;
                            for (int b = 0; b < 64 * L; b += 52) {   /* bits b .. b+51 */
                                const int l = b >> 6, o = b & 63;
                                uint64_t chunk = X[l] >> o;
                                if (o > 12 && l + 1 < L) chunk |= X[l + 1] << (64 - o);
                                chunk &= (1ull << 52) - 1;
                                if (chunk) { P[np] = neg ? -(double)chunk : (double)chunk; PE[np++] = E + b; }
                            }
                            r = ozb_sum_exact(P, PE, np, pr->alpha, pr->beta, cval, use_c);
                            slow++;
                        }
                        *cij = r;
                    }
                }
            });
            tsum += ozb_now() - te;
        }
    }
    free(G);
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_NEARSUM, 0);
    ozb_info_crt(info, s, m, n, k, calls, calls, (t1 - t0) + tres, tmul, tsum);
    ozb_info_tiles(info, m, n, mb, nb, kb);
    info->exact_fallbacks = slow;
    return OZBLAS_STATUS_SUCCESS;
}
