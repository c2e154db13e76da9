/* The bounds of the CRT format on the device (crt_bounds.h): the ACCURATE scaling's bound of
 * each row and DOUBLE mode's per-element certificate, each by one more exact INT8 GEMM of
 * small magnitudes, with the host's element operations (kernels/ozb_crt_ops.h). */
#include "cuda/crt_bounds.h"
#include "cuda/dev.h"
#include "core/tiles.h"
#include "crt/crt_gemm.h"
#include "core/info.h"
#include <math.h>

static size_t al256(size_t b) { return (b + 255) & ~(size_t)255; }
static size_t al16(size_t b) { return (b + 15) & ~(size_t)15; }

/* The tiles of both bounds' exact GEMMs: op(A)'s int8 operands (kbp a row), op(B)'s (bparts
 * parts of kbp a row), two int32 products an element (the second a part's or a zero block:
 * ozb_op_crt_bound_acc adds two) and their double sums over the k-blocks (ozb_dev_tiles). */
static ozblas_status_t bound_tiles(ozblas_handle_t h, int64_t kbp, int bparts, int8_t **Aq, int8_t **Bq, int32_t **U,
                                   double **Ud, int64_t *mb, int64_t *nb, int64_t m, int64_t n)
{
    const ozb_dev_tilebuf tbuf[4] = {
        { OZB_DBUF_A, (double)kbp, 0.0, 0.0, 0.0 }, { OZB_DBUF_B, 0.0, (double)bparts * (double)kbp, 0.0, 0.0 },
        { OZB_DBUF_C, 0.0, 0.0, 8.0, 0.0 }, { OZB_DBUF_C2, 0.0, 0.0, 8.0, 0.0 },
    };
    void *tp[4];
    const ozblas_status_t ts = ozb_dev_tiles(h->dev, ozb_workspace_limit(h), m, n, INT32_MAX, INT32_MAX, tbuf, 4, mb, nb, tp);
    if (ts != OZBLAS_STATUS_SUCCESS) return ts;
    *Aq = tp[0]; *Bq = tp[1]; *U = tp[2]; *Ud = tp[3];
    return OZBLAS_STATUS_SUCCESS;
}

/* ACCURATE scaling (crt.c's crt_accurate): the exact INT8 GEMM of 6- and 7-bit magnitudes on
 * the device, tiled (the row maxima do not depend on the tiling), op(B)'s magnitudes (up to
 * 128) as two int8 parts; sets ra[i].cz as the CPU does.  Called with the device locked. */
ozblas_status_t ozb_crt_dev_accurate(ozblas_handle_t h, const ozb_problem *pr, rowscale_t *ra, const rowscale_t *rb)
{
    ozb_dev *dev = h->dev;
    const int64_t m = pr->m, n = pr->n, k = pr->k, kb = k < OZB_CRT_KBLOCK ? k : OZB_CRT_KBLOCK, nkb = (k + kb - 1) / kb;
    const int64_t kbp = (kb + 15) & ~(int64_t)15;
    /* the rows' maxima Z (zeroed on the device, read back), then op(A)'s exponents and
     * op(B)^T's exponents and c, sent in one copy from a host buffer laid out alike */
    const size_t o_eA = al256(8 * (size_t)m), o_eB = o_eA + al16(4 * (size_t)m), o_cB = o_eB + al16(4 * (size_t)n);
    const size_t o_end = o_cB + 4 * (size_t)n;
    char *w = ozb_dev_buf(dev, OZB_DBUF_B2, o_end);
    char *hw = ozb_buf_get(h, OZB_BUF_HC, o_end);
    if (!w || !hw) return OZBLAS_STATUS_ALLOC_FAILED;
    uint64_t *hZ = (uint64_t *)hw;
    /* per tile: 6-bit magnitudes of op(A), two 7-bit parts of op(B), their two products, the bound */
    int8_t *Aq, *Bq;
    int32_t *U;
    double *Ud;
    int64_t mb, nb;
    const ozblas_status_t ts = bound_tiles(h, kbp, 2, &Aq, &Bq, &U, &Ud, &mb, &nb, m, n);
    if (ts != OZBLAS_STATUS_SUCCESS) return ts;
    uint64_t *Z = (uint64_t *)w;
    int32_t *eA = (int32_t *)(w + o_eA), *eB = (int32_t *)(w + o_eB), *cB = (int32_t *)(w + o_cB);
    int32_t *heA = (int32_t *)(hw + o_eA), *heB = (int32_t *)(hw + o_eB), *hcB = (int32_t *)(hw + o_cB);
    for (int64_t i = 0; i < m; i++) heA[i] = ra[i].e;
    for (int64_t i = 0; i < n; i++) { heB[i] = rb[i].e; hcB[i] = rb[i].c; }
    if (ozb_dev_zero(dev, Z, 8 * (size_t)m) || ozb_dev_put(dev, eA, o_end - o_eA, heA, o_end - o_eA, o_end - o_eA, 1))
        return OZBLAS_STATUS_EXECUTION_FAILED;
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0, ne = mbb * nbb;
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                int8_t *Blo = Bq, *Bhi = Bq + (size_t)nbb * (size_t)kbp;
                if (ozb_dev_crt_quant(dev, &pr->a, i0, mbb, l0, kbb, eA, 6, kbp, Aq, NULL) ||
                    ozb_dev_crt_quant(dev, &pr->b, j0, nbb, l0, kbb, eB, 7, kbp, Blo, Bhi) ||
                    ozb_dev_gemm(dev, OZB_DT_S8, 1, 0, mbb, nbb, kbp, Aq, kbp, Blo, kbp, U, mbb) ||
                    ozb_dev_gemm(dev, OZB_DT_S8, 1, 0, mbb, nbb, kbp, Aq, kbp, Bhi, kbp, U + ne, mbb) ||
                    ozb_dev_crt_bound_acc(dev, U, U + ne, Ud, kk == 0, ne))
                    return OZBLAS_STATUS_EXECUTION_FAILED;
            }
            if (ozb_dev_crt_zmax(dev, Ud, mbb, nbb, i0, j0, eB, cB, Z)) return OZBLAS_STATUS_EXECUTION_FAILED;
        }
    }
    if (ozb_dev_get(dev, hZ, 8 * (size_t)m, Z, 8 * (size_t)m, 8 * (size_t)m, 1)) return OZBLAS_STATUS_EXECUTION_FAILED;
    for (int64_t i = 0; i < m; i++) {
        ra[i].cz = INT32_MIN;
        double z;
        memcpy(&z, &hZ[i], sizeof z);
        if (ra[i].e == E_ZERO || ra[i].e == E_BAD || z == 0.0) continue;
        int c = ozb_ilogb(z);
        if (z != ozb_pow2(c)) c++;
        ra[i].cz = c;
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* DOUBLE mode's certificate of every element (crt.c's certify_tile): flags[i + j m] = 1 on the
 * device where the element is not certified, their number in *nflag.  Called with the device
 * locked, ra and rb with their factors and hats set. */
