/* Splitting engine (seed 000 Algorithm 1 on a fixed grid, as seed 004 Algorithm 4 uses
 * for integer slices; seed 001 §4.7: the maximum of the remainder is found in the same
 * pass that writes a slice).
 *
 * Row i of a block is split as  a_il = sum_t d_til * 2^w_ti  with integer digits
 * d_til on a grid fixed by the row maximum: 2^(e-1) <= max_l |a_il| < 2^e and
 * w_t = e - (t+1)*beta.  Each digit is the remainder truncated toward zero to a
 * multiple of 2^w_t, so |d| <= 2^beta - 1 in every slice (int8 digits for beta = 7,
 * binary16 integers for beta <= 11) and the remainder keeps the sign of the input.
 * Splitting stops when the remainder is zero (exact: slice count ceil((e - L)/beta),
 * L the lowest set bit of the row; CORRECTLY_ROUNDED) or at the split limit (FIXED).
 * A fixed grid lets a fused kernel compute any slice of an element in registers,
 * without the others.
 *
 * Compiled with -ffp-contract=off. */
#include "split/split.h"
#include "core/par.h"
#include "../../kernels/ozb_kernel_ops.h"

/* The hot loops carry OZB_CLONES (ozb_internal.h): about 15-20 % faster splitting here. */
#include <math.h>
#include <omp.h>

#define ABS_MASK 0x7fffffffffffffffull

/* One slice, common case: -1022 <= w <= 1022 so that 2^w and 2^-w are normal doubles.
 * x * 2^-w is exact (or underflows below 1, where trunc gives 0 either way), its
 * truncation d is an integer with |d| < 2^beta, d * 2^w is exact, and x - d * 2^w is
 * exact: it is x with its bits at and above 2^w cleared.  dig may alias r. */
static int64_t pass_fast(const double *r, double *dig, double *rem, int64_t n, int w)
{
    const double scale = ozb_pow2(-w), unit = ozb_pow2(w);
    int64_t mx = 0;
    for (int64_t l = 0; l < n; l++) {
        double x = r[l];
        double d = (double)(int32_t)(x * scale);    /* truncation; |x*scale| < 2^beta <= 2^26 */
        double rr = x - d * unit;
        rem[l] = rr;
        dig[l] = d;
        int64_t b = (int64_t)(ozb_bits(rr) & ABS_MASK);
        mx = b > mx ? b : mx;
    }
    return mx;
}

/* The same digit in integer arithmetic, for grids outside the normal range (inputs
 * near overflow or subnormal): kernels/ozb_kernel_ops.h, which the CUDA device engine
 * runs too.  Bit-identical to pass_fast. */
static void digit_generic(double x, int w, double *dig, double *rem) { ozb_op_digit(x, w, dig, rem); }

static int64_t pass_generic(const double *r, double *dig, double *rem, int64_t n, int w)
{
    int64_t mx = 0;
    for (int64_t l = 0; l < n; l++) {
        double q, rr;
        digit_generic(r[l], w, &q, &rr);
        rem[l] = rr;
        dig[l] = q;
        int64_t b = (int64_t)(ozb_bits(rr) & ABS_MASK);
        mx = b > mx ? b : mx;
    }
    return mx;
}

static double bits_to_double(int64_t b) { double d; memcpy(&d, &b, sizeof d); return d; }

/* Splits one row; returns the slices it would need if cap were unlimited is unknown,
 * so it returns cap + 1 when it ran out of room, else the slices produced. */
