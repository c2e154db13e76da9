/* Ozaki scheme II with INT8 residues (seed 002, Algorithm 1), on the CPU through oneDNN.
 *
 * 1. Scaling.  Row i of op(A) gets a power of two 2^ka_i, column j of op(B) 2^kb_j, and
 *    A'_il = trunc(a_il 2^ka_i), B'_jl = trunc(b_jl 2^kb_j) (integers, exact in binary64 as
 *    long as they stay below 2^53, and exact above it too: larger doubles are integers).
 *    Fast scaling by Cauchy-Schwarz: ka_i = alpha - c_i with 2^(c_i) >= ||a_i||_2 (computed
 *    with a rounding margin, the row prescaled by its maximum so that the choice depends on
 *    exponents only: scaling A by 2^p shifts every ka_i by exactly -p and the result by 2^p).
 *    Then |A'_i . B'_j| <= ||A'_i|| ||B'_j|| <= 2^(2 alpha), and 2 alpha + 2 <= floor(log2 M) - 1
 *    keeps every product strictly inside (-M/4, M/4): the residues determine it.
 * 2. Residues r = A' mod m_t in [-128, 127] (int8), by two exact FMA reductions.
 * 3. One exact INT8 GEMM per modulus (|r| <= 128, |r r| <= 2^14, k < 2^17 per block: int32).
 * 4. Reconstruction: c_t = C_t mod m_t in [0, m_t); X1 = sum c_t F1_t, X2 = sum c_t F2_t
 *    (int64, exact: each term < 2^52, at most 20 terms), X3 = sum c_t f3_t (binary64);
 *    frac(sum_t c_t y_t / m_t) = ((X1 mod 2^44) 2^44 + X2 + X3) 2^-88 mod 1 (crt_consts.h),
 *    centred, times M in double-double, rounded once: C' with a relative error below 2^-52.
 * 5. C = alpha 2^-(ka_i + kb_j) C' + beta C, in that fixed order.
 * Every step is a fixed function of the element's row and column: reproducible across
 * threads, blocking and workspace limits.
 *
 * Accuracy of the truncation: a 2^ka = A' + d with |d| < 1, so for element (i, j)
 *   |C_exact - 2^-(ka+kb) C'| <= 2^-(ka+kb) (||A'_i||_1 + ||B'_j||_1 + k)
 *                             <= ||a_i||_1 2^-kb_j + ||b_j||_1 2^-ka_i + k 2^-(ka_i+kb_j).
 * DOUBLE mode takes the fewest moduli for which this plus the reconstruction error, summed
 * over the row, is below Algorithm 3's row bound 2 sqrt(k) u (|A||B|e)_i for every row
 * (canonical sums: the count is a function of the data only).
 *
 * Compiled with -ffp-contract=off; fma() is used explicitly where exact. */
#include "crt/crt.h"
#include "crt/crt_consts.h"
#include "core/special.h"
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#ifdef OZBLAS_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#define E_ZERO INT32_MIN
#define E_BAD  INT32_MAX
#define KBLOCK ((int64_t)1 << 16)     /* k per exact int32 GEMM: 2^16 * 2^14 = 2^30 < 2^31 */

/* Per row (of op(A), or column of op(B)): e with max|x| < 2^e, c with 2^c >= ||x||_2,
 * and ||x||_1 2^-e (rounded up by the caller's margin). */
typedef struct { int32_t e, c; double l1; } rowscale_t;

/* 2^p * x for integer p, exact when the result is a normal double or when x * 2^p is
 * below 1 in magnitude (only its truncation, 0, is used); p may be far outside [-1022, 1023]. */
static double scale2(double x, int p)
{
    while (p > 1000) { x *= 0x1p1000; p -= 1000; }
    while (p < -1000) { x *= 0x1p-1000; p += 1000; }
    return x * ozb_pow2(p);
}

