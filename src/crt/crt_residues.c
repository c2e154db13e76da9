/* The CRT format's residues (crt.c, step 2): the scaled integers of a tile of rows modulo
 * every modulus, exactly, as int8 (op(A)) or uint8 (op(B)). */
#include "crt/crt_internal.h"
#include "core/par.h"

void ozb_crt_resconst_init(int t0, int s, resconst_t *rc)
{
    rc->s = s;
    rc->ka = NULL;                                   /* the truncating scaling (crt.c) */
    rc->pw = NULL;
    for (int t = 0; t < s; t++) {
        rc->m[t] = (double)ozb_crt_moduli[t0 + t];
        rc->inv[t] = 1.0 / rc->m[t];
        rc->p26[t] = (double)(((int64_t)1 << 26) % ozb_crt_moduli[t0 + t]);
    }
}

/* Residues of n consecutive entries src[0..n) scaled by f1[i] f2[i] (or by f1[0] f2[0]
 * for all when uniform): out[t * tstride + i] in [-128, 127].
 * x = trunc(a 2^ka) (an integer below 2^62) = xh 2^26 + xl exactly (|xl| < 2^26, |xh| < 2^36),
 * y = xh (2^26 mod m) + xl is congruent to x and below 2^44 (one exact FMA), and
 * r = y - m RN(y/m) with RN by the 1.5 2^52 trick (|y/m| < 2^51; the quotient from y*inv is
 * off by at most one at a tie, which the two corrections absorb): exact integer steps. */
OZB_CLONES static void residues(const double *src, const double *f1, const double *f2, int uniform, int64_t n,
                     const resconst_t *rc, int8_t *out, int64_t tstride, double *xh, double *xl, int uns)
{
    for (int64_t i = 0; i < n; i++) {
        const double a = uniform ? src[i] * f1[0] * f2[0] : src[i] * f1[i] * f2[i];
        /* Rows with Inf/NaN (E_BAD) have f1 = f2 = 0, so a is NaN there: 0 instead (those
         * outputs come from ozb_special_combine), else the (int32_t) in the residue converts
         * NaN, which is undefined behaviour.  |a| < 2^62 otherwise. */
        ozb_op_crt_hl(a, &xh[i], &xl[i]);
    }
    for (int t = 0; t < rc->s; t++) {
        const double m = rc->m[t], inv = rc->inv[t], p = rc->p26[t];
        int8_t *o = out + t * tstride;
        for (int64_t i = 0; i < n; i++) o[i] = ozb_op_crt_residue(xh[i], xl[i], m, inv, p, uns);   /* uns: [0, m) as uint8 */
    }
}

/* Residues of rows r0..r0+rows-1 over l0..l0+kb-1 of a view.  Row layout (rows contiguous,
 * or gathered): out[(t*rows + i)*kb + l]; column layout (v->rs == 1, rows > 1):
 * out[(t*kb + l)*rows + i].  Returns 1 for the column layout. */
int ozb_crt_make_residues(const ozb_view *v, const rowscale_t *rs, int64_t r0, int64_t rows, int64_t l0,
                         int64_t kb, const resconst_t *rc, int8_t *out, double *tmp, int nt, int uns)
{
    if (v->rs == 1 && v->cs != 1 && rows > 1) {
        /* per column: the rows' factors as arrays */
        double *f1 = tmp, *f2 = tmp + rows;
        for (int64_t i = 0; i < rows; i++) { f1[i] = rs[r0 + i].f1; f2[i] = rs[r0 + i].f2; }
        OZB_PARALLEL_IF(nt > 1 && rows * kb >= OZB_PAR_WORK, num_threads(nt),
        {
            double *xh = tmp + 2 * rows + (int64_t)omp_get_thread_num() * 2 * rows, *xl = xh + rows;
            OZB_PRAGMA(omp for schedule(static))
            for (int64_t l = 0; l < kb; l++)
                residues(v->p + r0 + (l0 + l) * v->cs, f1, f2, 0, rows, rc, out + l * rows, kb * rows, xh, xl, uns);
        });
        return 1;
    }
    OZB_PARALLEL_IF(nt > 1 && rows * kb >= OZB_PAR_WORK, num_threads(nt),
    {
        double *buf = tmp + (int64_t)omp_get_thread_num() * 3 * kb, *xh = buf + kb, *xl = xh + kb;
        OZB_PRAGMA(omp for schedule(static))
        for (int64_t i = 0; i < rows; i++) {
            const double *src = v->p + (r0 + i) * v->rs + l0 * v->cs;
            if (v->cs != 1) { for (int64_t l = 0; l < kb; l++) buf[l] = src[l * v->cs]; src = buf; }
            residues(src, &rs[r0 + i].f1, &rs[r0 + i].f2, 1, kb, rc, out + i * kb, rows * kb, xh, xl, uns);
        }
    });
    return 0;
}
