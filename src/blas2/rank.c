/* ozblas_dger, dsyr, dsyr2: A := A + alpha x y^T (+ alpha y x^T), each updated element
 * RN(a_ij + alpha x_i y_j (+ alpha y_i x_j)) in every mode.  Per column j, alpha y_j (and
 * alpha x_j) = hi + lo exactly by TwoProduct, and the certified two-term updates
 * (exact/two_term.h) round a_ij + x_i (hi + lo) (+ y_i (hi' + lo')) correctly, the columns in
 * parallel; what they leave (a column whose alpha y_j is not split exactly, elements not
 * certified, Inf/NaN) is tried again in a frame scaled by 2^100 (products toward underflow),
 * then computed by the exact short sums, or the pipeline correctly rounded. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "exact/exact_small.h"
#include "exact/two_term.h"
#include "eft/eft_dot.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include "core/par.h"
#include <math.h>
#include <string.h>

typedef struct {
    int64_t m, n;            /* A is m x n (the symmetric ones: n x n, one triangle) */
    int tri, lower;          /* tri: only the lower (else upper) triangle */
    double alpha;
    const double *x, *y;     /* element 0 of each vector in memory order (BLAS vec0) */
    int64_t incx, incy;
    int two;                 /* DSYR2: the second product alpha y_i x_j */
    const double *v;         /* the column factor: y (DGER), x (DSYR, DSYR2) */
    int64_t incv;
    double *A;
    int64_t lda;
} rank_t;

static void rows_of(const rank_t *r, int64_t j, int64_t *i0, int64_t *i1)
{
    *i0 = r->tri && r->lower ? j : 0;
    *i1 = r->tri && !r->lower ? j + 1 : r->m;
}

/* a_ij + alpha x_i v_j (+ alpha y_i x_j), exactly rounded, one element (pass 1 has tried it
 * in the scaled frame already: scaled_column).  Where alpha v_j (alpha x_j) splits exactly
 * into hi + lo (TwoProduct: split, the column's {hi, lo, hi', lo'}; NULL where it does not),
 * the element is a_ij + x_i hi + x_i lo (+ y_i hi' + y_i lo'): a DOT of 2 (4) terms with
 * alpha = 1, which the exact short sum rounds without workspace (LAPACK's unblocked LU on
 * nearly singular matrices leaves whole columns of such cancelling updates, with alpha =
 * -1 / pivot); else, or where a product is beyond TwoProduct's exact range, the call's own
 * problem through the pipeline.  RN(exact) either way. */
static ozblas_status_t exact_element(ozblas_handle_t h, const rank_t *r, int64_t i, int64_t j, const double *split)
{
    const double av[2] = { r->x[i * r->incx], r->two ? r->y[i * r->incy] : 0.0 };
    double *c = &r->A[i + j * r->lda], v;
    if (split) {
        const double a4[4] = { av[0], av[0], av[1], av[1] };
        const ozb_problem p4 = { .m = 1, .n = 1, .k = r->two ? 4 : 2, .a = { a4, 0, 1 }, .b = { split, 0, 1 }, .alpha = 1.0,
                                 .beta = 1.0, .c = c, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_DOT, .c_host = 1 };
        if (ozb_exact_small_value(&p4, &v)) { *c = v; return OZBLAS_STATUS_SUCCESS; }
    }
    const double bv[2] = { r->v[j * r->incv], r->two ? r->x[j * r->incx] : 0.0 };
    const ozb_problem pr = { .m = 1, .n = 1, .k = r->two ? 2 : 1, .a = { av, 0, 1 }, .b = { bv, 0, 1 }, .alpha = r->alpha,
                             .beta = 1.0, .c = c, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_DOT, .c_host = 1 };
    if (ozb_exact_small_value(&pr, &v)) { *c = v; return OZBLAS_STATUS_SUCCESS; }
    return ozb_run_rn(h, &pr);
}

/* every nonzero |v_i| at least 2^-480 (NaN and Inf fail too) */
static int tiny_free(const double *v, int64_t n, int64_t inc)
{
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        const double a = fabs(v[i * inc]);
        ok &= (a == 0.0) | ((a >= 0x1p-480) & (a <= 0x1p480));
    }
    return ok;
}

