/* DGBMV, DSBMV and DTBMV over the band alone (O(n k) work, no matrix made whole), by strips of
 * eight output rows: the strip's window of the band (read where it lies through lane masks in
 * a regular strip, else packed with zeros outside it) summed by the error-free GEMV-N strip
 * (eft/eft_band.h), which certifies each row's RN(exact); a row it
 * leaves has its terms gathered into a short list and summed exactly, rounded once
 * (ozb_band_sum).  So every element is correctly rounded in every mode, whichever path takes
 * it, and equals what dgemv / dsymv / dtrmv compute correctly rounded on the matrix in full
 * storage.  DTBSV: band_solve.c. */
#include "shapes/shapes.h"
#include "dispatch/dispatch.h"
#include "core/backend.h"
#include "core/fpenv.h"
#include "core/par.h"
#include "eft/eft_band.h"
#include "blas2/band_sum.h"
#include <immintrin.h>   /* AVX2: the library's baseline (x86-64-v3) */
#include <math.h>
#include <string.h>
#include "core/gather.h"

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* One banded operator M: output o's terms are M(o, j) x_j for j in two runs of A, each
 * possibly empty, together [j0(o), j1(o)], their ends nondecreasing in o:
 *   by columns: M(o, j) = A[j (lda - 1) + co + o] for j in [c0, c1] (a stretch of column j
 *               holds consecutive outputs' terms: eight outputs by one load);
 *   by rows:    M(o, j) = A[o (lda - 1) + ro + j] for j in [r0, r1] (output o's terms in a row).
 * GB_N / GB_T: a general band (kl sub-, ku superdiagonals) or its transpose; SB: symmetric with
 * k = kl off-diagonals stored in its `lower` (else upper) triangle; TB: op(T) of a triangular
 * one (trans), unit: ones on its diagonal, not read. */
enum { GB_N, GB_T, SB, TB };
typedef struct {
    const double *A;
    int64_t lda, m, n, kl, ku;
    int kind, lower, trans, unit;
} band_t;
typedef struct { int64_t c0, c1, r0, r1; } runs_t;

static int64_t co_of(const band_t *B) { return B->kind == GB_N ? B->ku : B->lower ? 0 : B->kl; }
static int64_t ro_of(const band_t *B) { return B->kind == GB_T ? B->ku : B->lower ? 0 : B->kl; }

static inline runs_t runs(const band_t *B, int64_t o)
{
    const int64_t k = B->kl, lo = max64(0, o - k), hi = min64(B->n - 1, o + k);
    switch (B->kind) {
    case GB_N: return (runs_t){ max64(0, o - B->kl), min64(B->n - 1, o + B->ku), 0, -1 };
    case GB_T: return (runs_t){ 0, -1, max64(0, o - B->ku), min64(B->m - 1, o + B->kl) };
    case SB: return B->lower ? (runs_t){ lo, o, o + 1, hi } : (runs_t){ o, hi, lo, o - 1 };
    default: {
        /* op(T) lower (j <= o) where lower and not transposed, or upper and transposed; op(T)
         * = T reads T(o, j) down columns, op(T) = T^T reads T(j, o) along a row */
        const int64_t a = B->lower != B->trans ? lo : o, b = B->lower != B->trans ? o : hi;
        return B->trans ? (runs_t){ 0, -1, a, b } : (runs_t){ a, b, 0, -1 };
    }
    }
}

static inline double coef(const band_t *B, const runs_t *R, int64_t o, int64_t j)
{
    if (B->kind == TB && B->unit && o == j) return 1.0;
    return j >= R->c0 && j <= R->c1 ? B->A[j * (B->lda - 1) + co_of(B) + o] : B->A[o * (B->lda - 1) + ro_of(B) + j];
}

static int64_t jlo(const runs_t *R) { return R->c0 <= R->c1 ? (R->r0 <= R->r1 ? min64(R->c0, R->r0) : R->c0) : R->r0; }
static int64_t jhi(const runs_t *R) { return R->c0 <= R->c1 ? (R->r0 <= R->r1 ? max64(R->c1, R->r1) : R->c1) : R->r1; }

/* One past the last element of A the band refers to: the storage may end there (a caller
 * need not hold the rows of the last columns below the band: the CBLAS testers' row-major band
 * matrices are allocated to their last element), so no load may read beyond it.  General:
 * the last column with an element, min(n - 1, m - 1 + ku), down to its last row; lower: the
 * last diagonal element, (n - 1) lda; upper: the same at row k of the storage. */
static int64_t band_end(const band_t *B)
{
    if (B->kind <= GB_T) {
        const int64_t j = B->n - 1 < B->m - 1 + B->ku ? B->n - 1 : B->m - 1 + B->ku;
        const int64_t i = B->m - 1 < j + B->kl ? B->m - 1 : j + B->kl;
        return j * B->lda + B->ku + i - j + 1;
    }
    return (B->n - 1) * B->lda + (B->lower ? 0 : B->kl) + 1;
}

/* the widest span */
static int64_t span_max(const band_t *B)
{
    const int64_t w = B->kind <= GB_T ? B->kl + B->ku + 1 : 2 * B->kl + 1, len = B->kind == GB_T ? B->m : B->n;
    return w < len ? w : len;                  /* no wider than x (a band wider than the matrix) */
}

/* The strip of outputs o0..o0+rows-1 over columns J0..J0+w-1 into P ([column][8], zeros outside
 * the band).  The column runs eight rows at a time by two loads, their lanes outside the run
 * masked (the loads stay within A[0 .. band_end), else that column goes element by element);
 * the row runs element by element */
static void fill_strip(const band_t *B, const runs_t *R, int64_t o0, int rows, int64_t J0, int64_t w, double *P)
{
    const int64_t co = co_of(B), ro = ro_of(B), end = band_end(B), l1 = B->lda - 1;
    int64_t cl = INT64_MAX, ch = -1, fl = INT64_MIN, fh = INT64_MAX;
    int64_t c0[8], c1[8];
    for (int r = 0; r < 8; r++) {
        c0[r] = r < rows ? R[r].c0 : 1;
        c1[r] = r < rows ? R[r].c1 : 0;
        if (c0[r] <= c1[r]) { cl = min64(cl, c0[r]); ch = max64(ch, c1[r]); }
        fl = max64(fl, c0[r]);                 /* columns fl..fh: every lane in its run */
        fh = min64(fh, c1[r]);
    }
    /* the column runs write whole columns cl..ch of P (zeros in the lanes outside): zeros
     * first only in the window's other columns, where the row runs write */
    if (cl > ch) {
        memset(P, 0, sizeof(double) * 8 * (size_t)w);
        cl = 1, ch = 0;
    } else {
        memset(P, 0, sizeof(double) * 8 * (size_t)(cl - J0));
        memset(P + 8 * (ch + 1 - J0), 0, sizeof(double) * 8 * (size_t)(J0 + w - 1 - ch));
    }
    const __m256i a0 = _mm256_loadu_si256((const __m256i *)c0), a1 = _mm256_loadu_si256((const __m256i *)(c0 + 4));
    const __m256i b0 = _mm256_loadu_si256((const __m256i *)c1), b1 = _mm256_loadu_si256((const __m256i *)(c1 + 4));
    for (int64_t j = cl; j <= ch; j++) {
        const int64_t base = j * l1 + co + o0;
        double *p = P + 8 * (j - J0);
        if (j >= fl && j <= fh && base >= 0 && base + 8 <= end) {
            _mm256_storeu_pd(p, _mm256_loadu_pd(B->A + base));
            _mm256_storeu_pd(p + 4, _mm256_loadu_pd(B->A + base + 4));
        } else if (base >= 0 && base + 8 <= end) {
            /* lane r: c0[r] <= j <= c1[r] */
            const __m256i jv = _mm256_set1_epi64x(j);
            const __m256i m0 = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpgt_epi64(a0, jv), _mm256_cmpgt_epi64(jv, b0)),
                                                   _mm256_set1_epi64x(-1));
            const __m256i m1 = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpgt_epi64(a1, jv), _mm256_cmpgt_epi64(jv, b1)),
                                                   _mm256_set1_epi64x(-1));
            _mm256_storeu_pd(p, _mm256_and_pd(_mm256_loadu_pd(B->A + base), _mm256_castsi256_pd(m0)));
            _mm256_storeu_pd(p + 4, _mm256_and_pd(_mm256_loadu_pd(B->A + base + 4), _mm256_castsi256_pd(m1)));
        } else
            for (int r = 0; r < 8; r++) p[r] = r < rows && j >= c0[r] && j <= c1[r] ? B->A[base + r] : 0.0;
    }
    for (int r = 0; r < rows; r++)
        for (int64_t j = R[r].r0; j <= R[r].r1; j++) P[8 * (j - J0) + r] = B->A[(o0 + r) * l1 + ro + j];
    if (B->kind == TB && B->unit)
        for (int r = 0; r < rows; r++) P[8 * (o0 + r - J0) + r] = 1.0;
}

