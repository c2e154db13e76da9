/* ozblas_drot, drotm: every new element RN of its exact two-term sum a x + b y.
 * Bit budget: where a x and b y are each 0 or within [2^-960, 2^1000] in magnitude, TwoProduct
 * splits each exactly into two doubles (the low part's last bit >= 2^-1066 > 2^-1074) and Sum2
 * rounds the four correctly where it certifies (results normal, >= 2^-1000); pairs of tiny
 * elements the same way in the frame 2^600 (scaled_rn2); anything else (huge, uncertified,
 * results toward underflow) goes to the exact short sums of the pipeline, any finite range. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "exact/exact_small.h"
#include "exact/two_term.h"
#include "exact/rot_pairs.h"
#include "sum/sum.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include "core/par.h"
#include "eft/eft_dot.h"
#include "eft/eft_scaled.h"
#include <math.h>
#include <string.h>

static int in_range(double a, double x, double p)
{
    const double q = fabs(p);
    return a == 0.0 || x == 0.0 || (q >= 0x1p-960 && q <= 0x1p1000);
}

/* RN(a x + b y) where x and y are tiny (LAPACK's test matrices scaled toward underflow):
 * x 2^600 and y 2^600 are exact (a power of two up, no overflow from at most 2^-200), so the
 * certified sum of the scaled products is 2^600 RN(a x + b y) wherever it is at least 2^-421:
 * both are then normal, and RN commutes with a power of two between normal numbers.  1 and
 * *out where so (the exact short sums, which take the rest, cost some 300 ns an element) */
static int scaled_rn2(double a, double x, double b, double y, double *out)
{
    if (!(fabs(x) <= 0x1p-200 && fabs(y) <= 0x1p-200)) return 0;
    const double xs = x * 0x1p600, ys = y * 0x1p600, p = a * xs, q = b * ys;
    if (!in_range(a, xs, p) || !in_range(b, ys, q)) return 0;
    double t[4] = { p, fma(a, xs, -p), q, fma(b, ys, -q) }, r;
    if (!ozb_sum2_rn(t, 4, &r) || !(fabs(r) >= 0x1p-421)) return 0;
    *out = r * 0x1p-600;
    return 1;
}

/* RN(a x + b y) where a x and b y are in TwoProduct's range, made for the pair whose high parts
 * cancel (the rotation that annihilates an element; any other pair it certifies as well, as
 * the pair loop would have): TwoSum of the high parts is exact (|p|, |q| <= 2^1000,
 * no overflow), which leaves four terms near the result, where Sum2's bound (some n^2 u^2 of
 * their magnitudes) certifies RN of their sum; on the products themselves the bound is some
 * u^2 of the products, above the result's half gap.  1 and *out where certified */
static int cancel_rn2(double a, double x, double b, double y, double *out)
{
    const double p = a * x, q = b * y;
    if (!(isfinite(a) && isfinite(x) && isfinite(b) && isfinite(y)) || !in_range(a, x, p) || !in_range(b, y, q))
        return 0;
    const double s = p + q, bv = s - p;
    const double t[4] = { s, (p - (s - bv)) + (q - bv), fma(a, x, -p), fma(b, y, -q) };
    return ozb_sum2_rn(t, 4, out);
}

/* both new values of the pair (x, y) by scaled_rn2; 1 where both are certified */
static int scaled_pair(const double hm[4], double x, double y, double *nx, double *ny)
{
    return scaled_rn2(hm[0], x, hm[1], y, nx) && scaled_rn2(hm[2], x, hm[3], y, ny);
}

/* both new values of the pair (x, y) by cancel_rn2, else (both tiny) by scaled_pair; 1 where
 * both are certified */
static int cancel_pair(const double hm[4], double x, double y, double *nx, double *ny)
{
    return (cancel_rn2(hm[0], x, hm[1], y, nx) && cancel_rn2(hm[2], x, hm[3], y, ny)) || scaled_pair(hm, x, y, nx, ny);
}

/* whether every x_i and y_i of len pairs is at most 2^-200 in magnitude: the pair loop's error
 * terms of such products are subnormal, which costs an Intel core a microcode assist (about
 * 150 cycles) each, and its bound leaves their results anyway; they go to the frame 2^600
 * first (scaled_rn2, scaled_pairs).  Stops at the first larger one. */
