/* Symmetric and triangular operands made whole, and GEMM problems on one triangle of C. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/parts.h"
#include "core/par.h"
#include "core/info.h"
#include "exact/exact_small.h"
#include "eft/eft_dot_small.h"
#include <immintrin.h>   /* AVX2: the library's baseline (x86-64-v3) */

void ozb_sym_full(const double *A, int64_t lda, int64_t n, int lower, double *dst)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            const int stored = lower ? i >= j : i <= j;
            dst[i + j * n] = stored ? A[i + j * lda] : A[j + i * lda];
        }
}

/* rows r0 + ra .. r0 + rz - 1 of the panel (ra, rz multiples of 4 but the last) */
static void sym_strip(const double *A, int64_t lda, int64_t n, int lower, int64_t r0, int64_t r1, int64_t ra,
                      int64_t rz, double *dst, int64_t ldd)
{
    /* the part of row i stored in column i of A (lower: j >= i; upper: j <= i) */
    for (int64_t i = r0 + ra; i < r0 + rz; i++) {
        const int64_t j0 = lower ? i : 0, j1 = lower ? n : i + 1;
        memcpy(dst + j0 + (i - r0) * ldd, A + j0 + i * lda, sizeof(double) * (size_t)(j1 - j0));
    }
    /* the rest, stored in row i (lower: j < i; upper: j > i), is a transpose of A's rows:
     * first the columns every row of the block takes that way (j < r0 lower, j >= r1 upper)
     * in 4 x 4 register transposes, then the block's own diagonal part */
    const int64_t ja = lower ? 0 : r1, jz = lower ? r0 : n;
    int64_t jb = ja;
    for (; jb + 4 <= jz; jb += 4) {
        int64_t r = ra;
        for (; r + 4 <= rz; r += 4) {
            const double *a = A + r0 + r + jb * lda;
            const __m256d c0 = _mm256_loadu_pd(a), c1 = _mm256_loadu_pd(a + lda);
            const __m256d c2 = _mm256_loadu_pd(a + 2 * lda), c3 = _mm256_loadu_pd(a + 3 * lda);
            const __m256d t0 = _mm256_unpacklo_pd(c0, c1), t1 = _mm256_unpackhi_pd(c0, c1);
            const __m256d t2 = _mm256_unpacklo_pd(c2, c3), t3 = _mm256_unpackhi_pd(c2, c3);
            double *d = dst + jb + r * ldd;
            _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
            _mm256_storeu_pd(d + ldd, _mm256_permute2f128_pd(t1, t3, 0x20));
            _mm256_storeu_pd(d + 2 * ldd, _mm256_permute2f128_pd(t0, t2, 0x31));
            _mm256_storeu_pd(d + 3 * ldd, _mm256_permute2f128_pd(t1, t3, 0x31));
        }
        for (; r < rz; r++)
            for (int64_t j = jb; j < jb + 4; j++) dst[j + r * ldd] = A[r0 + r + j * lda];
    }
    for (; jb < jz; jb++)
        for (int64_t r = ra; r < rz; r++) dst[jb + r * ldd] = A[r0 + r + jb * lda];
    for (int64_t j = r0; j < r1; j++)
        for (int64_t r = ra; r < rz; r++) {
            const int64_t i = r0 + r;
            if (lower ? j < i : j > i) dst[j + r * ldd] = A[i + j * lda];
        }
}

void ozb_sym_rows(const double *A, int64_t lda, int64_t n, int lower, int64_t r0, int64_t r1, double *dst,
                  int64_t ldd, int nt)
{
    const int64_t R = r1 - r0, strips = (R + 15) / 16;
    OZB_PARALLEL_FOR_IF(nt > 1, nt, schedule(static),   /* (no region on one thread: core/par.h) */
    for (int64_t s = 0; s < strips; s++)
        sym_strip(A, lda, n, lower, r0, r1, 16 * s, 16 * s + 16 < R ? 16 * s + 16 : R, dst, ldd););
}

