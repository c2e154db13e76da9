/* The level-3 routines' operand shapes, one element at a time, written once for the host and
 * the device (shapes/shape_ops.c walks them on the host, ozb_kernels.cu's k_shape on the
 * device): a symmetric matrix made whole, op(T) made whole, copies, the triangle of C in and
 * out of a scratch block, a triangle scaled, a row divided by its diagonal element.  Copies,
 * one IEEE multiplication (ozb_op_scale) and one IEEE division: the same bits on both.  Last,
 * the device's in-block rows of a triangular solve (certified, or left to the host's rows). */
#ifndef OZB_SHAPE_OPS_H
#define OZB_SHAPE_OPS_H
#include "ozb_kernel_ops.h"
#include "ozb_eft_ops.h"

typedef enum {
    OZB_SHAPE_SYM,        /* dst = the whole symmetric matrix whose `lower`/upper triangle src holds */
    OZB_SHAPE_TRI,        /* dst = the triangular src whole: zeros outside, ones on a `unit` diagonal */
    OZB_SHAPE_COPY,       /* dst = src */
    OZB_SHAPE_MASK,       /* dst = src on the triangle (zero where src is NULL), zero outside */
    OZB_SHAPE_PUT,        /* dst = src on the triangle; outside untouched */
    OZB_SHAPE_SCALE,      /* dst = ozb_op_scale(dst, beta) on the triangle; outside untouched */
    OZB_SHAPE_DIV         /* dst = dst / *div (every element; the divisor read where it lies) */
} ozb_shape_kind;

/* Element (i, j) of an m x n window: src(i, j) = src[i srs + j scs], dst(i, j) = dst[i drs +
 * j dcs]; "the triangle" is i >= j (lower) or i <= j.  src may alias dst only for SCALE and
 * DIV, which read and write one element.  Where skip is set and *skip is not 0 the op writes
 * nothing: the device's solve copies its solved rows over X only where no row was declined,
 * decided where the flag lies, so that the host waits once, for the flag. */
typedef struct {
    int kind, lower, unit;
    int64_t m, n;
    const double *src;
    int64_t srs, scs;
    double *dst;
    int64_t drs, dcs;
    double beta;
    const double *div;
    const int *skip;
} ozb_op_shape;

OZB_HD void ozb_op_shape_elem(const ozb_op_shape *s, int64_t i, int64_t j)
{
    if (s->skip && *s->skip) return;
    const int in = s->lower ? i >= j : i <= j;
    double *d = s->dst + i * s->drs + j * s->dcs;
    switch (s->kind) {
    case OZB_SHAPE_SYM: *d = in ? s->src[i * s->srs + j * s->scs] : s->src[j * s->srs + i * s->scs]; break;
    case OZB_SHAPE_TRI: *d = i == j && s->unit ? 1.0 : in ? s->src[i * s->srs + j * s->scs] : 0.0; break;
    case OZB_SHAPE_COPY: *d = s->src[i * s->srs + j * s->scs]; break;
    case OZB_SHAPE_MASK: *d = in && s->src ? s->src[i * s->srs + j * s->scs] : 0.0; break;
    case OZB_SHAPE_PUT: if (in) *d = s->src[i * s->srs + j * s->scs]; break;
    case OZB_SHAPE_SCALE: if (in) *d = s->beta == 0.0 ? 0.0 : ozb_op_scale(*d, s->beta); break;   /* beta 0: C not read */
    default: *d = *d / *s->div; break;
    }
}
/* The in-block rows of one block of the triangular solve (CONTRACT §6, src/shapes/trsolve.c)
 * for column j of X, on the device: row i := RN(x_i - sum_{l<i} t(i, l) x_l), then divided by
 * t(i, i) (IEEE; not where unit).  Each sum is one certified error-free chain of ozb_eft_ops.h
 * (row i: i products, TwoProduct and TwoSum in order, tree depth i + 1 counted as i + 2, far
 * within OZB_EFT_DEPTH_MAX for any block), finished with alpha = -1, beta = 1, c0 = x_i: the
 * finish proves its result RN(exact) or declines (an exact zero, a subnormal, Inf or NaN among
 * the terms, a midpoint too near).  The rows go to the scratch out (bs x nrhs, column j at out + j bs),
 * X is only read; a row declined sets *bad, and then the scratch is not copied over X (the
 * copy's skip) and the caller solves the block by its exact rows.  RN(exact) is unique and the division IEEE's: a block
 * with no row declined holds the host's bits. */
typedef struct {
    const double *t;
    int64_t trs, tcs;       /* t(i, l) = t[i trs + l tcs], i, l < bs */
    int unit;
    int64_t bs, nrhs;       /* the block's rows, X's columns */
    const double *x;
    int64_t xrs, xcs;       /* x(i, j) = x[i xrs + j xcs] */
    double *out;            /* the rows solved, bs x nrhs */
    int *bad;               /* set to 1 where a row is declined (else untouched) */
} ozb_op_subst;

OZB_HD void ozb_op_subst_col(const ozb_op_subst *g, int64_t j)
{
    double *v = g->out + j * g->bs;
    const double *x = g->x + j * g->xcs;
    for (int64_t i = 0; i < g->bs; i++) {
        double r = x[i * g->xrs];
        if (i > 0) {
            ozb_eft_acc a;
            ozb_op_eft_init(&a);
            for (int64_t l = 0; l < i; l++) ozb_op_eft_add(&a, g->t[i * g->trs + l * g->tcs], v[l]);
            if (!ozb_op_eft_finish(&a, (double)(i + 2), -1.0, 1.0, r, &r)) {
                *g->bad = 1;
                return;
            }
        }
        v[i] = g->unit ? r : r / g->t[i * (g->trs + g->tcs)];
    }
}
/* Inf and NaN in an operand of a triangular product on the device (CONTRACT §6, Triangular
 * operands): the m x n window x(i, j) = x[i rs + j cs], one vector a column.  Every element:
 * *any = 1 where it is not finite (each writer writes the same 1); every column j: the first
 * and the last row of a non-finite element into range[2 j], range[2 j + 1], -1 where none.  By
 * the exponent bits, no arithmetic. */
typedef struct {
    const double *x;
    int64_t rs, cs, m, n;
    int *any;
    int64_t *range;
} ozb_op_nonfinite;

OZB_HD int ozb_op_not_finite(double v) { return (ozb_op_bits(v) & OZB_OP_INF_BITS) == OZB_OP_INF_BITS; }

OZB_HD void ozb_op_nonfinite_elem(const ozb_op_nonfinite *g, int64_t i, int64_t j)
{
    if (ozb_op_not_finite(g->x[i * g->rs + j * g->cs])) *g->any = 1;
}

OZB_HD void ozb_op_nonfinite_col(const ozb_op_nonfinite *g, int64_t j)
{
    int64_t f = -1, l = -1;
    for (int64_t i = 0; i < g->m; i++)
        if (ozb_op_not_finite(g->x[i * g->rs + j * g->cs])) {
            if (f < 0) f = i;
            l = i;
        }
    g->range[2 * j] = f;
    g->range[2 * j + 1] = l;
}
#endif
