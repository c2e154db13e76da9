/* The CRT format's scaling (crt.c, step 1): per row of op(A) and column of op(B) its
 * exponent, norms and the power of two 2^ka that makes its integers. */
#include "crt/crt_internal.h"
#include "core/par.h"

/* Row statistics from the row's maximum bits and its sums (same arithmetic in both layouts:
 * x 2^-e by scale2, then s2 += x*x and s1 += |x| with l ascending). */
static void finish_scale(rowscale_t *r, int64_t mx, double s2, double s1)
{
    r->cz = INT32_MIN;
    const int e = r->e;
    (void)mx;
    /* ||x 2^-e||_2 <= sqrt(s2 (1 + (k+1) 2^-52)) (1 + 2^-52): margin 2^-40 covers k < 2^30 */
    const double n2 = sqrt(s2) * (1.0 + 0x1p-40);
    int c = ozb_ilogb(n2);
    if (n2 != ozb_pow2(c)) c++;                      /* 2^c >= n2 */
    r->c = e + c;
    r->l1 = s1 * (1.0 + 0x1p-40);
}

static int32_t exp_of(int64_t mx)
{
    if (mx == 0) return E_ZERO;
    if ((uint64_t)mx >= 0x7ff0000000000000ull) return E_BAD;
    double m; memcpy(&m, &mx, sizeof m);
    return ozb_ilogb(m) + 1;
}


/* Rows of a view: contiguous rows (cs == 1, or a single strided row) are walked row by
 * row; strided rows with contiguous columns (rs == 1) column by column, with per-row
 * accumulators, so that memory is read in order.  Each row's sums run over l ascending
 * either way: the same bits. */
void ozb_crt_row_scales(const ozb_view *v, int64_t rows, int64_t k, rowscale_t *rs, int nt)
{
    if (v->rs == 1 && v->cs != 1 && rows > 1) {
        const int64_t chunk = 256, nch = (rows + chunk - 1) / chunk;
        OZB_PARALLEL_FOR_IF(nt > 1 && rows * k >= OZB_PAR_WORK, num_threads(nt) schedule(static),
        for (int64_t ch = 0; ch < nch; ch++) {
            const int64_t i0 = ch * chunk, i1 = i0 + chunk < rows ? i0 + chunk : rows;
            int64_t mx[256];
            double s2[256], s1[256], sc[256];
            for (int64_t i = i0; i < i1; i++) { mx[i - i0] = 0; s2[i - i0] = 0.0; s1[i - i0] = 0.0; }
            for (int64_t l = 0; l < k; l++) {
                const double *col = v->p + l * v->cs;
                for (int64_t i = i0; i < i1; i++) {
                    int64_t b = (int64_t)(ozb_bits(col[i]) & 0x7fffffffffffffffull);
                    mx[i - i0] = b > mx[i - i0] ? b : mx[i - i0];
                }
            }
            double g2[256];
            for (int64_t i = i0; i < i1; i++) {
                rs[i].e = exp_of(mx[i - i0]);
                double g[2] = {0.0, 0.0};
                if (crt_usable(rs[i].e)) ozb_pow2_pair(-rs[i].e, g);
                sc[i - i0] = g[0]; g2[i - i0] = g[1];      /* 0 for unusable rows: sums unused */
            }
            for (int64_t l = 0; l < k; l++) {
                const double *col = v->p + l * v->cs;
                for (int64_t i = i0; i < i1; i++) {
                    const double x = col[i] * sc[i - i0] * g2[i - i0];
                    s2[i - i0] += x * x;
                    s1[i - i0] += fabs(x);
                }
            }
            for (int64_t i = i0; i < i1; i++) {
                if (crt_usable(rs[i].e)) finish_scale(&rs[i], mx[i - i0], s2[i - i0], s1[i - i0]);
                else { rs[i].c = 0; rs[i].l1 = 0.0; rs[i].cz = INT32_MIN; }
            }
        });
        return;
    }
    OZB_PARALLEL_FOR_IF(nt > 1 && rows * k >= OZB_PAR_WORK, num_threads(nt) schedule(static),
    for (int64_t i = 0; i < rows; i++) {
        int64_t mx = 0;
        for (int64_t l = 0; l < k; l++) {
            int64_t b = (int64_t)(ozb_bits(ozb_view_at(v, i, l)) & 0x7fffffffffffffffull);
            mx = b > mx ? b : mx;
        }
        rs[i].e = exp_of(mx);
        if (!crt_usable(rs[i].e)) { rs[i].c = 0; rs[i].l1 = 0.0; rs[i].cz = INT32_MIN; continue; }
        double s2 = 0.0, s1 = 0.0, g[2];
        ozb_pow2_pair(-rs[i].e, g);
        for (int64_t l = 0; l < k; l++) {            /* |x 2^-e| < 1: no overflow, order fixed */
            const double x = ozb_view_at(v, i, l) * g[0] * g[1];
            s2 += x * x;
            s1 += fabs(x);
        }
        finish_scale(&rs[i], mx, s2, s1);
    });
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