static void row_scales(const ozb_view *v, int64_t rows, int64_t k, rowscale_t *rs, int nt)
{
    #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && rows * k >= 65536)
    for (int64_t i = 0; i < rows; i++) {
        int64_t mx = 0;
        for (int64_t l = 0; l < k; l++) {
            int64_t b = (int64_t)(ozb_bits(ozb_view_at(v, i, l)) & 0x7fffffffffffffffull);
            mx = b > mx ? b : mx;
        }
        if (mx == 0) { rs[i].e = E_ZERO; rs[i].c = 0; rs[i].l1 = 0.0; continue; }
        if ((uint64_t)mx >= 0x7ff0000000000000ull) { rs[i].e = E_BAD; rs[i].c = 0; rs[i].l1 = 0.0; continue; }
        double m; memcpy(&m, &mx, sizeof m);
        const int e = ozb_ilogb(m) + 1;
        double s2 = 0.0, s1 = 0.0;
        for (int64_t l = 0; l < k; l++) {            /* |x 2^-e| < 1: no overflow, order fixed */
            const double x = scale2(ozb_view_at(v, i, l), -e);
            s2 += x * x;
            s1 += fabs(x);
        }
        /* ||x 2^-e||_2 <= sqrt(s2 (1 + (k+1) 2^-52)) (1 + 2^-52): margin 2^-40 covers k < 2^30 */
        const double n2 = sqrt(s2) * (1.0 + 0x1p-40);
        int c = ozb_ilogb(n2);
        if (n2 != ozb_pow2(c)) c++;                  /* 2^c >= n2 */
        rs[i].e = e;
        rs[i].c = e + c;
        rs[i].l1 = s1 * (1.0 + 0x1p-40);
    }
}

/* r = x mod m in [-128, 127] for an integer-valued |x| < 2^100: two exact FMA reductions
 * (the first quotient is within |x| 2^-52 + 1 of x/m, so the first remainder is an integer
 * below 2^53 in magnitude, representable: fma returns it exactly). */
static inline double residue(double x, double m, double inv)
{
    double q = nearbyint(x * inv);
    double r = fma(-m, q, x);
    q = nearbyint(r * inv);
    r = fma(-m, q, r);
    if (r > 127.0) r -= m;
    if (r < -128.0) r += m;
    return r;
}

/* Residues of the scaled rows r0..r0+rows-1 over l0..l0+kb-1: out[(t*rows + i)*kb + l] */
static void make_residues(const ozb_view *v, const rowscale_t *rs, int64_t r0, int64_t rows, int64_t l0,
                          int64_t kb, int alpha, int s, int8_t *out, double *tmp, int nt)
{
    #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && rows * kb >= 65536)
    for (int64_t i = 0; i < rows; i++) {
        const rowscale_t *ri = &rs[r0 + i];
        double *x = tmp + (int64_t)omp_get_thread_num() * kb;
        const int usable = ri->e != E_ZERO && ri->e != E_BAD;
        const int ka = alpha - ri->c;
        for (int64_t l = 0; l < kb; l++) x[l] = usable ? trunc(scale2(ozb_view_at(v, r0 + i, l0 + l), ka)) : 0.0;
        for (int t = 0; t < s; t++) {
            const double m = (double)ozb_crt_moduli[t], inv = 1.0 / m;
            int8_t *o = out + ((int64_t)t * rows + i) * kb;
            for (int64_t l = 0; l < kb; l++) o[l] = (int8_t)(int)residue(x[l], m, inv);
        }
    }
}

/* DOUBLE mode: the fewest moduli whose truncation and reconstruction errors, summed over
 * each row, stay below Algorithm 3's row bound; 0 when even OZB_CRT_MAXMOD do not. */
