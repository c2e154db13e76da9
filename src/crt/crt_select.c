/* How many moduli (crt.c): the ACCURATE scaling's bound on |A||B| (one extra exact GEMM)
 * and DOUBLE mode's selection of the fewest moduli that meet Algorithm 3's row bound. */
#include "sum/lane_sums.h"
#include "core/tiles.h"
#include "crt/crt_internal.h"
#include "core/par.h"

/* ACCURATE scaling (seed 002's second strategy): one extra exact GEMM bounds |A||B|.
 * Ahat = ceil(|a| 2^(6 - e_i)) <= 64 (int8), Bhat = ceil(|b| 2^(7 - e_j)) <= 128 (uint8; a nonzero
 * entry whose scaled copy underflows counts 1), so U'_ij = sum_l Bhat_jl Ahat_il >=
 * 2^(13 - e_i - e_j) (|A||B|)_ij, exact in int32 per 2^16-block (products <= 2^13).  With
 * kb_j = alpha - c_j: |C'_ij| <= 2^(ka_i + e_i - 13 + alpha) Z_i, Z_i = max_j U'_ij 2^(e_j - c_j),
 * so ka_i = log2M - 1 - alpha - ceil(log2 Z_i) - e_i + 13 keeps every |C'| below M/2 (row_ka).
 * Sets ra[i].cz (tiled under the workspace limit; the maxima do not depend on the tiling);
 * returns 0 on allocation failure. */
int ozb_crt_accurate(ozblas_handle_t h, const ozb_problem *pr, rowscale_t *ra, const rowscale_t *rb, int nt)
{
    const int64_t m = pr->m, n = pr->n, k = pr->k, kb = k < OZB_CRT_KBLOCK ? k : OZB_CRT_KBLOCK, nkb = (k + kb - 1) / kb;
    /* tiles under the workspace limit (the bound is the same whatever the tiling) */
    int64_t mb, nb;
    ozb_tiles(ozb_workspace_limit(h), m, n, (ozb_tile_cost){(double)kb, (double)kb, 12.0, 0.0, 0.0}, &mb, &nb);
    int8_t *Ah = ozb_buf_get(h, OZB_BUF_SA, (size_t)mb * (size_t)kb + 64);
    uint8_t *Bh = ozb_buf_get(h, OZB_BUF_SB, (size_t)nb * (size_t)kb + 64);
    int32_t *U = ozb_buf_get(h, OZB_BUF_P, sizeof(int32_t) * (size_t)mb * (size_t)nb + 64);
    double *Ud = ozb_buf_get(h, OZB_BUF_TERMS, sizeof(double) * (size_t)mb * (size_t)nb + 64);
    double *Z = ozb_buf_get(h, OZB_BUF_LAZY, sizeof(double) * (size_t)m + 64);
    if (!Ah || !Bh || !U || !Ud || !Z) return 0;
    for (int64_t i = 0; i < m; i++) Z[i] = 0.0;
    for (int64_t j0 = 0; j0 < n; j0 += nb) {
        const int64_t nbb = nb < n - j0 ? nb : n - j0;
        for (int64_t i0 = 0; i0 < m; i0 += mb) {
            const int64_t mbb = mb < m - i0 ? mb : m - i0;
            for (int64_t kk = 0; kk < nkb; kk++) {
                const int64_t l0 = kk * kb, kbb = kb < k - l0 ? kb : k - l0;
                OZB_PARALLEL_FOR_IF(nt > 1 && (mbb + nbb) * kbb >= OZB_PAR_WORK, num_threads(nt) schedule(static),
                for (int64_t r = 0; r < mbb + nbb; r++) {
                    const int isA = r < mbb;
                    const int64_t row = isA ? i0 + r : j0 + (r - mbb);
                    const rowscale_t *sc = isA ? &ra[row] : &rb[row];
                    const ozb_view *v = isA ? &pr->a : &pr->b;
                    double g[2] = {0.0, 0.0};
                    if (crt_usable(sc->e)) ozb_pow2_pair((isA ? 6 : 7) - sc->e, g);
                    for (int64_t l = 0; l < kbb; l++) {
                        const double a = fabs(ozb_view_at(v, row, l0 + l));
                        double q = crt_usable(sc->e) ? ceil(a * g[0] * g[1]) : 0.0;
                        q = (a != 0.0 && q == 0.0 && crt_usable(sc->e)) ? 1.0 : q;
                        if (isA) Ah[(row - i0) * kbb + l] = (int8_t)(int32_t)q;
                        else Bh[(row - j0) * kbb + l] = (uint8_t)(int32_t)q;
                    }
                });
                if (h->be->crt_gemm(h, Bh, 0, Ah, 0, mbb, nbb, kbb, U, 0, nt)) return -1;   /* exact (mod 0) */
                for (int64_t e = 0; e < mbb * nbb; e++) Ud[e] = (kk ? Ud[e] : 0.0) + (double)U[e];   /* exact below 2^53 */
            }
            OZB_PARALLEL_FOR_IF(nt > 1 && mbb * nbb >= OZB_PAR_WORK, num_threads(nt) schedule(static),
            for (int64_t il = 0; il < mbb; il++) {
                double z = Z[i0 + il];
                for (int64_t jl = 0; jl < nbb; jl++) {
                    const rowscale_t *rj = &rb[j0 + jl];
                    if (!crt_usable(rj->e)) continue;
                    const double x = Ud[jl * mbb + il] * ozb_pow2(rj->e - rj->c);   /* exact: e_j - c_j in [-6, 0] */
                    z = x > z ? x : z;
                }
                Z[i0 + il] = z;                        /* a max: the tiling does not matter */
            });
        }
    }
    for (int64_t i = 0; i < m; i++) {
        ra[i].cz = INT32_MIN;
        if (!crt_usable(ra[i].e) || Z[i] == 0.0) continue;
        int c = ozb_ilogb(Z[i]);
        if (Z[i] != ozb_pow2(c)) c++;
        ra[i].cz = c;
    }
    return 1;
}