static int all_tiny(int64_t len, const double *x, int64_t incx, const double *y, int64_t incy)
{
    for (int64_t i = 0; i < len; i++)
        if (!(fabs(x[i * incx]) <= 0x1p-200 && fabs(y[i * incy]) <= 0x1p-200)) return 0;
    return len > 0;
}

/* RN(a x + b y) into *out */
static ozblas_status_t rn2(ozblas_handle_t h, double a, double x, double b, double y, double *out)
{
    const double p = a * x, q = b * y;
    if (!(isfinite(a) && isfinite(x) && isfinite(b) && isfinite(y))) {
        /* IEEE's value of the exact sum: a finite pair adds nothing next to an infinite or NaN one */
        const int fa = isfinite(a) && isfinite(x), fb = isfinite(b) && isfinite(y);
        *out = (fa ? 0.0 : p) + (fb ? 0.0 : q);
        return OZBLAS_STATUS_SUCCESS;
    }
    if (in_range(a, x, p) && in_range(b, y, q)) {
        double t[4] = { p, fma(a, x, -p), q, fma(b, y, -q) };
        if (ozb_sum2_rn(t, 4, out)) return OZBLAS_STATUS_SUCCESS;
    }
    if (scaled_rn2(a, x, b, y, out)) return OZBLAS_STATUS_SUCCESS;
    const double coef[2] = { a, b }, val[2] = { x, y };
    ozb_problem pr = { .m = 1, .n = 1, .k = 2, .a = { coef, 0, 1 }, .b = { val, 0, 1 }, .alpha = 1.0,
                       .beta = 0.0, .c = out, .crs = 0, .ccs = 0, .kblock = OZB_KBLOCK_DOT, .c_host = 1 };
    if (ozb_exact_small_value(&pr, out)) return OZBLAS_STATUS_SUCCESS;
    return ozb_run_rn(h, &pr);
}

/* x, y := (h11 x + h12 y, h21 x + h22 y) element by element, a chunk at a time: the certified
 * pair loop (ozb_rot_pairs, exact/rot_pairs.h) writes the elements it decides in place
 * (strided vectors through a contiguous copy of the chunk, written back whole), and the ones
 * it leaves (results near underflow: scaled matrices; cancellation; Inf, NaN) keep their x_i,
 * y_i and a flag; they are gathered and done by the slower methods (left_pairs).  On pool
 * threads a chunk with such elements is marked, its flags kept, and finished afterwards on the
 * calling thread (apply_std).  Every element is computed from its own x_i and y_i, so neither
 * the chunks nor the threads that take them change a bit. */
enum { CH = 512, FEW = 4 };
typedef struct {
    double *xv, *yv;
    int64_t n, incx, incy;
    int64_t ch;             /* pairs a chunk: CH, or 1 where an increment is 0 */
    double hm[4];           /* h11, h12, h21, h22 */
    int wide;               /* the 512-bit pair loop (ozb_eft_wide) */
    uint8_t *left;          /* on threads: per chunk, 0 done; left to the calling thread, 1 after
                             * the pair loop wrote some of it, 2 before it wrote any */
    uint8_t *flags;         /* on threads: per element, the pair loop's flags */
} rot_t;

/* Both new vectors by the two-term loop (a = +0: RN(exact) where it certifies, as the pair
 * loop's, and an exact zero +0) on every element, fx and fy the elements each leaves; returns
 * how many flags are set in all */
static int64_t two_term_pairs(int64_t len, const double *x, const double *y, const double hm[4], double *nx, double *ny,
                              uint8_t *fx, uint8_t *fy)
{
    static const double zero[CH];
    return ozb_two_term(len, zero, 1, x, 1, hm[0], 0.0, y, 1, hm[1], 0.0, nx, 1, 0, fx, 0) +
           ozb_two_term(len, zero, 1, x, 1, hm[2], 0.0, y, 1, hm[3], 0.0, ny, 1, 0, fy, 0);
}

/* The pairs the pair loop left (all flagged in fx), those whose x and y are both at most
 * 2^-200 in magnitude (LAPACK's test matrices scaled toward underflow: the loop's bound, at
 * least 2^-1022 there, is too coarse for their results) again by the pair loop in the frame
 * 2^600, as scaled_rn2 does one element: x 2^600 and y 2^600 are exact, and a certified
 * finite result r there is RN(2^600 (h x + h' y)), which unscale takes back.  Each element
 * taken there is cleared in fx; returns how many stay flagged. */
