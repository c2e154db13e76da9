#include "scheme1/s1_internal.h"

/* ---- Lazy correct rounding (CORRECTLY_ROUNDED, FP64 products, one k-block) ----
 * Pair (t,u) of element (i,j) is at most 2^(w_t(i) + w_u(j)) * min(|A_t(i)|_1 |B_u(j)|_inf,
 * |A_t(i)|_inf |B_u(j)|_1) in magnitude.  Only the pairs t + u < D are multiplied first, D
 * chosen so that the rest lies ~2^-64 below the leading products; an element whose RN is
 * certain whatever the rest holds (ozb_sum_nearest_bounded) is done.  The others get their
 * remaining pairs (exact dot products of slice rows, or GEMMs when many need them) and the
 * full NearSum.  Either way the output is RN(exact): the same bits as computing every pair. */
int ozb_s1_lazy_levels(int beta, int64_t kb)
{
    int lg = 0;
    while (((int64_t)1 << lg) < kb) lg++;
    return (lg + 64 + beta - 1) / beta;
}

/* n1[t*rows+i] = sum_l |d|, nx[...] = max_l |d| (exact: integer sums below 2^53) */
void ozb_s1_slice_norms(const ozb_slices *S, double *n1, double *nx, int nt)
{
    const int64_t rows = S->rows, kb = S->kb, tot = (int64_t)S->s * rows;
    OZB_PARALLEL_FOR_IF(nt > 1 && tot * kb > OZB_PAR_WORK, nt, schedule(static),
    for (int64_t r = 0; r < tot; r++) {
        const double *d = S->slice + r * kb;
        double a[4] = {0, 0, 0, 0}, m[4] = {0, 0, 0, 0};
        int64_t l = 0;
        for (; l + 4 <= kb; l += 4)
            for (int j = 0; j < 4; j++) { double v = fabs(d[l + j]); a[j] += v; m[j] = v > m[j] ? v : m[j]; }
        double sum = (a[0] + a[1]) + (a[2] + a[3]), mx = m[0] > m[1] ? m[0] : m[1];
        mx = mx > m[2] ? mx : m[2]; mx = mx > m[3] ? mx : m[3];
        for (; l < kb; l++) { double v = fabs(d[l]); sum += v; mx = v > mx ? v : mx; }
        n1[r] = sum; nx[r] = mx;
    });
}

