/* Work items of the device-resident engine (src/cuda/resident.c), written once: a CUDA
 * thread runs one item (kernels/ozb_kernels.cu), the emulated device runs every item in a
 * loop (src/cuda/dev.c).  Items that reduce (row metadata, fused products) combine their
 * results with order-free operations (max, min, sums of integers below 2^53), so the
 * thread layout never changes a bit. */
#ifndef OZB_ENGINE_OPS_H
#define OZB_ENGINE_OPS_H
#include "ozb_kernel_ops.h"

#define OZB_OP_CHUNK 256              /* elements of one row that one item reads */

/* A side of the product: rows of a strided device view over k, in k-blocks of kb. */
typedef struct {
    const double *p;
    int64_t rs, cs;                   /* element (r, l) = p[r*rs + l*cs]                 */
    int64_t r0, rows, R;              /* rows r0..r0+rows-1 of a side of R rows          */
    int64_t k, kb, nkb, nch;          /* nch = ceil(kb / OZB_OP_CHUNK)                   */
} ozb_op_side;

OZB_HD int64_t ozb_op_items(const ozb_op_side *v) { return v->rows * v->nkb * v->nch; }

/* Item w (rows fastest, so that neighbouring threads read neighbouring rows where the rows
 * are contiguous): its row, k-block and element range. */
OZB_HD void ozb_op_item_range(const ozb_op_side *v, int64_t w, int64_t *r, int64_t *kk, int64_t *l0, int64_t *l1)
{
    *r = w % v->rows;
    const int64_t rest = w / v->rows, ch = rest % v->nch;
    *kk = rest / v->nch;
    const int64_t bend = (*kk + 1) * v->kb < v->k ? (*kk + 1) * v->kb : v->k;
    *l0 = *kk * v->kb + ch * OZB_OP_CHUNK;
    *l1 = *l0 + OZB_OP_CHUNK < bend ? *l0 + OZB_OP_CHUNK : bend;
}

/* Row metadata of one item; *slot = kk*rows + r, the entry it combines into. */
OZB_HD ozb_op_rowmeta ozb_op_meta_item(const ozb_op_side *v, int64_t w, int64_t *slot)
{
    int64_t r, kk, l0, l1;
    ozb_op_item_range(v, w, &r, &kk, &l0, &l1);
    ozb_op_rowmeta m = {0, OZB_OP_LOW_NONE};
    const double *row = v->p + (v->r0 + r) * v->rs;
    for (int64_t l = l0; l < l1; l++) ozb_op_meta_add(&m, row[l * v->cs]);
    *slot = kk * v->rows + r;
    return m;
}

/* Split item w: element (r, l) of k-block kk, every slice t < s:
 * S[((kk*s + t)*rows + r)*kbp + l].  Items run over (kk, r, l < kbp); rows fastest where
 * the rows are contiguous (rs == 1), else l fastest. */
OZB_HD void ozb_op_split_item(const ozb_op_side *v, int type, int beta, const int32_t *e, const int32_t *ns, int s,
                              int64_t kbp, void *S, int64_t w)
{
    int64_t r, l, kk;
    if (v->rs == 1) { r = w % v->rows; l = (w / v->rows) % kbp; kk = w / (v->rows * kbp); }
    else            { l = w % kbp; r = (w / kbp) % v->rows; kk = w / (v->rows * kbp); }
    const int64_t gl = kk * v->kb + l;
    const int in = l < v->kb && gl < v->k;
    double x = in ? v->p[(v->r0 + r) * v->rs + gl * v->cs] : 0.0;
    const int64_t mi = kk * v->R + v->r0 + r;
    const int er = e[mi], nr = ns[mi];
    for (int t = 0; t < s; t++) {
        double d = 0.0;
        if (t < nr) ozb_op_digit(x, er - (t + 1) * beta, &d, &x);
        const int64_t o = ((kk * s + t) * v->rows + r) * kbp + l;
        if (type == 0) ((double *)S)[o] = d;
        else if (type == 1) ((uint16_t *)S)[o] = ozb_op_f16_of_int(d);    /* |d| <= 2^11 - 1: exact */
        else ((int8_t *)S)[o] = (int8_t)d;                                /* |d| <= 127: exact */
    }
}

/* Fused item w: acc[t][u] = sum over the item's elements of digit t of a times digit u of
 * x (SX from the split, F64, s = sb); *nsa, *kk and *r say where it goes. */
OZB_HD void ozb_op_fused_item(const ozb_op_side *v, int beta, const int32_t *eA, const int32_t *nsA, const double *SX,
                              int sb, int64_t kbp, int64_t w, double acc[OZB_OP_FUSED_MAXS][OZB_OP_FUSED_MAXS],
                              int *nsa, int64_t *kkout, int64_t *rout)
{
    int64_t r, kk, l0, l1;
    ozb_op_item_range(v, w, &r, &kk, &l0, &l1);
    for (int t = 0; t < OZB_OP_FUSED_MAXS; t++)
        for (int u = 0; u < OZB_OP_FUSED_MAXS; u++) acc[t][u] = 0.0;
    const int64_t mi = kk * v->R + v->r0 + r;
    const int ea = eA[mi];
    *nsa = nsA[mi];
    *kkout = kk;
    *rout = r;
    if (*nsa <= 0) return;
    const double *row = v->p + (v->r0 + r) * v->rs;
    const double *xd = SX + kk * sb * kbp;                  /* digit u of x_l at xd[u*kbp + l - kk*kb] */
    for (int64_t l = l0; l < l1; l++) ozb_op_fused_acc(row[l * v->cs], ea, *nsa, beta, xd + (l - kk * v->kb), kbp, sb, acc);
}
#endif