/* the largest |v_i| (NaN where one is NaN) */
static double vmax(const double *v, int64_t n, int64_t inc)
{
    int nan = 0;
    double m = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const double a = fabs(v[i * inc]);
        nan |= a != a;
        m = a > m ? a : m;
    }
    return nan ? NAN : m;
}

/* What pass 1 knows of the call: xs (products safe from underflow, factor_safe), wide (the
 * 512-bit loops), and the factors below which a column's every product is tiny: |alpha v_j|
 * < tp (and |alpha x_j| < tq) puts every x_i alpha v_j (y_i alpha x_j) below 2^-900; a column
 * whose factors are all zero is not tiny (its elements stay as they are, the fast loops' work).  Such a
 * column (LAPACK's matrices scaled toward underflow: the rows of U, the factors of an update)
 * goes to the frame 2^100 first (scaled_column): its products' low parts would be subnormal,
 * which costs an Intel core a microcode assist each (about 150 cycles), and the certified
 * loops leave most of their results anyway.  Every path is RN(exact): the choice changes no
 * bit. */
typedef struct {
    int xs, wide;
    double tp, tq;
} pass1_t;

/* 2^-900 / max |v_i| where tiny_free fails (an element below 2^-480, or above 2^480, Inf or
 * NaN: the factor is then small or 0, harmless); else 0.  Where every nonzero |v_i| is at least
 * 2^-480, a product below 2^-900 needs a column factor below 2^-420: rare outside LAPACK's
 * scaled matrices, whose factors below 2^-960 are flagged already (TwoProduct's range), so such
 * columns are left to the certified loops.  No column is tiny where the maximum is 0 or NaN. */
static double tiny_factor(const double *v, int64_t n, int64_t inc, int free)
{
    if (free) return 0.0;
    const double m = vmax(v, n, inc);
    return m > 0.0 ? 0x1p-900 / m : 0.0;
}

static int tiny_column(const rank_t *r, const pass1_t *p, double uh, double vh)
{
    if (!r->two) return uh != 0.0 && fabs(uh) < p->tp;
    return (uh != 0.0 || vh != 0.0) && fabs(uh) < p->tp && fabs(vh) < p->tq;   /* (zero factors: a + 0) */
}

/* Column j's flagged rows i0..i1-1 again in the frame 2^100 (a and the column factors scaled
 * exactly), a chunk of rows at a time: products below TwoProduct's range (matrices scaled
 * toward underflow, as LAPACK's tests make) come into it, and RN(2^100 E) = 2^100 RN(E) where
 * the result stays at least 2^-922 (normal after scaling back).  alpha v_j 2^100 (alpha x_j
 * 2^100) split exactly, a 2^100 exact where |a| <= 2^900; each element kept where the
 * certified update decides it within [2^-922, 2^1000], its flag cleared.  Returns how many
 * stay flagged. */
static int64_t scaled_column(const rank_t *r, int64_t j, int64_t i0, int64_t i1, uint8_t *f, int64_t nbad)
{
    double uh, ul, vh = 0.0, vl = 0.0;
    if (!ozb_two_prod_exact(r->alpha, r->v[j * r->incv] * 0x1p100, &uh, &ul)) return nbad;
    if (r->two && !ozb_two_prod_exact(r->alpha, r->x[j * r->incx] * 0x1p100, &vh, &vl)) return nbad;
    enum { CH = 256 };
    double a2[CH], out[CH];
    uint8_t f2[CH];
    double *col = r->A + j * r->lda;
    for (int64_t c0 = i0; c0 < i1 && nbad > 0; c0 += CH) {
        const int64_t len = i1 - c0 < CH ? i1 - c0 : CH;
        if (!memchr(f + c0, 1, (size_t)len)) continue;
        /* a 2^100, exact where |a| <= 2^900; NaN beyond, which no certificate takes */
        for (int64_t q = 0; q < len; q++) a2[q] = fabs(col[c0 + q]) <= 0x1p900 ? col[c0 + q] * 0x1p100 : NAN;
        ozb_two_term(len, a2, 1, r->x + c0 * r->incx, r->incx, uh, ul, r->two ? r->y + c0 * r->incy : NULL, r->incy, vh,
                     vl, out, 1, 0, f2, 0);
        for (int64_t q = 0; q < len; q++)
            if (f[c0 + q] && !f2[q] && fabs(out[q]) >= 0x1p-922 && fabs(out[q]) <= 0x1p1000) {
                col[c0 + q] = out[q] * 0x1p-100;
                f[c0 + q] = 0;
                nbad--;
            }
    }
    return nbad;
}