static int64_t scaled_pairs(int64_t len, const double *xc, const double *yc, const double hm[4], int wide, double *nx,
                            double *ny, uint8_t *fx)
{
    double xs[CH], ys[CH], sx[CH], sy[CH];
    uint8_t tiny[CH], f2[CH];
    int any = 0;
    for (int64_t i = 0; i < len; i++) {
        tiny[i] = fabs(xc[i]) <= 0x1p-200 && fabs(yc[i]) <= 0x1p-200;
        xs[i] = tiny[i] ? xc[i] * 0x1p600 : 0.0;
        ys[i] = tiny[i] ? yc[i] * 0x1p600 : 0.0;
        any |= tiny[i];
    }
    if (!any) return len;
    /* the pair loop, then for what it leaves (results that cancel far below the products:
     * rotations that annihilate an element) the two-term updates of each new vector, as
     * left_pairs does in the unscaled frame */
    if (ozb_rot_pairs(len, xs, ys, hm, sx, sy, f2, wide)) {
        uint8_t fy[CH];
        (void)two_term_pairs(len, xs, ys, hm, sx, sy, f2, fy);
        for (int64_t i = 0; i < len; i++) f2[i] |= fy[i];
    }
    int64_t left = 0;
    const ozb_unscale_t u = ozb_unscale_for(600);
    for (int64_t i = 0; i < len; i++) {
        double vx, vy;
        /* (a certified Inf there is RN(2^600 exact), not 2^600 RN(exact): left) */
        if (tiny[i] && !f2[i] && isfinite(sx[i]) && isfinite(sy[i]) && ozb_unscale(&u, sx[i], &vx) &&
            ozb_unscale(&u, sy[i], &vy)) {
            nx[i] = vx;
            ny[i] = vy;
            fx[i] = 0;
        } else
            left++;
    }
    return left;
}

/* The elements of a chunk (xc, yc: len of them, contiguous) that the pair loop left (fl): both
 * new values by scaled_pairs, the two-term loop (two_term_pairs) and rn2, written in place.
 * 0, or rn2's failure */
static ozblas_status_t left_pairs(ozblas_handle_t h, const rot_t *r, int64_t len, double *xc, double *yc,
                                  const uint8_t *fl)
{
    double a[CH], b[CH], nx[CH], ny[CH];
    uint8_t fx[CH], fy[CH];
    int16_t at[CH];
    int64_t cnt = 0, nf = 0, nq = 0;
    double qx[FEW], qy[FEW];
    int16_t qat[FEW];
    for (int64_t i = 0; i < len; i++) nf += fl[i];
    for (int64_t i = 0; i < len; i++)
        if (fl[i]) {
            /* a few elements (LAPACK's rotations of short vectors, each annihilating one) one by
             * one, where the loops below cost more to set up than they save; written with the
             * others at the end (none where one fails) */
            if (nf <= FEW && cancel_pair(r->hm, xc[i], yc[i], &qx[nq], &qy[nq])) {
                qat[nq++] = (int16_t)i;
                continue;
            }
            at[cnt] = (int16_t)i;
            a[cnt] = xc[i];
            b[cnt] = yc[i];
            fx[cnt++] = 1;
        }
    if (scaled_pairs(cnt, a, b, r->hm, r->wide, nx, ny, fx)) {
        const int64_t left = two_term_pairs(cnt, a, b, r->hm, nx, ny, fx, fy);
        for (int64_t i = 0; i < cnt && left; i++) {
            ozblas_status_t st;
            if (fx[i] && (st = rn2(h, r->hm[0], a[i], r->hm[1], b[i], &nx[i])) != OZBLAS_STATUS_SUCCESS) return st;
            if (fy[i] && (st = rn2(h, r->hm[2], a[i], r->hm[3], b[i], &ny[i])) != OZBLAS_STATUS_SUCCESS) return st;
        }
    }
    for (int64_t j = 0; j < cnt; j++) {
        xc[at[j]] = nx[j];
        yc[at[j]] = ny[j];
    }
    for (int64_t j = 0; j < nq; j++) {
        xc[qat[j]] = qx[j];
        yc[qat[j]] = qy[j];
    }
    return OZBLAS_STATUS_SUCCESS;
}