static int choose_moduli(const ozb_problem *pr, const rowscale_t *ra, const rowscale_t *rb, int nt, double *v)
{
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    /* B's quantities relative to 2^EB, EB its largest column exponent */
    int32_t EB = INT32_MIN;
    for (int64_t j = 0; j < n; j++) if (rb[j].e != E_ZERO && rb[j].e != E_BAD && rb[j].e > EB) EB = rb[j].e;
    if (EB == INT32_MIN) return 2;                  /* op(B) is zero: every moduli count is exact */
    double SB1 = 0.0, SBl1 = 0.0;
    for (int64_t j = 0; j < n; j++) {
        if (rb[j].e == E_ZERO || rb[j].e == E_BAD) continue;
        SB1 += scale2(1.0, rb[j].c - EB);
        SBl1 += scale2(rb[j].l1, rb[j].e - EB);
    }
    SB1 += (double)n * 0x1p-1000;                   /* what underflowed above, rounded up */
    SBl1 += (double)n * 0x1p-1000;
    /* v_l = sum_j |b_jl| 2^-EB (the weights of Algorithm 3), fixed order */
    for (int64_t l = 0; l < k; l++) v[l] = 0.0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k; l++) {
            const double b = fabs(ozb_view_at(&pr->b, j, l));
            v[l] += b <= DBL_MAX ? scale2(b, -EB) : 0.0;
        }
    double a2s[OZB_CRT_MAXMOD + 1];                 /* 2^-alpha for s moduli */
    for (int q = 2; q <= OZB_CRT_MAXMOD; q++) {
        ozb_crt_consts cs;
        ozb_crt_consts_init(q, &cs);
        a2s[q] = ozb_pow2(-cs.alpha);
    }
    int need = 2;
    #pragma omp parallel for num_threads(nt) schedule(static) reduction(max:need) if(nt > 1 && m * k >= 65536)
    for (int64_t i = 0; i < m; i++) {
        const rowscale_t *r = &ra[i];
        if (r->e == E_ZERO || r->e == E_BAD) continue;
        double dot = 0.0;                           /* (|A||B|e)_i 2^-(e_i + EB) */
        for (int64_t l = 0; l < k; l++) dot += fabs(scale2(ozb_view_at(&pr->a, i, l), -r->e)) * v[l];
        const double rhs = 2.0 * sqrt((double)k) * 0x1p-53 * dot * (1.0 - 0x1p-40);
        const double twoc = scale2(1.0, r->c - r->e);
        int s = 2;
        for (; s <= OZB_CRT_MAXMOD; s++) {
            const double a2 = a2s[s];
            const double trunc_err = a2 * (r->l1 * SB1 + twoc * SBl1) + (double)k * a2 * a2 * twoc * SB1;
            const double recon_err = 0x1p-52 * twoc * SB1;
            if (trunc_err + recon_err <= rhs) break;
        }
        need = s > need ? s : need;
    }
    return need > OZB_CRT_MAXMOD ? 0 : need;
}