/* DOUBLE mode: the fewest moduli whose truncation and reconstruction errors, summed over
 * each row, stay below Algorithm 3's row bound; 0 when even OZB_CRT_MAXMOD do not. */
int32_t ozb_crt_col_exp(const rowscale_t *rb, int64_t n)
{
    int32_t EB = INT32_MIN;
    for (int64_t j = 0; j < n; j++) if (rb[j].e != E_ZERO && rb[j].e != E_BAD && rb[j].e > EB) EB = rb[j].e;
    return EB;
}

/* dot_i = sum_l |a_il 2^-e_i| v_l for the m rows of a, in lane order (ozb_op_crt_dot_item; both
 * loop orders put each term into the same partial in the same order: the same bits) */
void ozb_crt_row_dots(const ozb_view *a, int64_t m, int64_t k, const rowscale_t *ra, const double *v, double *dot, int nt)
{
    if (a->rs == 1 && a->cs != 1 && m > 1) {
        enum { L = OZB_OP_SUM_LANES, CH = 64 };   /* 32 KB of partials on the stack */
        const int64_t nch = (m + CH - 1) / CH;
        OZB_PARALLEL_FOR_IF(nt > 1 && m * k >= OZB_PAR_WORK, num_threads(nt) schedule(static),
        for (int64_t ch = 0; ch < nch; ch++) {
            const int64_t i0 = ch * CH, i1 = i0 + CH < m ? i0 + CH : m, w = i1 - i0;
            double g1[CH], g2[CH], p[L][CH];             /* [lane][row]: rows contiguous */
            for (int64_t i = 0; i < w; i++) {
                double g[2] = {0.0, 0.0};
                if (crt_usable(ra[i0 + i].e)) ozb_pow2_pair(-ra[i0 + i].e, g);
                g1[i] = g[0]; g2[i] = g[1];
            }
            /* the first term of a lane is stored (every term is +0 or more), unused lanes zero */
            for (int t = (int)(k < L ? k : L); t < L; t++)
                for (int64_t i = 0; i < w; i++) p[t][i] = 0.0;
            for (int64_t l = 0; l < k; l++) {
                const double *col = a->p + l * a->cs + i0;
                double *q = p[l % L];
                /* ozb_op_crt_dot_term's arithmetic, |a g1 g2| v */
                if (l < L) for (int64_t i = 0; i < w; i++) q[i] = fabs(col[i] * g1[i] * g2[i]) * v[l];
                else       for (int64_t i = 0; i < w; i++) q[i] += fabs(col[i] * g1[i] * g2[i]) * v[l];
            }
            ozb_lane_tree_cols(&p[0][0], CH, w);           /* ozb_op_lane_tree of every row */
            for (int64_t i = 0; i < w; i++) dot[i0 + i] = p[0][i];
        });
    } else {
        OZB_PARALLEL_FOR_IF(nt > 1 && m * k >= OZB_PAR_WORK, num_threads(nt) schedule(static),
        for (int64_t i = 0; i < m; i++) {
            double g[2] = {0.0, 0.0};
            if (crt_usable(ra[i].e)) ozb_pow2_pair(-ra[i].e, g);
            dot[i] = ozb_op_crt_dot_row(a->p + i * a->rs, a->cs, k, g, v);
        });
    }
}

