/* The CRT format's scaling (crt.c, step 1): per row of op(A) and column of op(B) its
 * exponent, norms and the power of two 2^ka that makes its integers. */
#include "crt/crt_internal.h"
#include "core/par.h"
#include "sum/lane_sums.h"

/* A row's statistics from kernels/ozb_crt_ops.h's (the device computes the same) */
static void set_scale(rowscale_t *r, ozb_op_crt_row o)
{
    r->e = o.e;
    r->c = ozb_op_usable(o.e) ? o.c : 0;
    r->l1 = ozb_op_usable(o.e) ? o.l1 : 0.0;
    r->cz = INT32_MIN;
}

/* Rows of a view: contiguous rows (cs == 1, or a single strided row) are walked row by
 * row (ozb_op_crt_rowscale); strided rows with contiguous columns (rs == 1) column by
 * column, with per-row lane partials, so that memory is read in order.  Each row's sums
 * take the same terms into the same partials in the same order either way (lane order,
 * ozb_op_lane_tree): the same bits. */
void ozb_crt_row_scales(const ozb_view *v, int64_t rows, int64_t k, rowscale_t *rs, int nt)
{
    enum { L = OZB_OP_SUM_LANES, CH = 64 };   /* 32 KB of partials on the stack */
    if (v->rs == 1 && v->cs != 1 && rows > 1) {
        const int64_t nch = (rows + CH - 1) / CH;
        OZB_PARALLEL_FOR_IF(nt > 1 && rows * k >= OZB_PAR_WORK, nt, schedule(static),
        for (int64_t ch = 0; ch < nch; ch++) {
            const int64_t i0 = ch * CH, i1 = i0 + CH < rows ? i0 + CH : rows, w = i1 - i0;
            uint64_t mx[CH];
            int32_t e[CH];
            double p2[L][CH], p1[L][CH], sc[CH], g2[CH];     /* [lane][row]: rows contiguous */
            for (int64_t i = 0; i < w; i++) mx[i] = 0;
            /* the first term of a lane is stored (every term is +0 or more: 0 + t = t), lanes
             * that get none are zero */
            for (int t = (int)(k < L ? k : L); t < L; t++)
                for (int64_t i = 0; i < w; i++) p2[t][i] = p1[t][i] = 0.0;
            for (int64_t l = 0; l < k; l++) {
                const double *col = v->p + l * v->cs + i0;
                for (int64_t i = 0; i < w; i++) {
                    const uint64_t b = ozb_bits(col[i]) & 0x7fffffffffffffffull;
                    mx[i] = b > mx[i] ? b : mx[i];
                }
            }
            for (int64_t i = 0; i < w; i++) {
                e[i] = ozb_op_crt_row_exp(mx[i]);
                double g[2] = {0.0, 0.0};
                if (ozb_op_usable(e[i])) ozb_pow2_pair(-e[i], g);
                sc[i] = g[0]; g2[i] = g[1];                  /* 0 for unusable rows: sums unused */
            }
            for (int64_t l = 0; l < k; l++) {
                const double *col = v->p + l * v->cs + i0;
                double *q2 = p2[l % L], *q1 = p1[l % L];
                if (l < L)
                    for (int64_t i = 0; i < w; i++) {
                        const double x = col[i] * sc[i] * g2[i];
                        q2[i] = x * x;
                        q1[i] = fabs(x);
                    }
                else
                    for (int64_t i = 0; i < w; i++) {
                        const double x = col[i] * sc[i] * g2[i];
                        q2[i] += x * x;
                        q1[i] += fabs(x);
                    }
            }
            ozb_lane_tree_cols(&p2[0][0], CH, w);          /* ozb_op_lane_tree of every row */
            ozb_lane_tree_cols(&p1[0][0], CH, w);
            for (int64_t i = 0; i < w; i++) {
                ozb_op_crt_row o = {e[i], 0, 0.0};
                if (ozb_op_usable(e[i])) o = ozb_op_crt_row_of_sums(e[i], p2[0][i], p1[0][i]);
                set_scale(&rs[i0 + i], o);
            }
        });
        return;
    }
    OZB_PARALLEL_FOR_IF(nt > 1 && rows * k >= OZB_PAR_WORK, nt, schedule(static),
    for (int64_t i = 0; i < rows; i++) set_scale(&rs[i], ozb_op_crt_rowscale(v->p + i * v->rs, v->cs, k)););
}

/* The scaling exponent of a row for s moduli: FAST ka = alpha - c (||x'||_2 <= 2^alpha);
 * ACCURATE rows of op(A) may take more, ka = log2M - 1 - alpha - cz - e + 13 (crt_accurate),
 * whichever is larger: each alone keeps every |C'| below M/2.  Capped so that |x'| < 2^61. */
int32_t ozb_crt_row_ka(const rowscale_t *r, const ozb_crt_consts *cs)
{
    int32_t ka = cs->alpha - r->c;
    if (r->cz != INT32_MIN) {
        const int32_t acc = cs->log2M - 1 - cs->alpha - r->cz - r->e + 13;
        if (acc > ka) ka = acc;
        if (ka > 61 - r->e) ka = 61 - r->e;
    }
    return ka;
}

/* The scaling factors of every usable row: f1 f2 = 2^ka exactly (see scale2) */
void ozb_crt_set_factors(rowscale_t *rs, int64_t rows, const ozb_crt_consts *cs)
{
    for (int64_t i = 0; i < rows; i++) {
        if (!crt_usable(rs[i].e)) { rs[i].f1 = rs[i].f2 = 0.0; rs[i].ka = 0; continue; }
        double g[2];
        rs[i].ka = ozb_crt_row_ka(&rs[i], cs);
        ozb_pow2_pair(rs[i].ka, g);
        rs[i].f1 = g[0];
        rs[i].f2 = g[1];
    }
}