ozblas_status_t ozb_crt_run(ozblas_handle_t h, const ozb_problem *pr, int nt)
{
#ifndef OZBLAS_HAVE_DNNL
    (void)h; (void)pr; (void)nt;
    return OZBLAS_STATUS_NOT_SUPPORTED;
#else
    if (!isfinite(pr->alpha)) return OZBLAS_STATUS_NOT_SUPPORTED;   /* needs the exact sign */
    const double t0 = ozb_now();
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    rowscale_t *ra = ozb_buf_get(h, OZB_BUF_WA, sizeof(rowscale_t) * (size_t)m);
    rowscale_t *rb = ozb_buf_get(h, OZB_BUF_WB, sizeof(rowscale_t) * (size_t)n);
    if (!ra || !rb) return OZBLAS_STATUS_ALLOC_FAILED;
    row_scales(&pr->a, m, k, ra, nt);
    row_scales(&pr->b, n, k, rb, nt);
    int s;
    if (h->run_mode == OZBLAS_MODE_FIXED) {
        s = h->split_count < 2 ? 2 : h->split_count > OZB_CRT_MAXMOD ? OZB_CRT_MAXMOD : h->split_count;
    } else {
        double *v = ozb_buf_get(h, OZB_BUF_CRIT, sizeof(double) * (size_t)k);
        if (!v) return OZBLAS_STATUS_ALLOC_FAILED;
        s = choose_moduli(pr, ra, rb, nt, v);
        if (s == 0) return OZBLAS_STATUS_NOT_SUPPORTED;
    }
    ozb_crt_consts cs;
    ozb_crt_consts_init(s, &cs);
    const double t1 = ozb_now();

    /* tiles mb x nb under the workspace limit: residues (s (mb + nb) kb bytes), int32 block,
     * X1, X2, X3 (28 bytes per element), per-thread row buffers */
    const int64_t kb = k < KBLOCK ? k : KBLOCK, nkb = (k + kb - 1) / kb;
    const size_t limit = ozb_workspace_limit(h);
    int64_t mb = m, nb = n;
    for (;;) {
        double bytes = (double)s * (double)(mb + nb) * (double)kb + 32.0 * (double)mb * (double)nb
                     + 8.0 * (double)kb * nt + (nkb > 1 ? 4.0 * (double)mb * (double)nb : 0.0);
        if (bytes <= (double)limit || (mb == 1 && nb == 1)) break;
        if (mb >= nb) mb = (mb + 1) / 2; else nb = (nb + 1) / 2;
    }
    int8_t *resA = ozb_buf_get(h, OZB_BUF_SA, (size_t)s * (size_t)mb * (size_t)kb + 64);
    int8_t *resB = ozb_buf_get(h, OZB_BUF_SB, (size_t)s * (size_t)nb * (size_t)kb + 64);
    char *acc = ozb_buf_get(h, OZB_BUF_P, (size_t)mb * (size_t)nb * (2 * sizeof(int64_t) + sizeof(double) + 2 * sizeof(int32_t)) + 256);
    double *tmp = ozb_buf_get(h, OZB_BUF_SCRATCH, sizeof(double) * (size_t)kb * (size_t)nt);
    if (!resA || !resB || !acc || !tmp) return OZBLAS_STATUS_ALLOC_FAILED;
    int64_t *X1 = (int64_t *)acc, *X2 = X1 + mb * nb;
    double *X3 = (double *)(X2 + mb * nb);
    int32_t *C32 = (int32_t *)(X3 + mb * nb), *Csum = C32 + mb * nb;
    double tres = 0.0, tmul = 0.0, tsum = 0.0;
    int64_t calls = 0;
    const int saved = omp_get_max_threads();
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0, ne = mbb * nbb;
            memset(X1, 0, sizeof(int64_t) * (size_t)ne);
            memset(X2, 0, sizeof(int64_t) * (size_t)ne);
            memset(X3, 0, sizeof(double) * (size_t)ne);
            for (int t = 0; t < s; t++) {
                const int32_t mt = ozb_crt_moduli[t];
                const double inv = 1.0 / (double)mt;
                if (nkb > 1) memset(Csum, 0, sizeof(int32_t) * (size_t)ne);
                for (int64_t kk = 0; kk < nkb; kk++) {
                    const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                    double ta = ozb_now();
                    if (t == 0 || nkb > 1) {    /* all moduli of a k-block at once (one pass over the data) */
                        make_residues(&pr->b, rb, j0, nbb, l0, kbb, cs.alpha, s, resB, tmp, nt);
                        make_residues(&pr->a, ra, i0, mbb, l0, kbb, cs.alpha, s, resA, tmp, nt);
                    }
                    double tb = ozb_now();
                    omp_set_num_threads(nt);
                    const int32_t co = 0;
                    /* row-major: C32^T (nbb x mbb) = resB_t (nbb x kbb) resA_t^T, i.e. column-major mbb x nbb */
                    dnnl_gemm_s8s8s32('N', 'T', 'F', nbb, mbb, kbb, 1.0f, resB + (size_t)t * nbb * kbb, kbb, 0,
                                      resA + (size_t)t * mbb * kbb, kbb, 0, 0.0f, C32, mbb, &co);
                    omp_set_num_threads(saved);
                    calls++;
                    double tc = ozb_now();
                    tres += tb - ta; tmul += tc - tb;
                    if (nkb > 1) {
                        #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && ne >= 65536)
                        for (int64_t e = 0; e < ne; e++) {
                            int32_t c = C32[e] % mt;
                            c += c < 0 ? mt : 0;
                            Csum[e] += c;                 /* < 2^8 * nkb: no overflow for k < 2^39 */
                        }
                    }
                }
                double td = ozb_now();
                const int32_t *src = nkb > 1 ? Csum : C32;
                const int64_t F1 = cs.F1[t], F2 = cs.F2[t];
                const double f3 = cs.f3[t];
                #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && ne >= 65536)
                for (int64_t e = 0; e < ne; e++) {
                    /* c = src mod m in [0, m): the quotient from binary64 is within 1 */
                    const int32_t x = src[e];
                    int32_t c = x - mt * (int32_t)floor((double)x * inv);
                    c += c < 0 ? mt : 0;
                    c -= c >= mt ? mt : 0;
                    X1[e] += c * F1;
                    X2[e] += c * F2;
                    X3[e] += (double)c * f3;
                }
                tsum += ozb_now() - td;
            }
            /* reconstruction and the output */
            double te = ozb_now();
            const double Mh = cs.Mh, Ml = cs.Ml;
            const int use_c = pr->beta != 0.0;
            #pragma omp parallel for num_threads(nt) schedule(static) if(nt > 1 && ne >= 4096)
            for (int64_t e = 0; e < ne; e++) {
                const int64_t il = e % mbb, jl = e / mbb, gi = i0 + il, gj = j0 + jl;
                double *cij = pr->c + gi * pr->crs + gj * pr->ccs;
                const double cval = use_c ? *cij : 0.0;
                const rowscale_t *ri = &ra[gi], *rj = &rb[gj];
                if (ri->e == E_BAD || rj->e == E_BAD || (use_c && (!isfinite(pr->beta) || !isfinite(cval)))) {
                    int sclass = (ri->e == E_BAD || rj->e == E_BAD) ? ozb_dot_class(&pr->a, gi, &pr->b, gj, k) : OZB_CLASS_FINITE;
                    int fin;
                    double r = ozb_special_combine(pr->alpha, sclass, 0, pr->beta, cval, use_c, &fin);
                    if (!fin || sclass != OZB_CLASS_FINITE) { *cij = r; continue; }
                    /* finite: the computed value below (beta*c finite) */
                }
                double val = 0.0;
                if (ri->e != E_ZERO && rj->e != E_ZERO && ri->e != E_BAD && rj->e != E_BAD) {
                    const unsigned __int128 mask44 = ((unsigned __int128)1 << 44) - 1, mask88 = ((unsigned __int128)1 << 88) - 1;
                    unsigned __int128 g = ((((unsigned __int128)(uint64_t)X1[e]) & mask44) << 44) + (unsigned __int128)(uint64_t)X2[e];
                    g &= mask88;
                    __int128 gs = (__int128)g;
                    if (g >= ((unsigned __int128)1 << 87)) gs -= (__int128)1 << 88;
                    /* (gs + X3) 2^-88 M, rounded once: gs = gh + gl exactly, then a double-double
                     * product with M (error ~2^-100 relative) and one rounding */
                    const double gh = (double)gs, gl = (double)(gs - (__int128)gh) + X3[e];
                    const double ph = gh * Mh, pe = fma(gh, Mh, -ph);
                    const double y = ph + (pe + (gh * Ml + gl * Mh));
                    val = scale2(y, -88 - (cs.alpha - ri->c) - (cs.alpha - rj->c));
                }
                double r;
                if (val == 0.0) r = use_c ? (cval == 0.0 ? 0.0 : pr->beta * cval) : 0.0;
                else {
                    r = pr->alpha * val;
                    if (use_c) r = r + pr->beta * cval;
                }
                *cij = r;
            }
            tsum += ozb_now() - te;
        }
    }
    ozblas_info_t *info = &h->info;
    memset(info, 0, sizeof *info);
    info->mode = h->mode;
    info->summation = OZBLAS_SUM_DOUBLE;
    info->engine = h->engine;
    info->bits_per_slice = cs.alpha;            /* bits kept per row/column by the scaling */
    info->slices_a = info->slices_b = info->split_count = s;   /* moduli */
    info->gemm_calls = calls;
    info->slice_products = calls;
    info->gemm_flops = 2.0 * (double)m * (double)n * (double)k * s;
    info->blocks = ((m + mb - 1) / mb) * ((n + nb - 1) / nb);
    info->block_m = mb; info->block_n = nb; info->block_k = kb;
    info->seconds_split = (t1 - t0) + tres;
    info->seconds_multiply = tmul;
    info->seconds_sum = tsum;
    return OZBLAS_STATUS_SUCCESS;
#endif
}