int ozb_crt_choose_moduli(const ozb_problem *pr, const rowscale_t *ra, const rowscale_t *rb, int nt, double *v)
{
    const int64_t m = pr->m, n = pr->n, k = pr->k;
    /* B's quantities relative to 2^EB, EB its largest column exponent */
    const int32_t EB = ozb_crt_col_exp(rb, n);
    if (EB == INT32_MIN) return 2;                  /* op(B) is zero: every moduli count is exact */
    /* v_l = sum_j |b_jl| 2^-EB (the weights of Algorithm 3), in lane order over j */
    double gB[2];
    ozb_pow2_pair(-EB, gB);
    ozb_lane_col_sums(pr->b.p, pr->b.rs, pr->b.cs, n, k, NULL, gB[0], gB[1], v, nt, nt > 1 && n * k >= OZB_PAR_WORK);
    /* dot_i = (|A||B|e)_i 2^-(e_i + EB) */
    double *dot = v + k;
    ozb_crt_row_dots(&pr->a, m, k, ra, v, dot, nt);
    return ozb_crt_select(m, n, k, ra, rb, EB, dot, nt);
}

int ozb_crt_select(int64_t m, int64_t n, int64_t k, const rowscale_t *ra, const rowscale_t *rb, int32_t EB,
                   const double *dot, int nt)
{
    double SB1 = 0.0, SBl1 = 0.0;
    for (int64_t j = 0; j < n; j++) {
        if (rb[j].e == E_ZERO || rb[j].e == E_BAD) continue;
        SB1 += ozb_op_scale2(1.0, rb[j].c - EB);
        SBl1 += ozb_op_scale2(rb[j].l1, rb[j].e - EB);
    }
    SB1 += (double)n * 0x1p-1000;                   /* what underflowed above, rounded up */
    SBl1 += (double)n * 0x1p-1000;
    double a2s[OZB_CRT_MAXMOD + 1];                 /* 2^-alpha for s moduli */
    ozb_crt_consts css[OZB_CRT_MAXMOD + 1];
    for (int q = 2; q <= OZB_CRT_MAXMOD; q++) {
        ozb_crt_consts_init(q, &css[q]);
        a2s[q] = ozb_pow2(-css[q].alpha);
    }
    int need = 2;
    OZB_PARALLEL_FOR_IF(nt > 1 && m >= 1024, num_threads(nt) schedule(static) reduction(max:need),
    for (int64_t i = 0; i < m; i++) {
        const rowscale_t *r = &ra[i];
        if (r->e == E_ZERO || r->e == E_BAD) continue;
        /* a quarter of Algorithm 3's 2 sqrt(k) u: the bound above is a worst case that the
         * truncation errors approach within a small factor, while DGEMM's actual errors stay far
         * below 2 sqrt(k) u |A||B|; at a quarter the chosen count gives max errors below
         * OpenBLAS's on the phi generator (measured: n = 512..2048, phi = 0..1, 15 moduli). */
        const double rhs = 0.5 * sqrt((double)k) * 0x1p-53 * dot[i] * (1.0 - 0x1p-40);
        int s = 2;
        for (; s <= OZB_CRT_MAXMOD; s++) {
            const double a2 = a2s[s];
            const double qa = ozb_op_scale2(1.0, -ozb_crt_row_ka(r, &css[s]) - r->e);   /* 2^-ka_i, row units */
            const double trunc_err = a2 * r->l1 * SB1 + qa * SBl1 + (double)k * a2 * qa * SB1;
            /* the one rounding of C' (a value known to ~2^-100) is the counterpart of DGEMM's own
             * rounding of its result, as alpha and beta are: only the truncation is charged */
            if (trunc_err <= rhs) break;
        }
        need = s > need ? s : need;
    });
    return need > OZB_CRT_MAXMOD ? 0 : need;
}