ozblas_status_t ozb_crt_dev_certify(ozblas_handle_t h, const ozb_problem *pr, const rowscale_t *ra, const rowscale_t *rb,
                               uint8_t *flags, int64_t *nflag)
{
    ozb_dev *dev = h->dev;
    const int64_t m = pr->m, n = pr->n, k = pr->k, R = m + n;
    const int64_t kb = k < OZB_CRT_KBLOCK ? k : OZB_CRT_KBLOCK, nkb = (k + kb - 1) / kb, kbp = (kb + 15) & ~(int64_t)15;
    /* per row of op(A), then of op(B)^T: e and hs (the operands), l1, P and H (the bound), and
     * the count: sent in one copy from a host buffer laid out alike */
    const size_t RR = (size_t)R, o_hs = al16(4 * RR), o_l1 = o_hs + al16(4 * RR), o_P = o_l1 + 8 * RR;
    const size_t o_H = o_P + 8 * RR, o_count = o_H + 8 * RR, o_end = o_count + 8;
    char *w = ozb_dev_buf(dev, OZB_DBUF_B2, o_end);
    char *hb = ozb_buf_get(h, OZB_BUF_HC, o_end);
    if (!w || !hb) return OZBLAS_STATUS_ALLOC_FAILED;
    int32_t *de = (int32_t *)w, *dhs = (int32_t *)(w + o_hs);
    double *dl1 = (double *)(w + o_l1), *dP = (double *)(w + o_P), *dH = (double *)(w + o_H);
    double *dcount = (double *)(w + o_count);
    double *hl1 = (double *)(hb + o_l1), *hP = (double *)(hb + o_P), *hH = (double *)(hb + o_H);
    int32_t *he = (int32_t *)hb, *hhs = (int32_t *)(hb + o_hs);
    for (int64_t q = 0; q < R; q++) {
        const rowscale_t *r = q < m ? &ra[q] : &rb[q - m];
        const int u = ozb_op_usable(r->e);
        he[q] = r->e; hhs[q] = r->hs;
        hl1[q] = u ? r->l1 : 0.0;
        hP[q] = u ? ozb_pow2(-(r->ka + r->e)) : 0.0;
        hH[q] = u ? ozb_pow2(-r->hs) : 0.0;
    }
    double count = 0.0;
    memcpy(hb + o_count, &count, sizeof count);
    if (ozb_dev_put(dev, w, o_end, hb, o_end, o_end, 1)) return OZBLAS_STATUS_EXECUTION_FAILED;
    /* per tile: the operands of op(A)'s and op(B)'s rows, the int32 product and a zero block
     * beside it, the sums over the k-blocks */
    int8_t *Aq, *Bq;
    int32_t *U;
    double *low;
    int64_t mb, nb;
    const ozblas_status_t ts = bound_tiles(h, kbp, 1, &Aq, &Bq, &U, &low, &mb, &nb, m, n);
    if (ts != OZBLAS_STATUS_SUCCESS) return ts;
    const double tau = 0.5 * sqrt((double)k) * 0x1p-53 * (1.0 - 0x1p-40);
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0, ne = mbb * nbb;
            if (ozb_dev_zero(dev, U + ne, 4 * (size_t)ne)) return OZBLAS_STATUS_EXECUTION_FAILED;
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                if (ozb_dev_crt_hats(dev, &pr->a, i0, mbb, l0, kbb, de, dhs, kbp, Aq) ||
                    ozb_dev_crt_hats(dev, &pr->b, j0, nbb, l0, kbb, de + m, dhs + m, kbp, Bq) ||
                    ozb_dev_gemm(dev, OZB_DT_S8, 1, 0, mbb, nbb, kbp, Aq, kbp, Bq, kbp, U, mbb) ||
                    ozb_dev_crt_bound_acc(dev, U, U + ne, low, kk == 0, ne))
                    return OZBLAS_STATUS_EXECUTION_FAILED;
            }
            const ozb_op_crt_cert_args g = { low, mbb, nbb, i0, j0, m, dl1, dP, dH, dl1 + m, dP + m, dH + m,
                                             (double)k, tau, flags };
            if (ozb_dev_crt_cert(dev, &g, dcount)) return OZBLAS_STATUS_EXECUTION_FAILED;
        }
    }
    if (ozb_dev_get(dev, &count, 8, dcount, 8, 8, 1)) return OZBLAS_STATUS_EXECUTION_FAILED;
    *nflag = (int64_t)count;
    return OZBLAS_STATUS_SUCCESS;
}