/* One band_mv call's strips of eight outputs */
typedef struct {
    const band_t *B;
    int64_t ny, incx, incy, wm;
    double alpha, beta;
    const double *x0;
    double *y0;
    double *scr;            /* the strips' scratch (SCR wm doubles), or NULL: each thread's stack */
    const double *mk;       /* the regular strips' masks (run_masks), NULL where no strip is regular */
    int64_t L, U, end;      /* their column runs (column_run) and band_end */
    uint8_t *left;          /* per strip: the outputs it leaves (bit r: output 8 q + r) */
} mv_t;

/* Windows up to this many columns take their scratch on the thread's stack (27 KiB), so the
 * strips may run on the call's threads; wider ones (bands as wide as 250 columns and more)
 * run on the calling thread with the handle's.  A strip's scratch, SCR doubles a window
 * column: P (8), x gathered (1) and the deep sums' lowest bits (9 int32). */
enum { WM_STACK = 256, SCR = 14 };

/* Strip q's outputs' runs (R, rows of them) and the window of columns they span, [*J0, *J1];
 * 0 where they have no term */
static int strip_window(const band_t *B, int64_t ny, int64_t q, runs_t R[8], int *rows, int64_t *J0, int64_t *J1)
{
    const int64_t o0 = 8 * q;
    *rows = ny - o0 < 8 ? (int)(ny - o0) : 8;
    *J0 = INT64_MAX, *J1 = -1;
    for (int r = 0; r < *rows; r++) {
        R[r] = runs(B, o0 + r);
        if (jlo(&R[r]) <= jhi(&R[r])) { *J0 = min64(*J0, jlo(&R[r])); *J1 = max64(*J1, jhi(&R[r])); }
    }
    return *J0 <= *J1;
}

