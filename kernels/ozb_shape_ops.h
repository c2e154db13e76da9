/* The level-3 routines' operand shapes, one element at a time, written once for the host and
 * the device (shapes/shape_ops.c walks them on the host, ozb_kernels.cu's k_shape on the
 * device): a symmetric matrix made whole, op(T) made whole, copies, the triangle of C in and
 * out of a scratch block, a triangle scaled, a row divided by its diagonal element.  Copies,
 * one IEEE multiplication (ozb_op_scale) and one IEEE division: the same bits on both. */
#ifndef OZB_SHAPE_OPS_H
#define OZB_SHAPE_OPS_H
#include "ozb_kernel_ops.h"

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
 * DIV, which read and write one element. */
typedef struct {
    int kind, lower, unit;
    int64_t m, n;
    const double *src;
    int64_t srs, scs;
    double *dst;
    int64_t drs, dcs;
    double beta;
    const double *div;
} ozb_op_shape;

OZB_HD void ozb_op_shape_elem(const ozb_op_shape *s, int64_t i, int64_t j)
{
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
#endif