/* Chunk c.  h == NULL (a pool thread): the pair loop alone, its flags kept in r->flags and
 * the chunk marked in r->left where it leaves any; again (r->left[c] set, on the calling
 * thread): only the flagged elements (left_pairs); else the whole chunk.  Returns 0, or
 * left_pairs' failure (the elements it took then untouched); *wrote: whether the pair loop
 * wrote any of the chunk. */
static ozblas_status_t chunk(ozblas_handle_t h, const rot_t *r, int64_t c, int *wrote)
{
    const int64_t c0 = c * r->ch, len = r->n - c0 < r->ch ? r->n - c0 : r->ch;
    const int unit = r->incx == 1 && r->incy == 1, again = h && r->left && r->left[c];
    double xs[CH], ys[CH];
    double *xc = unit ? r->xv + c0 : xs, *yc = unit ? r->yv + c0 : ys;
    uint8_t own[CH];
    uint8_t *fl = r->flags ? r->flags + c0 : own;
    if (!unit)
        for (int64_t i = 0; i < len; i++) { xs[i] = r->xv[(c0 + i) * r->incx]; ys[i] = r->yv[(c0 + i) * r->incy]; }
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    int64_t nf = 1;
    if (!again && all_tiny(len, xc, 1, yc, 1)) memset(fl, 1, (size_t)(nf = len));   /* all to left_pairs */
    else if (!again) nf = ozb_rot_pairs(len, xc, yc, r->hm, xc, yc, fl, r->wide);
    *wrote = again ? r->left[c] == 1 : nf < len;
    if (nf) {
        if (h) st = left_pairs(h, r, len, xc, yc, fl);
        else r->left[c] = nf < len ? 1 : 2;
    }
    if (!unit)
        for (int64_t i = 0; i < len; i++) { r->xv[(c0 + i) * r->incx] = xs[i]; r->yv[(c0 + i) * r->incy] = ys[i]; }
    return st;
}

/* chunks lo..hi-1 on a pool thread: the pair loop; returns how many it left */
static int64_t fast_chunks(void *ctx, int64_t lo, int64_t hi)
{
    const rot_t *r = ctx;
    int64_t nleft = 0;
    for (int64_t c = lo; c < hi; c++) {
        int wrote;
        r->left[c] = 0;
        (void)chunk(NULL, r, c, &wrote);
        nleft += r->left[c] != 0;
    }
    return nleft;
}

/* x and y are written in place as each chunk is done: a failure of the slower methods (only
 * where the pipeline's workspace cannot be had) after anything was written leaves some pairs
 * new and the others old, and is reported as OZBLAS_STATUS_PARTIAL; before, as itself (x and
 * y untouched) */
