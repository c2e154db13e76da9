/* Ozaki scheme II with INT8 residues (seed 002, Algorithm 1), on the CPU through oneDNN.
 *
 * 1. Scaling.  Row i of op(A) gets a power of two 2^ka_i, column j of op(B) 2^kb_j, and
 *    A'_il = trunc(a_il 2^ka_i), B'_jl = trunc(b_jl 2^kb_j) (integers, exact in binary64 as
 *    long as they stay below 2^53, and exact above it too: larger doubles are integers).
 *    Fast scaling by Cauchy-Schwarz: ka_i = alpha - c_i with 2^(c_i) >= ||a_i||_2 (computed
 *    with a rounding margin, the row prescaled by its maximum so that the choice depends on
 *    exponents only: scaling A by 2^p shifts every ka_i by exactly -p and the result by 2^p).
 *    Then |A'_i . B'_j| <= ||A'_i|| ||B'_j|| <= 2^(2 alpha) <= 2^(floor(log2 M) - 1) < M/2:
 *    the centred residue class determines it.
 * 2. Residues A' mod m_t in [-128, 127] (int8) and B' mod m_t in [0, m_t) (uint8), exactly.
 * 3. One exact u8 x s8 GEMM per modulus (|products| <= 255 * 128, 2^16 per block: int32).
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
 * DOUBLE mode takes a moduli count that depends on k alone (ozb_crt_double_moduli) and
 * certifies each element on its own (certify_tile): one more exact GEMM of the rows' 7-bit
 * floors gives L_ij <= (|A||B|)_ij, and an element is kept where the bound above is at most a
 * quarter of Algorithm 3's 2 sqrt(k) u times L_ij; the others are left untouched and flagged,
 * and the dispatch computes them correctly rounded (a tile certifying none skips its moduli).  So every
 * element meets the bound componentwise, and depends only on its own row of op(A), column of
 * op(B), C_ij, alpha, beta, k and the configuration (the ACCURATE scaling, which takes a
 * row's scale from the whole of op(B), is FIXED mode's alone).
 *
 * Compiled with -ffp-contract=off; fma() is used explicitly where exact. */
#include "core/info.h"
#include "core/tiles.h"
#include "crt/crt_internal.h"
#include "core/par.h"

/* Reconstruction of ne elements from their residue products C32[t*ne + e] (t < s):
 * out[e] = C'_e * 2^-88 (C' = the product of the scaled integers), see the header comment.
 * Accumulators per element, all exact integers in binary64: with F = Fh 2^22 + Fl,
 * sum_t c_t Fh and sum_t c_t Fl are below 20 * 2^8 * 2^22 < 2^35. */
/* The reconstruction's constants (kernels/ozb_kernel_ops.h), for this loop and the device's. */
void ozb_crt_recon_consts(const ozb_crt_consts *cs, ozb_op_crt_consts *k)
{
    k->s = cs->s;
    for (int t = 0; t < cs->s; t++) {
        k->F1h[t] = (double)(cs->F1[t] >> 22); k->F1l[t] = (double)(cs->F1[t] & ((1 << 22) - 1));
        k->F2h[t] = (double)(cs->F2[t] >> 22); k->F2l[t] = (double)(cs->F2[t] & ((1 << 22) - 1));
        k->f3[t] = cs->f3[t];
        k->md[t] = (double)ozb_crt_moduli[t]; k->iv[t] = 1.0 / k->md[t];
    }
    k->Mh = cs->Mh; k->Ml = cs->Ml;
}

/* out[e] = C' of element e: ozb_op_crt_recon, vectorized in chunks (the same operations in
 * the same order per element, so the device's kernel gives the same bits). */