/* Operators whose every output o has its terms in one column run [o - L, o + U] before the
 * matrix's edges clip it (a general band; a triangular one, not transposed, its diagonal
 * read): 1 and L, U.  A strip of eight such outputs inside the edges has its window's lanes in
 * the same places whatever the strip (lane r of window column c holds a term where r <= c <=
 * r + L + U), so it is read where it lies through masks made once per call (regular
 * strips). */
static int column_run(const band_t *B, int64_t *L, int64_t *U)
{
    if (B->kind == GB_N) { *L = B->kl; *U = B->ku; return 1; }
    if (B->kind == TB && !B->unit && !B->trans) { *L = B->lower ? B->kl : 0; *U = B->lower ? 0 : B->kl; return 1; }
    return 0;
}

/* The masks of a regular strip's window of w = L + U + 8 columns: mk[8 c + r] all ones where
 * lane r of column c holds a term, else +0, and at mk + 8 w the same without the sign bit */
static void run_masks(int64_t L, int64_t U, double *mk)
{
    const int64_t w = L + U + 8;
    const uint64_t ones = ~(uint64_t)0, mag = ones >> 1;
    for (int64_t c = 0; c < w; c++)
        for (int r = 0; r < 8; r++) {
            const int in = c >= r && c <= r + L + U;
            mk[8 * c + r] = mk[8 * (w + c) + r] = 0.0;
            if (in) memcpy(&mk[8 * c + r], &ones, sizeof ones), memcpy(&mk[8 * (w + c) + r], &mag, sizeof mag);
        }
}

/* Regular strip q (outputs 8 q .. 8 q + 7 all in the run's interior) by
 * ozb_eft_band_strip_direct on its window where it lies, the rows it leaves by the deep sums on
 * the window packed: 1 and the rows still left in *left; 0 where it does not apply or leaves
 * the strip whole (nothing written) */