/* whether a column's factor u (alpha v_j or alpha x_j, high part) keeps every product with
 * the other vector in TwoProduct's range, that vector having no element below 2^-480 (xs) */
static int factor_safe(int xs, double u) { return xs && (u == 0.0 || fabs(u) >= 0x1p-480); }

/* Pass 1 on column j: the certified updates, the column flagged whole where its factors do not
 * split exactly; what they leave tried in the scaled frame; colbad[j] the count left (a column
 * whose count is 0 may have no flags written: pass 2 and scaled_column read only the others').  DGER's and DSYR's
 * common column (no product below TwoProduct's range, x contiguous) by the one-term loop
 * without flags (ozb_one_term_prefix: one FMA an element where alpha v_j is one double), up
 * to the vector holding an element it does not decide: from there on ozb_two_term, the same
 * values and decisions. */
static void column(const rank_t *r, int64_t j, uint8_t *fail, int64_t *colbad, const pass1_t *p)
{
    const int xs = p->xs, wide = p->wide;
    int64_t i0, i1;
    rows_of(r, j, &i0, &i1);
    int64_t k0 = i0;   /* the first row the flagged pass takes */
    uint8_t *f = fail + j * r->m;
    double uh, ul, vh = 0.0, vl = 0.0;
    int ok = ozb_two_prod_exact(r->alpha, r->v[j * r->incv], &uh, &ul);
    if (r->two) ok &= ozb_two_prod_exact(r->alpha, r->x[j * r->incx], &vh, &vl);
    double *col = r->A + j * r->lda;
    if (!ok || tiny_column(r, p, uh, vh)) {
        for (int64_t i = i0; i < i1; i++) f[i] = 1;
        colbad[j] = i1 - i0;
    } else {
        const int safe = factor_safe(xs, uh) && factor_safe(xs, vh);
        if (!r->two && r->incx == 1 && (safe || uh == 0.0)) {
            const int64_t done = ozb_one_term_prefix(i1 - i0, col + i0, r->x + i0, uh, ul);
            if (done == i1 - i0) { colbad[j] = 0; return; }
            memset(f + i0, 0, (size_t)done);
            k0 += done;
        }
        colbad[j] = ozb_two_term(i1 - k0, col + k0, 1, r->x + k0 * r->incx, r->incx, uh, ul,
                                 r->two ? r->y + k0 * r->incy : NULL, r->incy, vh, vl, col + k0, 1, safe, f + k0, wide);
    }
    if (colbad[j] > 0) colbad[j] = scaled_column(r, j, i0, i1, f, colbad[j]);
}

/* Columns j and j + 1 of a DGER (whole columns, x contiguous, the 512-bit loop) at once where
 * both factors split exactly: the one-term loop on both side by side (two independent chains
 * where one column alone waits on its certificate's latency), then each column's rest as
 * ozb_two_term takes it, so every element and flag is column()'s.  0 where it does not apply
 * (column() then takes each). */
static int column_pair(const rank_t *r, int64_t j, uint8_t *fail, int64_t *colbad, const pass1_t *p)
{
#if defined(__x86_64__)
    double u[4];
    const int xs = p->xs;
    if (!p->wide || r->tri || r->two || r->incx != 1 || !ozb_two_prod_exact(r->alpha, r->v[j * r->incv], &u[0], &u[1]) ||
        !ozb_two_prod_exact(r->alpha, r->v[(j + 1) * r->incv], &u[2], &u[3]) || tiny_column(r, p, u[0], 0.0) ||
        tiny_column(r, p, u[2], 0.0))
        return 0;
    const int safe[2] = { factor_safe(xs, u[0]), factor_safe(xs, u[2]) };
    double *c0 = r->A + j * r->lda, *c1 = c0 + r->lda;
    uint8_t *f0 = fail + j * r->m, *f1 = f0 + r->m;
    int64_t nf[2];
    ozb_one_term512_pair(r->m, c0, c1, r->x, u, safe, f0, f1, nf);
    for (int q = 0; q < 2; q++) {
        double *c = q ? c1 : c0;
        uint8_t *f = q ? f1 : f0;
        colbad[j + q] = nf[q] ? ozb_one_term_rest(r->m, c, r->x, u[2 * q], u[2 * q + 1], safe[q], f) : 0;
        if (colbad[j + q] > 0) colbad[j + q] = scaled_column(r, j + q, 0, r->m, f, colbad[j + q]);
    }
    return 1;
#else
    (void)r; (void)j; (void)fail; (void)colbad; (void)p;
    return 0;
#endif
}