OZB_CLONES static void reconstruct(const int32_t *C32, int64_t ne, const ozb_crt_consts *cs, double *out, int nt)
{
    ozb_op_crt_consts kc;
    ozb_crt_recon_consts(cs, &kc);
    const double *F1h = kc.F1h, *F1l = kc.F1l, *F2h = kc.F2h, *F2l = kc.F2l, *md = kc.md, *iv = kc.iv;
    const double Mh = kc.Mh, Ml = kc.Ml;
    const int64_t chunk = 512, nch = (ne + chunk - 1) / chunk;
    OZB_PARALLEL_FOR_IF(nt > 1 && ne >= 4096, nt, schedule(static),
    for (int64_t ch = 0; ch < nch; ch++) {
        const int64_t e0 = ch * chunk, e1 = e0 + chunk < ne ? e0 + chunk : ne, w = e1 - e0;
        double a1h[512], a1l[512], a2h[512], a2l[512], a3[512];
        for (int64_t q = 0; q < w; q++) { a1h[q] = a1l[q] = a2h[q] = a2l[q] = a3[q] = 0.0; }
        for (int t = 0; t < cs->s; t++) {
            const int32_t *src = C32 + t * ne + e0;
            const double m = md[t], inv = iv[t], f1h = F1h[t], f1l = F1l[t], f2h = F2h[t], f2l = F2l[t], f3 = kc.f3[t];
            for (int64_t q = 0; q < w; q++) {
                const double c = ozb_crt_mod((double)src[q], m, inv);
                a1h[q] += c * f1h; a1l[q] += c * f1l;
                a2h[q] += c * f2h; a2l[q] += c * f2l;
                a3[q] += c * f3;
            }
        }
        for (int64_t q = 0; q < w; q++) {
            /* X1 = a1h 2^22 + a1l, X2 = a2h 2^22 + a2l (exact int64); the fraction
             * ((X1 mod 2^44) 2^44 + X2) 2^-88 mod 1 = (hi 2^44 + lo) 2^-88 with hi, lo < 2^44 */
            const int64_t X1 = ((int64_t)a1h[q] << 22) + (int64_t)a1l[q];
            const int64_t X2 = ((int64_t)a2h[q] << 22) + (int64_t)a2l[q];
            const int64_t M44 = ((int64_t)1 << 44) - 1;
            int64_t hi = ((X1 & M44) + (X2 >> 44)) & M44;
            const int64_t lo = X2 & M44;
            if (hi >= ((int64_t)1 << 43)) hi -= (int64_t)1 << 44;   /* centred: C' in (-M/2, M/2) */
            /* v = hi 2^44 + lo + a3 (units of 2^-88): vh exact, vl rounds (|vl| < 2^45) */
            const double vh = (double)hi * 0x1p44, vl = (double)lo + a3[q];
            /* y = RN-ish(v M): TwoProduct of the leading part, the rest to ~2^-100 */
            const double ph = vh * Mh, pe = fma(vh, Mh, -ph);
            out[e0 + q] = ph + (pe + (vh * Ml + vl * Mh));
        }
    });
}

/* DOUBLE mode's certificates of a tile's elements: flags[i + j m] = 1 where not certified;
 * returns their number (-1: the backend failed).  The truncation bound of an element, in units
 * of 2^(e_i + e_j), is ||a_i||_1 2^-kb_j + ||b_j||_1 2^-ka_i + k 2^-(ka_i + kb_j) =
 * l1_i P_j + l1_j P_i + k P_i P_j with P = 2^-(ka + e) (l1 = ||x||_1 2^-e rounded up; P within
 * 2^-61 .. 2^-40: no underflow), its rounding covered by 2^-40.  It must stay within a quarter
 * of Algorithm 3's 2 sqrt(k) u times L_ij = low_ij 2^-(hs_i + hs_j), the lower bound of
 * (|A||B|)_ij from the exact GEMM of the rows' floors (crt_select.c), low below 2^53 (exact),
 * the product's rounding covered by 1 - 2^-40.  Row zero (e == E_ZERO): the product is exactly
 * zero, certified; Inf/NaN rows (E_BAD) are the output step's (CONTRACT §4). */