static int regular_strip(const mv_t *v, int64_t q, double *P, double *xs, int32_t *lsb, unsigned *left)
{
    const band_t *B = v->B;
    const int64_t L = v->L, U = v->U, end = v->end;
    const int64_t o0 = 8 * q, J0 = o0 - L, w = L + U + 8, l1 = B->lda - 1, base = J0 * l1 + co_of(B) + o0;
    /* (the last test follows from the others: lane 7 of the last column is an element of the
     * band, below band_end; kept as the loads' own guard) */
    if (o0 < L || o0 + 8 > v->ny || o0 + 7 + U > B->n - 1 || base + (w - 1) * l1 + 8 > end) return 0;
    const double *xw = v->x0 + J0 * v->incx;
    if (v->incx != 1) {
        ozb_gather(xw, w, v->incx, xs);
        xw = xs;
    }
    double *y = v->y0 + o0 * v->incy;
    if (!ozb_eft_band_strip_direct(B->A + base, l1, v->mk, xw, w, v->alpha, v->beta, y, v->incy, left)) return 0;
    if (*left) {
        runs_t R[8];
        int rows;
        int64_t j0, j1;
        (void)strip_window(B, v->ny, q, R, &rows, &j0, &j1);   /* (rows = 8, [j0, j1] = the window) */
        fill_strip(B, R, o0, rows, J0, w, P);
        *left = ozb_eft_band_deep(P, xw, w, *left, v->alpha, v->beta, y, v->incy, lsb);
    }
    return 1;
}

/* Strips lo..hi-1 by ozb_eft_band_strip (regular ones first by regular_strip), the outputs
 * each leaves in v->left.  Each output is its own sum, written by its strip alone: the
 * strips' order and threads change no bit. */
static int64_t strip_range(void *ctx, int64_t lo, int64_t hi)
{
    const mv_t *v = ctx;
    const band_t *B = v->B;
    double stack[9 * WM_STACK];
    int32_t lsb_stack[9 * WM_STACK];
    double *P = v->scr ? v->scr : stack, *xs = P + 8 * v->wm;
    int32_t *lsb = v->scr ? (int32_t *)(xs + v->wm) : lsb_stack;   /* (the handle's memory: no declared type) */
    for (int64_t q = lo; q < hi; q++) {
        unsigned left;
        if (v->mk && regular_strip(v, q, P, xs, lsb, &left)) {
            v->left[q] = (uint8_t)left;
            continue;
        }
        const int64_t o0 = 8 * q;
        runs_t R[8];
        int rows;
        int64_t J0, J1;
        const int any = strip_window(B, v->ny, q, R, &rows, &J0, &J1);
        v->left[q] = (uint8_t)((1u << rows) - 1);
        if (!any) continue;
        const int64_t w = J1 - J0 + 1;
        fill_strip(B, R, o0, rows, J0, w, P);
        const double *xw = v->x0 + J0 * v->incx;
        if (v->incx != 1) {
            ozb_gather(xw, w, v->incx, xs);
            xw = xs;
        }
        v->left[q] = (uint8_t)ozb_eft_band_strip(P, xw, w, rows, v->alpha, v->beta, v->y0 + o0 * v->incy, v->incy, lsb);
    }
    return 0;
}

/* y_o := RN(alpha sum_j M(o, j) x_j + beta y_o) for o < ny (beta == 0: y not read): strips of
 * eight outputs by ozb_eft_band_strip where it applies (on the call's threads), then on the
 * calling thread each output they leave (and every one where they do not apply) by its own
 * short exact sum */
static ozblas_status_t band_mv(ozblas_handle_t h, const band_t *B, int64_t ny, double alpha, const double *x0,
                               int64_t incx, double beta, double *y0, int64_t incy)
{
    const int64_t sm = span_max(B), wm = sm + 7, ns = (ny + 7) / 8;  /* a strip's window: at most sm + 7 columns */
    const int strips = alpha != 0.0 && ozb_eft_band_applies(h, alpha, beta), heap = strips && wm > WM_STACK;
    /* regular strips where their window (L + U + 8 columns) fits the matrix (else none is:
     * o0 >= L and o0 + 7 + U <= n - 1) and the stack's scratch (wm <= WM_STACK columns, wm the
     * widest window); their masks made once here, in the handle's memory, read by every thread */
    int64_t L = 0, U = 0;
    const int reg = strips && !heap && column_run(B, &L, &U) && L + U + 8 <= B->n && L + U + 8 <= wm;
    const size_t nscr = heap ? (size_t)(SCR * wm) : 0, nmk = reg ? (size_t)(16 * (L + U + 8)) : 0;
    double *a = ozb_buf_get(h, OZB_BUF_SHAPE_P, sizeof(double) * ((size_t)(2 * sm) + nscr + nmk) + (size_t)ns);
    if (!a) return OZBLAS_STATUS_ALLOC_FAILED;
    double *b = a + sm, *mk = b + sm + nscr;
    if (reg) run_masks(L, U, mk);
    ozb_fpenv_t env;
    const int changed = ozb_fpenv_enter(&env);
    const mv_t v = { B, ny, incx, incy, wm, alpha, beta, x0, y0, heap ? b + sm : NULL, reg ? mk : NULL, L, U,
                     reg ? band_end(B) : 0, (uint8_t *)(mk + nmk) };
    if (strips) {
        const int nt = changed || heap ? 1 : ozb_threads_for(h, 2.0 * (double)ny * (double)wm);
        (void)ozb_par_for(nt > 1, nt, ns, strip_range, (void *)&v);
    } else
        memset(v.left, 0xff, (size_t)ns);
    ozblas_status_t st = OZBLAS_STATUS_SUCCESS;
    for (int64_t o = 0; o < ny && st == OZBLAS_STATUS_SUCCESS; o++) {
        if (!v.left[o / 8]) { o |= 7; continue; }            /* the strip's eight all done */
        if (!(v.left[o / 8] >> (o % 8) & 1)) continue;
        const runs_t R = runs(B, o);
        int64_t c = 0;
        for (int64_t j = jlo(&R); j <= jhi(&R) && alpha != 0.0; j++, c++) {
            a[c] = coef(B, &R, o, j);
            b[c] = x0[j * incx];
        }
        st = ozb_band_sum(h, a, b, c, alpha, beta, &y0[o * incy]);
    }
    ozb_fpenv_leave(env, changed);
    return st;
}