/* DSYR2's x and y contiguous and a multiple of 4 KB apart (give or take a line: the same L1
 * sets), as large vectors allocated one after the other often are: where their lines also
 * share the L1's way tag (2^27 + 2^12 bytes apart), each column's pass would evict one with
 * the other at every access, so y is read from a copy 2 KB off x's sets instead (the values
 * the same) */
static int y_copied(const rank_t *r)
{
    const uint64_t sets = ((uintptr_t)r->x - (uintptr_t)r->y) & 4095;
    return r->two && r->incx == 1 && r->incy == 1 && (sets < 64 || sets > 4096 - 64);
}

static ozblas_status_t rank_update(ozblas_handle_t h, const rank_t *r)
{
    /* per element a flag, per column the count flagged (pass 2 reads only those columns),
     * and room for y's copy (y_copied) */
    const size_t fb = ((size_t)r->m * (size_t)r->n + 64) & ~(size_t)63, cb = sizeof(int64_t) * (size_t)r->n;
    const int yc = y_copied(r);
    uint8_t *fail = ozb_buf_get(h, OZB_BUF_SHAPE_B, fb + cb + (yc ? sizeof(double) * (size_t)r->m + 4096 : 0));
    if (!fail) return OZBLAS_STATUS_ALLOC_FAILED;
    int64_t *colbad = (int64_t *)(fail + fb);
    rank_t rc;
    if (yc) {
        uint8_t *base = fail + fb + cb;
        double *ycopy = (double *)(base + (((uintptr_t)r->x - 2048 - (uintptr_t)base) & 4095));
        memcpy(ycopy, r->y, sizeof(double) * (size_t)r->m);
        rc = *r;
        rc.y = rc.v = ycopy;
        r = &rc;
    }
    /* the standard floating-point environment (core/fpenv.h); the caller's other one: this
     * thread alone (the pool's threads may carry it) */
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    const int nt = changed ? 1 : ozb_threads_for(h, (double)r->m * (double)r->n * 4.0);
    /* products x_i u are safe from underflow (exact/two_term.h) where every nonzero |x_i|
     * (|y_i|) and |u| are at least 2^-480 */
    const int fx = tiny_free(r->x, r->m, r->incx), fy = !r->two || tiny_free(r->y, r->m, r->incy);
    const pass1_t p1 = { .xs = fx && fy, .wide = ozb_eft_wide(h),   /* (wide: the same bits) */
                         .tp = tiny_factor(r->x, r->m, r->incx, fx), .tq = r->two ? tiny_factor(r->y, r->m, r->incy, fy) : 0.0 };
    /* pass 1, parallel over pairs of columns (column, column_pair; fail[m n] a byte per
     * element).  (No OpenMP region at all on one thread: core/par.h.)  A triangle's columns get
     * shorter (or longer) across it: there the threads take blocks of 8 pairs in turn, so that
     * each has about the same share of it; a rectangle's, one range each */
    const int64_t np = (r->n + 1) / 2;        /* columns in pairs (column_pair) */
    const int chunk = r->tri ? 8 : (int)((np + nt - 1) / nt);
    OZB_PARALLEL_FOR_IF(nt > 1, nt, schedule(static, chunk),
    for (int64_t p = 0; p < np; p++) {
        if (!(2 * p + 1 < r->n && column_pair(r, 2 * p, fail, colbad, &p1))) {
            column(r, 2 * p, fail, colbad, &p1);
            if (2 * p + 1 < r->n) column(r, 2 * p + 1, fail, colbad, &p1);
        }
    });
    /* pass 2, in order: what pass 1 left.  Its only failure (the pipeline's workspace) comes
     * after pass 1 wrote the elements it decided: OZBLAS_STATUS_PARTIAL where any element was
     * written (A then holds new and old values), the failure itself where none was, so that A
     * is as it came on every other failure (CONTRACT §4) */
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    int wrote = 0;
    for (int64_t j = 0; j < r->n; j++) {
        int64_t i0, i1;
        rows_of(r, j, &i0, &i1);
        wrote |= colbad[j] < i1 - i0;
    }
    for (int64_t j = 0; j < r->n && st == OZBLAS_STATUS_SUCCESS; j++) {
        if (!colbad[j]) continue;
        int64_t i0, i1;
        rows_of(r, j, &i0, &i1);
        /* the column's alpha v_j (alpha x_j) split once for all its elements */
        double b4[4] = { 0.0, 0.0, 0.0, 0.0 };
        const int split = ozb_two_prod_exact(r->alpha, r->v[j * r->incv], &b4[0], &b4[1]) &&
                          (!r->two || ozb_two_prod_exact(r->alpha, r->x[j * r->incx], &b4[2], &b4[3]));
        for (int64_t i = i0; i < i1 && st == OZBLAS_STATUS_SUCCESS; i++)
            if (fail[i + j * r->m] && (st = exact_element(h, r, i, j, split ? b4 : NULL)) == OZBLAS_STATUS_SUCCESS) wrote = 1;
    }
    ozb_fpenv_leave(env, changed);
    return st != OZBLAS_STATUS_SUCCESS && wrote ? OZBLAS_STATUS_PARTIAL : st;
}