static int64_t certify_tile(ozblas_handle_t h, const ozb_problem *pr, const rowscale_t *ra, const rowscale_t *rb,
                            int64_t i0, int64_t mbb, int64_t j0, int64_t nbb, int64_t kb, int8_t *hA, int8_t *hB,
                            int32_t *I32, double *low, uint8_t *flags, double *g, int nt)
{
    const int64_t m = pr->m, k = pr->k, ne = mbb * nbb;
    for (int64_t l0 = 0; l0 < k; l0 += kb) {
        const int64_t kbb = kb < k - l0 ? kb : k - l0;
        const int cB = ozb_crt_low_hats(&pr->b, rb, j0, nbb, l0, kbb, (uint8_t *)hB, g, nt);
        const int cA = ozb_crt_low_hats(&pr->a, ra, i0, mbb, l0, kbb, (uint8_t *)hA, g, nt);
        if (h->be->crt_gemm(h, (const uint8_t *)hB, cB, hA, cA, mbb, nbb, kbb, I32, 0, nt)) return -1;   /* exact (mod 0) */
        for (int64_t e = 0; e < ne; e++) low[e] = (l0 ? low[e] : 0.0) + (double)I32[e];
    }
    /* per row of the tile: l1, P and 2^-hs (all 0 where the row is zero or Inf/NaN: err = 0 <=
     * tau L = 0, certified; such elements are exact zeros or the output step's specials) */
    double *l1a = g, *Pa = g + mbb, *Ha = g + 2 * mbb;
    for (int64_t il = 0; il < mbb; il++) {
        const rowscale_t *ri = &ra[i0 + il];
        const int u = crt_usable(ri->e);
        l1a[il] = u ? ri->l1 : 0.0;
        Pa[il] = u ? ozb_pow2(-(ri->ka + ri->e)) : 0.0;
        Ha[il] = u ? ozb_pow2(-ri->hs) : 0.0;
    }
    const double kd = (double)k, tau = 0.5 * sqrt(kd) * 0x1p-53 * (1.0 - 0x1p-40);
    int64_t nf = 0;
    OZB_PARALLEL_FOR_IF(nt > 1 && ne >= 4096, nt, schedule(static) reduction(+:nf),
    for (int64_t jl = 0; jl < nbb; jl++) {
        const rowscale_t *rj = &rb[j0 + jl];
        const int u = crt_usable(rj->e);
        const double l1b = u ? rj->l1 : 0.0, Pb = u ? ozb_pow2(-(rj->ka + rj->e)) : 0.0, Hb = u ? ozb_pow2(-rj->hs) : 0.0;
        const double *lo = low + jl * mbb;
        uint8_t *fl = flags + (i0 + (j0 + jl) * m);
        for (int64_t il = 0; il < mbb; il++) {
            const double err = (l1a[il] * Pb + l1b * Pa[il] + kd * Pa[il] * Pb) * (1.0 + 0x1p-40);
            const int bad = err > tau * (lo[il] * Ha[il] * Hb);
            fl[il] = (uint8_t)bad;
            nf += bad;
        }
    });
    return nf;
}