ozblas_status_t ozblas_dgbmv(ozblas_handle_t h, ozblas_operation_t trans, int64_t m, int64_t n, int64_t kl, int64_t ku,
                             double alpha, const double *A, int64_t lda, const double *x, int64_t incx, double beta,
                             double *y, int64_t incy)
{
    if (!h || !ozb_valid_op(trans) || m < 0 || n < 0 || kl < 0 || ku < 0 || lda < kl + ku + 1 || incx == 0 || incy == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!y || (alpha != 0.0 && (!A || !x))) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    const int t = trans == OZBLAS_OP_T;
    const int64_t leny = t ? n : m, lenx = t ? m : n;
    const band_t B = { A, lda, m, n, kl, ku, t ? GB_T : GB_N, 0, 0, 0 };
    return band_mv(h, &B, leny, alpha, ozb_vec0(x, lenx, incx), incx, beta, ozb_vec0_mut(y, leny, incy), incy);
}

ozblas_status_t ozblas_dsbmv(ozblas_handle_t h, ozblas_uplo_t uplo, int64_t n, int64_t k, double alpha,
                             const double *A, int64_t lda, const double *x, int64_t incx, double beta, double *y,
                             int64_t incy)
{
    if (!h || (uplo != OZBLAS_UPPER && uplo != OZBLAS_LOWER) || n < 0 || k < 0 || lda < k + 1 || incx == 0 ||
        incy == 0)
        return OZBLAS_STATUS_INVALID_VALUE;
    if (n == 0) return OZBLAS_STATUS_SUCCESS;
    if (!y || (alpha != 0.0 && (!A || !x))) return OZBLAS_STATUS_INVALID_VALUE;
    if (!ozb_host_operands(h)) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_info_reset(h);
    const band_t B = { A, lda, n, n, k, k, SB, uplo == OZBLAS_LOWER, 0, 0 };
    return band_mv(h, &B, n, alpha, ozb_vec0(x, n, incx), incx, beta, ozb_vec0_mut(y, n, incy), incy);
}

ozblas_status_t ozblas_dtbmv(ozblas_handle_t h, ozblas_uplo_t uplo, ozblas_operation_t trans, ozblas_diag_t diag,
                             int64_t n, int64_t k, const double *A, int64_t lda, double *x, int64_t incx)
{
    ozblas_status_t st = ozb_tb_args(h, uplo, trans, diag, n, k, A, lda, x, incx);
    if (st != OZBLAS_STATUS_SUCCESS || n == 0) return st;
    ozb_info_reset(h);
    /* x := op(T) x from a copy of x (every output reads the old values) */
    double *xc = ozb_buf_get(h, OZB_BUF_SHAPE_A, sizeof(double) * (size_t)n), *x0 = ozb_vec0_mut(x, n, incx);
    if (!xc) return OZBLAS_STATUS_ALLOC_FAILED;
    ozb_gather(x0, n, incx, xc);
    const band_t B = { A, lda, n, n, k, k, TB, uplo == OZBLAS_LOWER, trans == OZBLAS_OP_T, diag == OZBLAS_UNIT };
    return band_mv(h, &B, n, 1.0, xc, 1, 0.0, x0, incx);
}