static ozblas_status_t rank_args(ozblas_handle_t h, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy)
{
    if (!h || m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0 || incy == 0) return OZBLAS_STATUS_INVALID_VALUE;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_dger(ozblas_handle_t h, int64_t m, int64_t n, double alpha, const double *x, int64_t incx,
                            const double *y, int64_t incy, double *A, int64_t lda)
{
    ozblas_status_t st = rank_args(h, m, n, lda, incx, incy);
    if (st != OZBLAS_STATUS_SUCCESS || m == 0 || n == 0 || alpha == 0.0) return st;
    if (!x || !y || !A) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    const rank_t r = { m, n, 0, 0, alpha, ozb_vec0(x, m, incx), NULL, incx, 0, 0, ozb_vec0(y, n, incy), incy, A, lda };
    return rank_update(h, &r);
}

static int valid_uplo(ozblas_uplo_t u) { return u == OZBLAS_UPPER || u == OZBLAS_LOWER; }

ozblas_status_t ozblas_dsyr(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *x,
                            int64_t incx, double *A, int64_t lda)
{
    ozblas_status_t st = valid_uplo(uplo) ? rank_args(h, n, n, lda, incx, 1) : OZBLAS_STATUS_INVALID_VALUE;
    if (st != OZBLAS_STATUS_SUCCESS || n == 0 || alpha == 0.0) return st;
    if (!x || !A) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    const double *x0 = ozb_vec0(x, n, incx);
    const rank_t r = { n, n, 1, uplo == OZBLAS_LOWER, alpha, x0, NULL, incx, 0, 0, x0, incx, A, lda };
    return rank_update(h, &r);
}

ozblas_status_t ozblas_dsyr2(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, double alpha, const double *x,
                             int64_t incx, const double *y, int64_t incy, double *A, int64_t lda)
{
    ozblas_status_t st = valid_uplo(uplo) ? rank_args(h, n, n, lda, incx, incy) : OZBLAS_STATUS_INVALID_VALUE;
    if (st != OZBLAS_STATUS_SUCCESS || n == 0 || alpha == 0.0) return st;
    if (!x || !y || !A) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    /* a_ij + x_i (alpha y_j) + y_i (alpha x_j) */
    const double *x0 = ozb_vec0(x, n, incx), *y0 = ozb_vec0(y, n, incy);
    const rank_t r = { n, n, 1, uplo == OZBLAS_LOWER, alpha, x0, y0, incx, incy, 1, y0, incy, A, lda };
    return rank_update(h, &r);
}
