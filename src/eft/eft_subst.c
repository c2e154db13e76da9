/* The in-block forward substitution on eight lanes (eft_subst.h).  Row i's sum over the rows
 * before it is a GEMV-N strip: its eight lanes are the right-hand sides, its columns the rows
 * l < i of the block (buf, eight doubles apart), its vector row i of the triangle; so the
 * strip's split and certificate (ozb_eft_strip_block, ozb_eft_strip_put: eft_kern.h's budget
 * for one block of at most OZB_SUBST_ROWS < BLN products a lane) give RN(exact) or flag the
 * lane, and a lane whose every product is exactly zero (a zero factor times a finite one) gets
 * the zero-products value.  The division is IEEE division, lane by lane the same as the scalar
 * one.  Compiled with -ffp-contract=off: the FMAs are explicit. */
#include "eft/eft_subst.h"
#include "eft/eft_kern.h"
#include "exact/zero_products.h"
#include <math.h>
#include <string.h>

int ozb_eft_subst_applies(ozblas_handle_t h)
{
#ifdef EFT_AVX2
    return !h->knobs.no_dot2;
#else
    (void)h;
    return 0;
#endif
}

#ifdef EFT_AVX2
_Static_assert(OZB_SUBST_ROWS <= BLN, "one strip block per row");

/* whether every product of lane q in row i is exactly zero: one factor zero and the other
 * finite (the strip's range test alone does not prove the other finite: its running maximum
 * can drop a NaN product that a later finite one follows) */
static int zero_products(const double *t, const double *buf, int64_t i, int q)
{
    for (int64_t l = 0; l < i; l++) {
        const double u = t[l], v = buf[8 * l + q];
        if (!((u == 0.0 && isfinite(v)) || (v == 0.0 && isfinite(u)))) return 0;
    }
    return 1;
}
#endif

int64_t ozb_eft_subst8(const double *tb, const double *d, int64_t bs, int64_t r0, int lanes, double *buf,
                       uint8_t fail[8])
{
#ifdef EFT_AVX2
    ozb_problem pr = { .m = lanes, .n = 1, .alpha = -1.0, .beta = 1.0, .crs = 1, .ccs = 0, .kblock = OZB_KBLOCK_MAX };
    const ozb_eft_t e = { .pr = &pr, .fail = fail };
    const __m256d z = _mm256_setzero_pd();
    memset(fail, 0, 8);
    for (int64_t i = r0; i < bs; i++) {
        double *row = buf + 8 * i;
        if (i > 0) {
            const double *t = tb + OZB_SUBST_ROWS * i;
            row4_t st[2];
            for (int v = 0; v < 2; v++) st[v].t.s = st[v].t.c = st[v].t.a = st[v].t.g = st[v].g = z;
            pr.k = i;
            pr.c = row;
            if (!ozb_eft_strip_block(buf, 8, t, i, st, 1)) {
                memset(fail, 1, (size_t)lanes);   /* a product or row out of range */
                return i;
            }
            if (ozb_eft_strip_put(&e, 0, st, 0) != 0) {
                int left = 0;
                for (int q = 0; q < lanes; q++)
                    if (fail[q] && !(zero_products(t, buf, i, q) && ozb_exact_zero_products_put(&pr, q, 0, fail)))
                        left++;
                if (left) return i;
            }
        }
        if (d) {
            const __m256d dv = _mm256_set1_pd(d[i]);
            _mm256_storeu_pd(row, _mm256_div_pd(_mm256_loadu_pd(row), dv));
            _mm256_storeu_pd(row + 4, _mm256_div_pd(_mm256_loadu_pd(row + 4), dv));
            for (int q = lanes; q < 8; q++) row[q] = 0.0;   /* 0 / d may be NaN */
        }
    }
    return bs;
#else
    (void)tb; (void)d; (void)bs; (void)buf;   /* not offered (ozb_eft_subst_applies) */
    memset(fail, 0, 8);
    memset(fail, 1, (size_t)lanes);
    return r0;
#endif
}