ozblas_status_t ozb_crt_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan, int nt, uint8_t **fail,
                            int64_t *nfail)
{
    *fail = NULL;
    *nfail = 0;
    /* the residue GEMMs need an exact INT8 product: oneDNN on the CPU, cuBLAS on a device */
    if (!ozb_format_for(h, OZBLAS_ENGINE_INT8, NULL)) return OZBLAS_STATUS_NOT_SUPPORTED;
    if (!isfinite(pr->alpha)) return OZBLAS_STATUS_NOT_SUPPORTED;   /* needs the exact sign */
    const double t0 = ozb_now();
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    rowscale_t *ra = ozb_buf_get(h, OZB_BUF_WA, sizeof(rowscale_t) * (size_t)m);
    rowscale_t *rb = ozb_buf_get(h, OZB_BUF_WB, sizeof(rowscale_t) * (size_t)n);
    if (!ra || !rb) return OZBLAS_STATUS_ALLOC_FAILED;
    ozb_crt_row_scales(&pr->a, m, k, ra, nt);
    ozb_crt_row_scales(&pr->b, n, k, rb, nt);
    const int dbl = plan->mode != OZBLAS_MODE_FIXED;
    if (h->crt_scaling == OZBLAS_CRT_SCALING_ACCURATE && !dbl) {
        const int acc = ozb_crt_accurate(h, pr, ra, rb, nt);
        if (acc <= 0) return acc < 0 ? OZBLAS_STATUS_EXECUTION_FAILED : OZBLAS_STATUS_ALLOC_FAILED;
    }
    const int s = dbl ? ozb_crt_double_moduli(k) : h->split_count < 2 ? 2 : h->split_count > OZB_CRT_MAXMOD ? OZB_CRT_MAXMOD : h->split_count;
    uint8_t *flags = NULL;
    if (dbl) {
        if (!(flags = ozb_buf_get(h, OZB_BUF_CRTFAIL, (size_t)(m * n)))) return OZBLAS_STATUS_ALLOC_FAILED;
    }
    ozb_crt_consts cs;
    ozb_crt_consts_init(s, &cs);
    resconst_t rc;
    ozb_crt_resconst_init(0, s, &rc);
    ozb_crt_set_factors(ra, m, &cs);
    ozb_crt_set_factors(rb, n, &cs);
    if (dbl) { ozb_crt_set_hats(ra, m, k); ozb_crt_set_hats(rb, n, k); }
    const double t1 = ozb_now();

    /* tiles mb x nb under the workspace limit: residues s (mb + nb) kb bytes, the int32
     * products of every modulus (4 s bytes per element), the reconstructed values (8) */
    const int64_t kb = k < OZB_CRT_KBLOCK ? k : OZB_CRT_KBLOCK, nkb = (k + kb - 1) / kb;
    const size_t limit = ozb_workspace_limit(h);
    int64_t mb, nb;
    /* (DOUBLE: one more slot of each side for the lower bound's operands, 8 bytes an element
     * for its sums) */
    const int slots = s + dbl;
    ozb_tiles(limit, m, n, (ozb_tile_cost){(double)slots * (double)kb, (double)slots * (double)kb, 4.0 * s + 12.0 + 8.0 * dbl, 32.0 * (nt + 1), 24.0 * (double)kb * (nt + 1)}, &mb, &nb);
    int8_t *resA = ozb_buf_get(h, OZB_BUF_SA, (size_t)slots * (size_t)mb * (size_t)kb + 64);
    int8_t *resB = ozb_buf_get(h, OZB_BUF_SB, (size_t)slots * (size_t)nb * (size_t)kb + 64);
    double *low = dbl ? ozb_buf_get(h, OZB_BUF_CRTLOW, sizeof(double) * (size_t)mb * (size_t)nb + 64) : NULL;
    if (dbl && !low) return OZBLAS_STATUS_ALLOC_FAILED;
    int32_t *C32 = ozb_buf_get(h, OZB_BUF_P, sizeof(int32_t) * ((size_t)s + 1) * (size_t)mb * (size_t)nb + 64);
    double *val = ozb_buf_get(h, OZB_BUF_TERMS, sizeof(double) * (size_t)mb * (size_t)nb + 64);
    double *tmp = ozb_buf_get(h, OZB_BUF_SCRATCH, sizeof(double) * (3 * (size_t)kb + 4 * (size_t)(mb > nb ? mb : nb)) * (size_t)(nt + 1));
    if (!resA || !resB || !C32 || !val || !tmp) return OZBLAS_STATUS_ALLOC_FAILED;
    double tres = 0.0, tmul = 0.0, tsum = 0.0;
    int64_t calls = 0;
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0, ne = mbb * nbb;
            int32_t *Ctmp = C32 + (int64_t)s * ne;       /* k-blocks after the first */
            if (dbl) {   /* DOUBLE: each element's certificate first; a tile with none left is done */
                const double tc = ozb_now();
                const int64_t nf = certify_tile(h, pr, ra, rb, i0, mbb, j0, nbb, kb, resA + (size_t)s * mb * kb,
                                                resB + (size_t)s * nb * kb, Ctmp, low, flags, tmp, nt);
                if (nf < 0) return ozb_crt_tile_failed(h, i0, j0);
                calls += nkb;
                *nfail += nf;
                tmul += ozb_now() - tc;
                if (nf == ne) continue;
            }
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                double ta = ozb_now();
                const int colB = ozb_crt_make_residues(&pr->b, rb, j0, nbb, l0, kbb, &rc, resB, tmp, nt, 1);
                const int colA = ozb_crt_make_residues(&pr->a, ra, i0, mbb, l0, kbb, &rc, resA, tmp, nt, 0);
                double tb = ozb_now();
                tres += tb - ta;
                for (int t = 0; t < s; t++) {
                    if (h->be->crt_acc) {        /* products, folds and C' stay with the backend */
                        if (h->be->crt_acc(h, (const uint8_t *)resB + (size_t)t * nbb * kbb, colB,
                                                  resA + (size_t)t * mbb * kbb, colA, mbb, nbb, kbb, s, t, kk > 0,
                                                  ozb_crt_moduli[t])) return ozb_crt_tile_failed(h, i0, j0);
                        calls++;
                        continue;
                    }
                    int32_t *dst = kk == 0 ? C32 + (int64_t)t * ne : Ctmp;
                    if (h->be->crt_gemm(h, (const uint8_t *)resB + (size_t)t * nbb * kbb, colB, resA + (size_t)t * mbb * kbb, colA,
                                        mbb, nbb, kbb, dst, ozb_crt_moduli[t], nt)) return ozb_crt_tile_failed(h, i0, j0);
                    calls++;
                    if (kk > 0) ozb_crt_fold(C32 + (int64_t)t * ne, dst, ne, ozb_crt_moduli[t]);   /* a later k-block, modulo m_t */
                }
                tmul += ozb_now() - tb;
            }
            double te = ozb_now();
            if (h->be->crt_recon) {
                ozb_op_crt_consts kc;
                ozb_crt_recon_consts(&cs, &kc);
                if (h->be->crt_recon(h, &kc, ne, val)) return ozb_crt_tile_failed(h, i0, j0);
            } else {
                reconstruct(C32, ne, &cs, val, nt);
            }
            /* the output: C = alpha 2^-(ka_i + kb_j + 88) C' + beta C, column by column */
            const int use_c = pr->beta != 0.0;
            OZB_PARALLEL_FOR_IF(nt > 1 && ne >= 4096, nt, schedule(static),
            for (int64_t jl = 0; jl < nbb; jl++) {
                const int64_t gj = j0 + jl;
                const rowscale_t *rj = &rb[gj];
                const double *vcol = val + jl * mbb;
                for (int64_t il = 0; il < mbb; il++) {
                    const int64_t gi = i0 + il;
                    /* left as it is for the correctly rounded fallback, special values of C
                     * included (that fallback applies beta to C once) */
                    if (dbl && flags[gi + gj * m]) continue;
                    double *cij = pr->c + gi * pr->crs + gj * pr->ccs;
                    const double cval = use_c ? *cij : 0.0;
                    const rowscale_t *ri = &ra[gi];
                    if (ri->e == E_BAD || rj->e == E_BAD || (use_c && (!isfinite(pr->beta) || !isfinite(cval)))) {
                        /* Inf/NaN in the row or column (then the dot product is not finite) or
                         * in beta, C: the IEEE result of CONTRACT §4 */
                        const int sclass = (ri->e == E_BAD || rj->e == E_BAD) ? ozb_dot_class(&pr->a, gi, &pr->b, gj, k) : OZB_CLASS_FINITE;
                        int fin;
                        const double r = ozb_special_combine(pr->alpha, sclass, 0, pr->beta, cval, use_c, &fin);
                        if (!fin || sclass != OZB_CLASS_FINITE) { *cij = r; continue; }
                    }
                    double xv = 0.0;
                    int p = 0;
                    if (crt_usable(ri->e) && crt_usable(rj->e)) { p = -(ri->ka + rj->ka) - 88; xv = vcol[il]; }
                    const double r = ozb_op_crt_out(xv, p, pr->alpha, pr->beta, cval, use_c);   /* kernels/ozb_crt_ops.h */
                    *cij = r;
                }
            });
            tsum += ozb_now() - te;
        }
    }
    if (dbl) *fail = flags;
    /* bits per slice: the bits kept per row/column by the scaling */
    ozblas_info_t *info = ozb_info_begin(h, OZBLAS_SUM_DOUBLE, cs.alpha);
    ozb_info_crt(info, s, m, n, k, calls, calls, (t1 - t0) + tres, tmul, tsum);
    ozb_info_tiles(info, m, n, mb, nb, kb);
    info->exact_fallbacks = *nfail;          /* DOUBLE: left to the correctly rounded completion */
    return OZBLAS_STATUS_SUCCESS;
}