void ozb_tri_full(const double *A, int64_t lda, int64_t n, int lower, int trans, int unit, double *dst)
{
    /* op(T)(i, j) = T(i, j), or T(j, i) transposed; op(T) is lower where T is lower and not
     * transposed or upper and transposed.  Column j of op(T): its triangle's rows [i0, i1),
     * zeros around them, and 1 on a unit diagonal (T's copied with its column, then
     * overwritten: its value never reaches dst) */
    const int olow = lower != trans;
    for (int64_t j = 0; j < n; j++) {
        double *d = dst + j * n;
        const int64_t i0 = olow ? j : 0, i1 = olow ? n : j + 1;
        memset(d, 0, sizeof(double) * (size_t)i0);
        memset(d + i1, 0, sizeof(double) * (size_t)(n - i1));
        if (!trans) memcpy(d + i0, A + i0 + j * lda, sizeof(double) * (size_t)(i1 - i0));
        else
            for (int64_t i = i0; i < i1; i++) d[i] = A[j + i * lda];
        if (unit) d[j] = 1.0;
    }
}

static ozblas_status_t run(ozblas_handle_t h, const ozb_problem *pr, int rn)
{
    return rn ? ozb_run_rn(h, pr) : ozb_run(h, pr);
}

/* Column blocks of C: one where n <= 512 and the diagonal block's other part is skipped
 * (ozb_run_walks_triangle: from the configuration and shape), or where the backend's engines
 * skip it themselves (whole_triangles, core/backend.h: blocks of TRI_WHOLE_MAX beyond it),
 * else at most 8 of at least 64
 * columns (at least the backend's min_block, one block up to it on a device, where no bit
 * depends on the cut: ozb_cuts_free).  Each diagonal block is computed in a copy holding only
 * its triangle (the other part of the copy is zero and never copied back, so a stage may skip
 * it: OZB_TRI_*, the error-free GEMM's strips of 8 rows do); the rectangle beside it in
 * place.  The copies are shapes in the handle's memory (shape_ops.c). */
#define TRI_WHOLE_MAX 8192   /* whole_triangles' blocks: a diagonal block's copy at most 512 MiB */
static ozblas_status_t triangle(ozblas_handle_t h, const ozb_problem *pr, int lower, int rn, int64_t c0, int64_t c1)
{
    const int64_t n = pr->n, nc = c1 - c0;
    int64_t nb = (nc + 7) / 8;
    nb = nb < 64 ? 64 : (nb + 63) / 64 * 64;
    if (nb < h->be->min_block && ozb_cuts_free(h)) nb = h->be->min_block;
    if (ozb_cuts_free(h) && h->be->whole_triangles && h->be->whole_triangles(h, pr))
        nb = nc <= TRI_WHOLE_MAX ? nc : TRI_WHOLE_MAX;
    if (nb > nc || (nc <= 512 && ozb_run_walks_triangle(h, pr, rn))) nb = nc;
    double *t = ozb_shape_buf(h, OZB_BUF_SHAPE_T, sizeof(double) * (size_t)nb * (size_t)nb);
    if (!t) return OZBLAS_STATUS_ALLOC_FAILED;
    for (int64_t j0 = c0; j0 < c1; j0 += nb) {
        const int64_t w = c1 - j0 < nb ? c1 - j0 : nb;
        double *cd = pr->c + j0 * pr->crs + j0 * pr->ccs;
        /* the diagonal block, in t (leading dimension w): C's triangle (zero where beta = 0:
         * C is not read), zeros beside it */
        const ozb_op_shape in = { .kind = OZB_SHAPE_MASK, .lower = lower, .m = w, .n = w, .src = pr->beta != 0.0 ? cd : NULL,
                                  .srs = pr->crs, .scs = pr->ccs, .dst = t, .drs = 1, .dcs = w };
        ozblas_status_t st = ozb_shape(h, &in);
        if (st != OZBLAS_STATUS_SUCCESS) return st;
        ozb_problem d = ozb_problem_sub(pr, j0, w, j0, w);
        d.c = t;
        d.crs = 1;
        d.ccs = w;
        d.tri = lower ? OZB_TRI_LOWER : OZB_TRI_UPPER;   /* the rest of t is never copied back */
        if ((st = run(h, &d, rn)) != OZBLAS_STATUS_SUCCESS) return st;
        const ozb_op_shape out = { .kind = OZB_SHAPE_PUT, .lower = lower, .m = w, .n = w, .src = t, .srs = 1, .scs = w,
                                   .dst = cd, .drs = pr->crs, .dcs = pr->ccs };
        if ((st = ozb_shape(h, &out)) != OZBLAS_STATUS_SUCCESS) return st;
        /* the rectangle below (lower) or above (upper) it */
        const ozb_problem r = lower ? ozb_problem_sub(pr, j0 + w, n - j0 - w, j0, w) : ozb_problem_sub(pr, 0, j0, j0, w);
        if (r.m > 0 && (st = run(h, &r, rn)) != OZBLAS_STATUS_SUCCESS) return st;
    }
    return OZBLAS_STATUS_SUCCESS;
}