static ozblas_status_t apply_std(ozblas_handle_t h, int64_t n, double *x, int64_t incx, double *y, int64_t incy,
                                 const double hm[4], int one_thread)
{
    /* at most four pairs (LAPACK's rotations of 2x2 blocks by the million): where all are tiny
     * (all_tiny) scaled_pair on each, else the pair loop on copies and cancel_pair on the pairs
     * it leaves (the element the rotation annihilates), written back where these decide every
     * pair, else the chunks below from x and y untouched (each pair is its own RN(exact)
     * either way) */
    if (n <= 4 && incx != 0 && incy != 0) {
        double xs[4] = { 0 }, ys[4] = { 0 }, nx[4], ny[4];
        uint8_t fl[4];
        double *x0 = ozb_vec0_mut(x, n, incx), *y0 = ozb_vec0_mut(y, n, incy);
        for (int64_t i = 0; i < n; i++) { xs[i] = x0[i * incx]; ys[i] = y0[i * incy]; }
        int done = all_tiny(n, xs, 1, ys, 1);
        for (int64_t i = 0; i < n && done; i++) done = scaled_pair(hm, xs[i], ys[i], &nx[i], &ny[i]);
        if (!done) done = ozb_rot_pairs(n, xs, ys, hm, nx, ny, fl, 0) == 0;
        if (!done) {
            done = 1;
            for (int64_t i = 0; i < n && done; i++) done = !fl[i] || cancel_pair(hm, xs[i], ys[i], &nx[i], &ny[i]);
        }
        if (done) {
            for (int64_t i = 0; i < n; i++) { x0[i * incx] = nx[i]; y0[i * incy] = ny[i]; }
            return OZBLAS_STATUS_SUCCESS;
        }
    }
    /* an increment 0 repeats one element in order (CONTRACT §6, Arguments): each pair then
     * reads the element the pair before it wrote, so the pairs go one at a time */
    const int64_t ch = incx == 0 || incy == 0 ? 1 : CH, nch = (n + ch - 1) / ch;
    /* threads from 2^13 elements (ozb_threads_for counts 8 an element against its 2^16: the
     * pair loop takes about a nanosecond an element, and the pool's start several microseconds
     * on the 2-core EPYC); one thread where the caller's floating-point environment was not
     * the standard one (the pool's threads may carry it: core/fpenv.h) or an increment is 0 */
    int nt = one_thread || ch == 1 || nch == 1 ? 1 : ozb_threads_for(h, 8.0 * (double)n);
    uint8_t *left = nt > 1 ? ozb_buf_get(h, OZB_BUF_SHAPE_P, (size_t)(nch + n)) : NULL;
    if (!left) nt = 1;   /* (without the flags' buffer: one thread, the same bits) */
    const rot_t r = { ozb_vec0_mut(x, n, incx), ozb_vec0_mut(y, n, incy), n, incx, incy, ch, { hm[0], hm[1], hm[2], hm[3] },
                      ozb_eft_wide(h), left, left ? left + nch : NULL };
    /* on threads: the pair loop on every chunk, then those left on this thread; on one thread
     * each chunk whole in turn */
    if (nt > 1 && ozb_par_for(1, nt, nch, fast_chunks, (void *)&r) == 0) return OZBLAS_STATUS_SUCCESS;
    int written = 0;
    for (int64_t c = 0; c < nch && nt > 1; c++) written |= left[c] != 2;
    for (int64_t c = 0; c < nch; c++) {
        if (nt > 1 && !left[c]) continue;
        int wrote;
        const ozblas_status_t st = chunk(h, &r, c, &wrote);
        if (st != OZBLAS_STATUS_SUCCESS) return written || wrote ? OZBLAS_STATUS_PARTIAL : st;
        written = 1;
    }
    return OZBLAS_STATUS_SUCCESS;
}

static ozblas_status_t apply(ozblas_handle_t h, int64_t n, double *x, int64_t incx, double *y, int64_t incy,
                             double h11, double h12, double h21, double h22)
{
    ozb_fpenv_t env;   /* the error-free steps need CONTRACT §1's rounding */
    const int changed = ozb_fpenv_enter(&env);
    const double hm[4] = { h11, h12, h21, h22 };
    const ozblas_status_t st = apply_std(h, n, x, incx, y, incy, hm, changed);
    ozb_fpenv_leave(env, changed);
    return st;
}

static ozblas_status_t rot_args(ozblas_handle_t h, int64_t n, const double *x, const double *y)
{
    if (!h) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    if (n > 0 && (!x || !y)) return OZBLAS_STATUS_INVALID_VALUE;
    ozb_info_reset(h);
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_drot(ozblas_handle_t h, int64_t n, double *x, int64_t incx, double *y, int64_t incy,
                            double c, double s)
{
    const ozblas_status_t st = rot_args(h, n, x, y);
    if (st != OZBLAS_STATUS_SUCCESS || n <= 0) return st;
    return apply(h, n, x, incx, y, incy, c, s, -s, c);
}

/* param[0] = flag, as the reference BLAS reads it: -2 identity (nothing); below 0 the full H;
 * 0 a unit diagonal; anything else (1, NaN) h12 = 1, h21 = -1 */
ozblas_status_t ozblas_drotm(ozblas_handle_t h, int64_t n, double *x, int64_t incx, double *y, int64_t incy,
                             const double *param)
{
    ozblas_status_t st = rot_args(h, n, x, y);
    if (st == OZBLAS_STATUS_SUCCESS && n > 0 && !param) st = OZBLAS_STATUS_INVALID_VALUE;
    if (st != OZBLAS_STATUS_SUCCESS || n <= 0) return st;
    const double flag = param[0];
    if (flag == -2.0) return OZBLAS_STATUS_SUCCESS;
    if (flag < 0.0) return apply(h, n, x, incx, y, incy, param[1], param[3], param[2], param[4]);
    if (flag == 0.0) return apply(h, n, x, incx, y, incy, 1.0, param[3], param[2], 1.0);
    return apply(h, n, x, incx, y, incy, param[1], 1.0, -1.0, param[4]);
}
