/* The products of a tile in blocks that leave out the products C does not keep (the other
 * triangle of DSYRK's and DSYR2K's diagonal block) and those an operand's zeros make zero
 * (DTRMM's op(T)).  Every element a block computes gets the same exact integer products as the
 * whole tile's (the terms left out are zero, or it sums over all k), so the same bits: the
 * blocks are a choice of shape only.  Each block's residues are the tile's, read in place. */
#include "cuda/pblocks.h"

static int64_t up16(int64_t v) { return (v + 15) & ~(int64_t)15; }

int ozb_pblocks(const ozb_problem *pr, int64_t i0, int64_t mbb, int64_t j0, int64_t nbb, int64_t kbp, ozb_pblock *out)
{
    const int zb = pr->zeros == OZB_ZEROS_B_KLE || pr->zeros == OZB_ZEROS_B_KGE;
    const int za = pr->zeros == OZB_ZEROS_A_KLE || pr->zeros == OZB_ZEROS_A_KGE;
    const int cols = pr->tri != OZB_TRI_ALL || zb;   /* blocks of columns; else of rows (za) */
    if (!cols && !za) return 0;
    /* a tile C keeps nothing of */
    if ((pr->tri == OZB_TRI_LOWER && i0 + mbb <= j0) || (pr->tri == OZB_TRI_UPPER && i0 >= j0 + nbb)) return -1;
    const int64_t len = cols ? nbb : mbb;
    /* at most OZB_PBLOCKS_MAX blocks, each a multiple of 64 wide (the INT8 GEMM's tiles) */
    int64_t w = (len + OZB_PBLOCKS_MAX - 1) / OZB_PBLOCKS_MAX;
    w = (w + 63) / 64 * 64;
    if (w >= len) return 0;
    int nb = 0;
    for (int64_t p0 = 0; p0 < len; p0 += w) {
        const int64_t p1 = p0 + w < len ? p0 + w : len;
        ozb_pblock b = { 0, mbb, 0, nbb, 0, kbp };
        if (cols) { b.c0 = p0; b.c1 = p1; }
        else { b.r0 = p0; b.r1 = p1; }
        /* C's triangle in its own coordinates: lower keeps i >= j, upper i <= j */
        if (pr->tri == OZB_TRI_LOWER && j0 + b.c0 - i0 > b.r0) b.r0 = j0 + b.c0 - i0;
        if (pr->tri == OZB_TRI_UPPER && j0 + b.c1 - i0 < b.r1) b.r1 = j0 + b.c1 - i0;
        if (b.r0 >= b.r1) continue;
        /* nonzero products: op(A)(i, l) with l <= i (KLE) or l >= i (KGE), i over the block's
         * rows; op(B)^T(j, l) likewise over its columns */
        int64_t l0 = 0, l1 = kbp;
        if (pr->zeros == OZB_ZEROS_A_KLE) l1 = i0 + b.r1;
        if (pr->zeros == OZB_ZEROS_A_KGE) l0 = i0 + b.r0;
        if (pr->zeros == OZB_ZEROS_B_KLE) l1 = j0 + b.c1;
        if (pr->zeros == OZB_ZEROS_B_KGE) l0 = j0 + b.c0;
        /* widened to multiples of 16 inside [0, kbp) (more terms of the same sum), at least 16:
         * the INT8 GEMM's k a multiple of 4, its pointers aligned */
        l0 = l0 / 16 * 16;
        l1 = up16(l1) < kbp ? up16(l1) : kbp;
        if (l1 <= l0) {
            l0 = l1 >= 16 ? l1 - 16 : 0;
            l1 = l0 + 16;
        }
        b.l0 = l0;
        b.l1 = l1;
        out[nb++] = b;
    }
    return nb;
}

int ozb_ptile_block(ozb_dev *dev, const ozb_ptile *t, const ozb_pblock *pb, int npb, int u, ozb_pblock *b,
                    int64_t *calls, double *flops, double *tmul)
{
    if (!npb) {
        *b = (ozb_pblock){ 0, t->mbb, 0, t->nbb, 0, t->kbp };
        *flops += 2.0 * (double)t->mbb * (double)t->nbb * (double)t->k * t->s;
        return 0;
    }
    *b = pb[u];
    const int64_t rows = b->r1 - b->r0, cols = b->c1 - b->c0, kq = b->l1 - b->l0;
    *flops += 2.0 * (double)rows * (double)cols * (double)kq * t->s;
    const double t0 = ozb_now();
    /* (TN: each side's rows run along k, a modulus' residues every mbb kbp or nbb kbp bytes) */
    const int rc = ozb_dev_gemm_batched(dev, OZB_DT_S8, 1, 0, rows, cols, kq, t->RA + b->r0 * t->kbp + b->l0, t->kbp,
                                        t->mbb * t->kbp, t->RB + b->c0 * t->kbp + b->l0, t->kbp, t->nbb * t->kbp, t->acc,
                                        rows, rows * cols, t->s);
    ++*calls;
    *tmul += ozb_now() - t0;
    return rc;
}