int ozb_s1_lazy_tile(ctx_t *c, const meta_t *MA, const meta_t *MB, const ozb_slices *SA, const ozb_slices *SB,
                     double *P, size_t pblock, int64_t ldp, int D, int64_t i0, int64_t j0, void *scr)
{
    const ozb_problem *pr = c->pr;
    const int64_t mbb = SA->rows, nbb = SB->rows, kb = SA->kb, ntile = mbb * nbb;
    const int sa = SA->s, sb = SB->s, nt = c->nt;
    const int64_t maxterms = (int64_t)c->capA * c->capB;
    char *tbuf = ozb_s1_terms_alloc(c->h, maxterms, nt);
    double *nrm = ozb_buf_get(c->h, OZB_BUF_LAZY, sizeof(double) * 2 * (size_t)(sa * mbb + sb * nbb)
                                                  + sizeof(int64_t) * (size_t)ntile);
    if (!tbuf || !nrm) return 0;
    double *n1A = nrm, *nxA = n1A + sa * mbb, *n1B = nxA + sa * mbb, *nxB = n1B + sb * nbb;
    int64_t *fail = (int64_t *)(nxB + sb * nbb);
    ozb_s1_slice_norms(SA, n1A, nxA, nt);
    ozb_s1_slice_norms(SB, n1B, nxB, nt);
    int64_t nfail = 0;
    const ploc_t pl = {P, pblock, ldp, mbb, nbb};
    OZB_PARALLEL_IF(nt > 1 && ntile * maxterms >= 4096, num_threads(nt),
    {
        const terms_t tt = ozb_s1_thread_terms(tbuf, maxterms);
        double *TP = tt.P, *scratch = tt.scratch;
        int32_t *TE = tt.E;
        OZB_PRAGMA(omp for schedule(static))
        for (int64_t e = 0; e < ntile; e++) {
            const int64_t j = e / mbb, i = e % mbb;
            double *cij = pr->c + (i0 + i) * pr->crs + (j0 + j) * pr->ccs;
            const int use_c = pr->beta != 0.0;
            const double cval = use_c ? *cij : 0.0;
            const int nsa = MA->ns[i], nsb = MB->ns[j];
            int ok = 0;
            double r = 0.0;
            if (!((MA->flag[i] | MB->flag[j]) & OZB_ROW_NONFINITE) && isfinite(pr->alpha) &&
                !(use_c && (!isfinite(pr->beta) || !isfinite(cval)))) {
                int64_t nterm = 0;
                double bnd = 0.0;
                /* a zero row or column (ns = 0) never wrote its w: e0 only where both have slices
                 * (the garbage w of another would overflow the int sum: undefined behaviour) */
                const int32_t e0 = nsa > 0 && nsb > 0 ? MA->w[i] + MB->w[j] : 0;
                for (int t = 0; t < nsa; t++)
                    for (int u = 0; u < nsb; u++) {
                        const int32_t ew = MA->w[(int64_t)t * MA->R + i] + MB->w[(int64_t)u * MB->R + j];
                        if (t + u < D) {
                            TP[nterm] = P[(t * mbb + i) + (u * nbb + j) * ldp];
                            TE[nterm++] = ew;
                        } else {
                            double a = n1A[t * mbb + i] * nxB[u * nbb + j], b = nxA[t * mbb + i] * n1B[u * nbb + j];
                            int de = ew - e0;
                            bnd += (a < b ? a : b) * ldexp(1.0, de > -1000 ? de : -1000);
                        }
                    }
                bnd *= 1.0 + 0x1p-40;            /* the sum above rounds; this covers it */
                ok = ozb_sum_nearest_bounded(TP, TE, nterm, pr->alpha, pr->beta, cval, use_c, bnd, e0, scratch, &r);
            }
            if (ok) *cij = r;
            else {
                int64_t slot;
                OZB_PRAGMA(omp atomic capture)
                slot = nfail++;
                fail[slot] = e;
            }
        }
    });
    if (nfail == 0) return 1;
    /* the remaining pairs: GEMMs when many elements need them, exact dots otherwise */
    if (nfail * 32 > ntile) {
        for (int t = 0; t < sa; t++) {
            const int u0 = D - t > 0 ? D - t : 0;
            if (u0 >= sb) continue;
            ozb_slices At = *SA, Bu = *SB;
            At.slice = SA->slice + (int64_t)t * mbb * kb; At.s = 1;
            Bu.slice = SB->slice + (int64_t)u0 * nbb * kb; Bu.s = sb - u0;
            if (c->fmt->products(c->h->dev, &At, &Bu, 0, P + t * mbb + (int64_t)u0 * nbb * ldp, ldp, scr, nt, &c->pst))
                c->dev_err = 1;
        }
    } else {
        OZB_PARALLEL_FOR_IF(nt > 1 && nfail > 16, nt, schedule(dynamic, 16),
        for (int64_t f = 0; f < nfail; f++) {
            const int64_t j = fail[f] / mbb, i = fail[f] % mbb;
            for (int t = 0; t < MA->ns[i]; t++)
                for (int u = (D - t > 0 ? D - t : 0); u < MB->ns[j]; u++) {
                    const double *a = SA->slice + ((int64_t)t * mbb + i) * kb, *b = SB->slice + ((int64_t)u * nbb + j) * kb;
                    double s0 = 0.0, s1 = 0.0;    /* integers below 2^53: exact in any order */
                    int64_t l = 0;
                    for (; l + 2 <= kb; l += 2) { s0 += a[l] * b[l]; s1 += a[l + 1] * b[l + 1]; }
                    if (l < kb) s0 += a[l] * b[l];
                    P[(t * mbb + i) + (u * nbb + j) * ldp] = s0 + s1;
                }
        });
    }
    int64_t fb = 0;
    OZB_PARALLEL_IF(nt > 1 && nfail * maxterms >= 4096, num_threads(nt) reduction(+:fb),
    {
        const terms_t tt = ozb_s1_thread_terms(tbuf, maxterms);
        double *TP = tt.P, *scratch = tt.scratch;
        int32_t *TE = tt.E;
        OZB_PRAGMA(omp for schedule(dynamic, 16))
        for (int64_t f = 0; f < nfail; f++) {
            const int64_t j = fail[f] / mbb, i = fail[f] % mbb;
            *(pr->c + (i0 + i) * pr->crs + (j0 + j) * pr->ccs) =
                ozb_s1_element(c, MA, i, MB, j, 0, 0, &pl, i, j, i0 + i, j0 + j, TP, TE, scratch, &fb);
        }
    });
    c->fallbacks += fb;
    c->lazy_fixups += nfail;
    return 1;
}