OZB_CLONES static int split_row(const ozb_view *src, int64_t gi, int64_t l0, int64_t kb, int64_t i, int64_t rows,
                     const ozb_split_params *prm, ozb_slices *out)
{
    const int64_t sstride = rows * kb;
    double *r0 = out->slice + i * kb;
    int64_t mx = 0;
    const double *p = src->p + gi * src->rs + l0 * src->cs;
    const int64_t cs = src->cs;
    const double *first = r0;              /* what the first slice reads */
    if (cs == 1) {                         /* contiguous: read in place, no copy */
        for (int64_t l = 0; l < kb; l++) {
            int64_t b = (int64_t)(ozb_bits(p[l]) & ABS_MASK); mx = b > mx ? b : mx;
        }
        first = p;
    } else {
        for (int64_t l = 0; l < kb; l++) {
            double x = p[l * cs]; r0[l] = x;
            int64_t b = (int64_t)(ozb_bits(x) & ABS_MASK); mx = b > mx ? b : mx;
        }
    }
    out->flag[i] = 0;
    if ((uint64_t)mx >= 0x7ff0000000000000ull) {  /* Inf or NaN: handled by the special-value path */
        out->flag[i] = OZB_ROW_NONFINITE;
        out->ns[i] = 0;
        return 0;
    }
    int t = 0, ran_out = 0;
    const int e = mx ? ozb_ilogb(bits_to_double(mx)) + 1 : 0;   /* row maximum < 2^e */
    while (mx != 0) {
        if (prm->limit > 0 && t == prm->limit) break;
        if (t == out->cap) { ran_out = 1; break; }
        const int w = e - (t + 1) * prm->beta;
        double *rt = out->slice + (int64_t)t * sstride + i * kb;
        double *rn = rt + sstride;
        const double *rin = t == 0 ? first : rt;
        mx = (w >= -1022 && w <= 1022) ? pass_fast(rin, rt, rn, kb, w) : pass_generic(rin, rt, rn, kb, w);
        out->w[(int64_t)t * out->wstride + i] = w;
        t++;
    }
    out->ns[i] = t;
    return ran_out ? out->cap + 1 : t;
}

/* Rows strided, columns contiguous (op(A) = A with A column-major): copy the block
 * into slot 0 in strips of 8 rows (one cache line per column when lda is a multiple
 * of 8).  Consecutive columns are a page apart, which defeats the hardware
 * prefetcher: prefetch 16 columns ahead (a GEMV-N 4096's split takes 23 ms with it, 42 without). */
OZB_CLONES static void gather_transposed(const ozb_view *src, int64_t r0, int64_t rows, int64_t l0, int64_t kb,
                              double *dst, int nthreads)
{
    const int64_t nstrips = (rows + 7) / 8;
    OZB_PARALLEL_FOR_IF(nthreads > 1 && nstrips > 1, nthreads, schedule(static),
    for (int64_t s = 0; s < nstrips; s++) {
        const int64_t i0 = s * 8, ie = i0 + 8 < rows ? i0 + 8 : rows;
        for (int64_t l = 0; l < kb; l++) {
            const double *col = src->p + (r0 + i0) * src->rs + (l0 + l) * src->cs;
            if (l + 16 < kb) { __builtin_prefetch(col + 16 * src->cs); __builtin_prefetch(col + 16 * src->cs + 7 * src->rs); }
            for (int64_t i = i0; i < ie; i++) dst[i * kb + l] = col[(i - i0) * src->rs];
        }
    });
}

void ozb_split(const ozb_view *src, int64_t r0, int64_t rows, int64_t l0, int64_t kb,
               const ozb_split_params *prm, ozb_slices *out, int nthreads)
{
    out->rows = rows;
    out->kb = kb;
    ozb_view gathered;
    if (src->rs == 1 && src->cs != 1 && rows > 1) {
        gather_transposed(src, r0, rows, l0, kb, out->slice, nthreads);
        gathered.p = out->slice; gathered.rs = kb; gathered.cs = 1;
        src = &gathered; r0 = 0; l0 = 0;
    }
    int smax = 0;
    if (rows > 1 && nthreads > 1) {
        #pragma omp parallel for num_threads(nthreads) schedule(static) reduction(max:smax)
        for (int64_t i = 0; i < rows; i++) {
            int s = split_row(src, r0 + i, l0, kb, i, rows, prm, out);
            smax = s > smax ? s : smax;
        }
    } else {
        for (int64_t i = 0; i < rows; i++) {
            int s = split_row(src, r0 + i, l0, kb, i, rows, prm, out);
            smax = s > smax ? s : smax;
        }
    }
    out->need = smax;
    out->s = smax > out->cap ? out->cap : smax;
    /* Rows with fewer slices than the block get zero slices up to s, so that the GEMMs
     * never read stale values (never summed, but NaN or subnormal garbage would be slow). */
    const int s = out->s;
    OZB_PARALLEL_FOR_IF(rows > 1 && nthreads > 1, nthreads, schedule(static),
    for (int64_t i = 0; i < rows; i++)
        for (int t = out->ns[i]; t < s; t++)
            memset(out->slice + ((int64_t)t * rows + i) * kb, 0, sizeof(double) * (size_t)kb););
}
