/* How many moduli and how many bits (crt.c): the ACCURATE scaling's bound on |A||B| (one extra
 * exact GEMM, FIXED mode), DOUBLE mode's moduli count and the operands of its per-element
 * lower bound of |A||B|. */
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
                OZB_PARALLEL_FOR_IF(nt > 1 && (mbb + nbb) * kbb >= OZB_PAR_WORK, nt, schedule(static),
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
            OZB_PARALLEL_FOR_IF(nt > 1 && mbb * nbb >= OZB_PAR_WORK, nt, schedule(static),
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

/* DOUBLE mode's moduli count: a function of k alone, so that every element of C depends on
 * its own row of op(A) and column of op(B) alone (a count chosen to meet Algorithm 3's row bound
 * over the whole of op(B) would give a GEMM computed by column blocks other bits).  Each element's own certificate (crt.c, certify_tile) decides whether the
 * count was enough for it; where not, the element is computed correctly rounded.  15 moduli
 * (alpha = 58: each row and column kept to 2^-58 of its 2-norm) certify every element of the
 * phi = 0.5 generator at 2048^3 and all but 6 of 4.2M at phi = 1; 14 (alpha = 54) certify none
 * there (measured on the AVX-512 EPYC); k < 32: 16 (alpha = 61), where a row of a few
 * entries keeps its small ones only to 2^(c - alpha). */
int ozb_crt_double_moduli(int64_t k) { return k < 32 ? 16 : 15; }

/* The operands of DOUBLE mode's lower bound of |A||B| (crt.c, certify_tile): each entry as
 * min(floor(|x| 2^(hs - e)), 127), so that 2^-(hs - e) times it is at most |x| and the exact
 * GEMM of both sides' gives L_ij <= (|A||B|)_ij.  7 bits a side: products below 2^14, 2^16 of
 * them per k-block below 2^30, exact in int32 on every route of the CRT's product (oneDNN
 * without VNNI is exact for u8 <= 127 with any s8).  hs = 7 keeps every entry
 * (|x| < 2^e); a row whose 2-norm is far below sqrt(k) times its maximum (wide spans, phi >= 1)
 * would keep most entries to a bit or two, so hs puts its root mean square near 2^6 instead
 * and lets the largest entries (above about twice it) clamp at 127.  Measured at 2048^3,
 * phi = 1, elements left uncertified: 6 of 4.2M with 2^6, 102 with 2^5, 2406 with 2^4 (each
 * would have passed with the exact |A||B|: L was the limit); phi = 0.5: none; uniform rows
 * (phi = 0) keep hs = 7, unclamped.  A function of the row alone (e, c, k). */
void ozb_crt_set_hats(rowscale_t *rs, int64_t rows, int64_t k)
{
    int lk = 0;
    while (((int64_t)1 << (lk + 1)) <= k) lk++;       /* floor(log2 k) */
    for (int64_t i = 0; i < rows; i++) {
        int32_t hs = 7;
        if (crt_usable(rs[i].e)) {
            const int32_t rms = 6 + lk / 2 - (rs[i].c - rs[i].e);   /* 2^-(c - e) sqrt(k) ~ max / rms */
            hs = rms > hs ? (rms < 40 ? rms : 40) : hs;
        }
        rs[i].hs = hs;
    }
}

/* The operands of rows r0 .. r0 + rows - 1 over l0 .. l0 + kb - 1, in the residues' layout
 * (column layout where v->rs == 1 and rows > 1: out[l * rows + i], read column by column in
 * memory order, returns 1; else out[i * kb + l]); g: 2 rows doubles of scratch.  Each is
 * ozb_op_crt_hat (kernels/ozb_crt_ops.h), the device's too. */
static inline uint8_t low_hat(double x, double g1, double g2) { return ozb_op_crt_hat(x, g1, g2); }

int ozb_crt_low_hats(const ozb_view *v, const rowscale_t *rs, int64_t r0, int64_t rows, int64_t l0, int64_t kb,
                     uint8_t *out, double *g, int nt)
{
    double *g1 = g, *g2 = g + rows;              /* 0 for unusable rows (zero or Inf/NaN: 0) */
    for (int64_t i = 0; i < rows; i++) {
        double p[2] = {0.0, 0.0};
        if (crt_usable(rs[r0 + i].e)) ozb_pow2_pair(rs[r0 + i].hs - rs[r0 + i].e, p);
        g1[i] = p[0];
        g2[i] = p[1];
    }
    if (v->rs == 1 && v->cs != 1 && rows > 1) {
        OZB_PARALLEL_FOR_IF(nt > 1 && rows * kb >= OZB_PAR_WORK, nt, schedule(static),
        for (int64_t l = 0; l < kb; l++) {
            const double *col = v->p + r0 + (l0 + l) * v->cs;
            uint8_t *o = out + l * rows;
            for (int64_t i = 0; i < rows; i++) o[i] = g1[i] == 0.0 ? 0 : low_hat(col[i], g1[i], g2[i]);
        });
        return 1;
    }
    OZB_PARALLEL_FOR_IF(nt > 1 && rows * kb >= OZB_PAR_WORK, nt, schedule(static),
    for (int64_t i = 0; i < rows; i++) {
        const double *src = v->p + (r0 + i) * v->rs + l0 * v->cs;
        uint8_t *o = out + i * kb;
        for (int64_t l = 0; l < kb; l++) o[l] = g1[i] == 0.0 ? 0 : low_hat(src[l * v->cs], g1[i], g2[i]);
    });
    return 0;
}
