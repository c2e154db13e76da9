/* The level-3 shapes (kernels/ozb_shape_ops.h) in the handle's memory: through the backend
 * where it keeps the operands (a CUDA handle: device kernels), on the host otherwise, where
 * the symmetric and triangular operands take the faster loops of shapes.c (the same values:
 * copies). */
#include "shapes/shapes.h"
#include "core/backend.h"
#include "core/ozb_internal.h"

double *ozb_shape_buf(ozblas_handle_t h, int slot, size_t bytes)
{
    return h->be->shape_buf ? h->be->shape_buf(h, slot, bytes) : ozb_buf_get(h, slot, bytes);
}

ozblas_status_t ozb_shape(ozblas_handle_t h, const ozb_op_shape *s)
{
    if (h->be->shape) return h->be->shape(h, s) ? OZBLAS_STATUS_EXECUTION_FAILED : OZBLAS_STATUS_SUCCESS;
    const int whole = s->drs == 1 && s->dcs == s->m && s->m == s->n;
    if (whole && s->kind == OZB_SHAPE_SYM && s->srs == 1) ozb_sym_full(s->src, s->scs, s->n, s->lower, s->dst);
    else if (whole && s->kind == OZB_SHAPE_TRI && (s->srs == 1 || s->scs == 1))
        /* src(i, j) = op(T)(i, j): T itself where srs = 1, T^T where scs = 1 (its lower
         * triangle then op(T)'s upper one) */
        ozb_tri_full(s->src, s->srs == 1 ? s->scs : s->srs, s->n, s->srs == 1 ? s->lower : !s->lower, s->srs != 1,
                     s->unit, s->dst);
    else if (s->kind == OZB_SHAPE_COPY && s->drs == 1)   /* DSYR2K's panels, DTRMM's copy of B: no switch per element */
        for (int64_t j = 0; j < s->n; j++) {
            const double *src = s->src + j * s->scs;
            double *dst = s->dst + j * s->dcs;
            for (int64_t i = 0; i < s->m; i++) dst[i] = src[i * s->srs];
        }
    else
        for (int64_t j = 0; j < s->n; j++)
            for (int64_t i = 0; i < s->m; i++) ozb_op_shape_elem(s, i, j);
    return OZBLAS_STATUS_SUCCESS;
}