typedef struct { const ozb_problem *pr; int lower, rn; } tri_call;

static ozblas_status_t triangle_part(ozblas_handle_t h, int64_t c0, int64_t c1, void *ctx)
{
    const tri_call *c = ctx;
    return ozb_run_triangle_cols(h, c->pr, c->lower, c->rn, c0, c1);
}

void ozb_triangle_cuts(int64_t n, int lower, int nt, int64_t *cuts)
{
    /* column j holds n - j elements where lower, j + 1 where upper */
    cuts[0] = 0;
    for (int64_t t = 1, c = 0; t < nt; t++) {
        const double want = (double)n * (double)(n + 1) / 2.0 * (double)t / (double)nt;
        while (c < n && (lower ? (double)c * (double)n - (double)c * (double)(c - 1) / 2.0 : (double)c * (double)(c + 1) / 2.0) < want)
            c = c + 8 < n ? c + 8 : n;
        cuts[t] = c;
    }
    cuts[nt] = n;
}

ozblas_status_t ozb_run_triangle_cols(ozblas_handle_t h, const ozb_problem *pr, int lower, int rn, int64_t c0, int64_t c1)
{
    ozb_info_moves_begin(h);   /* the info reports every problem's copies */
    const ozblas_status_t st = triangle(h, pr, lower, rn, c0, c1);
    ozb_info_moves_end(h);
    return st;
}

ozblas_status_t ozb_run_triangle(ozblas_handle_t h, const ozb_problem *pr, int lower, int rn)
{
    const int nt = ozb_parts_count(h, ozb_threads_for(h, (double)pr->n * (double)pr->n * (double)pr->k / 2.0), pr->n, 8);
    int64_t cuts[OZB_MAX_PARTS + 1];
    ozb_triangle_cuts(pr->n, lower, nt, cuts);
    const tri_call call = { pr, lower, rn };
    return ozb_par_parts_at(h, nt, cuts, triangle_part, (void *)&call);
}

int ozb_short_sum(const ozb_problem *pr, double *out)
{
    if (pr->k <= OZB_DOT_ONE_SIGMA) {
        double v = *pr->c;
        int ok;
        if (pr->alpha == 1.0 && pr->beta == 0.0 && pr->a.cs == 1 && pr->b.cs == 1)
            ok = ozb_eft_dot_unit(pr->a.p, pr->b.p, pr->k, 0, &v);   /* ozb_eft_dot_short's steps there */
        else {
            ozb_problem q = *pr;
            q.c = &v;
            ok = ozb_eft_dot_short(&q);
        }
        if (ok && v != 0.0) {
            *out = v;
            return 1;
        }
    }
    return ozb_exact_small_value(pr, out);
}
