/* The earlier rows' sums of a triangular solve, column block by column block: each strip of
 * eight rows keeps the GEMV-N strip's running error-free sums (ozb_eft_strip_block, two lanes
 * of four) and its certificates round them (ozb_eft_strip_put).  Method and bit budget:
 * eft_kern.h; a block of at most 16 columns is within its BLN products per lane, and a row's
 * blocks are at most its k products, the count its bound takes.  Compiled with
 * -ffp-contract=off. */
#include "eft/eft_trcols.h"
#include "eft/eft_kern.h"
#include "core/ozb_internal.h"
#include "core/par.h"
#include <string.h>

#ifdef EFT_AVX2
_Static_assert(16 <= BLN, "a solved block's columns are one strip block");
_Static_assert(OZBLAS_TRSM_BLOCK <= 16 && OZBLAS_TRSM_BLOCK % 8 == 0,
               "a block's columns fit add_strips' 16, and its rows are whole strips");

static int64_t strips(int64_t m) { return (m + 7) / 8; }

size_t ozb_eft_trcols_bytes(int64_t m) { return ((sizeof(row4_t) * 2 + 1) * (size_t)strips(m) + 31) & ~(size_t)31; }

void ozb_eft_trcols_init(ozb_trcols_t *c, const double *p, int64_t rs, int64_t cs, int64_t m, int kind, void *buf)
{
    *c = (ozb_trcols_t){ p, rs, cs, m, kind, buf, (uint8_t *)buf + sizeof(row4_t) * 2 * (size_t)strips(m) };
    row4_t *st = buf;
    const __m256d z = _mm256_setzero_pd();
    for (int64_t q = 0; q < 2 * strips(m); q++) st[q].t.s = st[q].t.c = st[q].t.a = st[q].t.g = st[q].g = z;
    memset(c->bad, 0, (size_t)strips(m));
}

/* Strip b's lanes: its rows in order (rs = 1, or a last strip short of eight rows, read
 * through a copy with zeros below m), or where rs = -1 in the order they lie in memory,
 * row 8 b + 7 first */
static int reversed(const ozb_trcols_t *c, int64_t b) { return c->rs < 0 && 8 * b + 8 <= c->m; }

typedef struct {
    const ozb_trcols_t *c;
    int64_t b0, c0, nb;
    const double *x;
} add_t;

static int64_t add_strips(void *ctx, int64_t lo, int64_t hi)
{
    const add_t *a = ctx;
    const ozb_trcols_t *c = a->c;
    row4_t *st = c->st;
    double pad[8 * 16];
    const double *col[16], *cb[16], *pcol[16];
    for (int64_t j = 0; j < a->nb; j++) {
        col[j] = ozb_trcols_col(c, a->c0 + j);
        pcol[j] = pad + 8 * j;
    }
    for (int64_t b = a->b0 + lo; b < a->b0 + hi; b++) {
        if (c->bad[b]) continue;
        const double *const *cs = cb;
        if (8 * b + 8 > c->m) {
            const int64_t rows = c->m - 8 * b;
            for (int64_t j = 0; j < a->nb; j++)
                for (int64_t r = 0; r < 8; r++) pad[8 * j + r] = r < rows ? col[j][(8 * b + r) * c->rs] : 0.0;
            cs = pcol;
        } else {
            const int64_t off = reversed(c, b) ? -(8 * b + 7) : 8 * b;
            for (int64_t j = 0; j < a->nb; j++) cb[j] = col[j] + off;
        }
        if (!ozb_eft_strip_block_cols(cs, a->x + a->c0, a->nb, &st[2 * b], a->c0 == 0, 0)) c->bad[b] = 1;
    }
    return 0;
}

void ozb_eft_trcols_add(const ozb_trcols_t *c, int64_t b0, int64_t c0, int64_t nb, const double *x, int nt)
{
    const add_t a = { c, b0, c0, nb, x };
    const int64_t n = strips(c->m) - b0;
    if (n > 0) (void)ozb_par_for(nt > 1, nt, n, add_strips, (void *)&a);
}

int64_t ozb_eft_trcols_put(const ozb_trcols_t *c, int64_t b, int64_t k, double *x, uint8_t fail[8])
{
    const int64_t rows = c->m - 8 * b < 8 ? c->m - 8 * b : 8;
    memset(fail, 0, 8);
    if (c->bad[b]) {
        memset(fail, 1, (size_t)rows);
        return rows;
    }
    const int rev = reversed(c, b);
    const ozb_problem pr = { .m = rows, .n = 1, .k = k, .alpha = -1.0, .beta = 1.0, .c = x + 8 * b + (rev ? 7 : 0),
                             .crs = rev ? -1 : 1, .ccs = 0, .kblock = OZB_KBLOCK_MAX, .c_host = 1 };
    uint8_t lane[8] = { 0 };
    const ozb_eft_t e = { &pr, lane, NULL, NULL, 1, 0.0, 0 };
    const int64_t left = ozb_eft_strip_put(&e, 0, (const row4_t *)c->st + 2 * b, 0);
    for (int64_t r = 0; r < rows; r++) fail[r] = lane[rev ? 7 - r : r];
    return left;
}
#else
size_t ozb_eft_trcols_bytes(int64_t m) { (void)m; return 32; }
void ozb_eft_trcols_init(ozb_trcols_t *c, const double *p, int64_t rs, int64_t cs, int64_t m, int kind, void *buf)
{
    *c = (ozb_trcols_t){ p, rs, cs, m, kind, buf, buf };
}
void ozb_eft_trcols_add(const ozb_trcols_t *c, int64_t b0, int64_t c0, int64_t nb, const double *x, int nt)
{
    (void)c; (void)b0; (void)c0; (void)nb; (void)x; (void)nt;   /* not offered (ozb_eft_subst_applies) */
}
int64_t ozb_eft_trcols_put(const ozb_trcols_t *c, int64_t b, int64_t k, double *x, uint8_t fail[8])
{
    (void)k; (void)x;
    const int64_t rows = c->m - 8 * b < 8 ? c->m - 8 * b : 8;
    memset(fail, 0, 8);
    memset(fail, 1, (size_t)rows);
    return rows;
}
#endif
