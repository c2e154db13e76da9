/* The level-3 shapes (kernels/ozb_shape_ops.h) in the handle's memory: through the backend
 * where it keeps the operands (a CUDA handle: device kernels), on the host otherwise, where
 * the symmetric and triangular operands take the faster loops of shapes.c (the same values:
 * copies). */
#include "shapes/shapes.h"
#include "core/backend.h"
#include "core/ozb_internal.h"
#include <string.h>

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
            if (s->srs == 1) memcpy(dst, src, sizeof(double) * (size_t)s->m);
            else for (int64_t i = 0; i < s->m; i++) dst[i] = src[i * s->srs];
        }
    else if ((s->kind == OZB_SHAPE_MASK || s->kind == OZB_SHAPE_PUT) && s->srs == 1 && s->drs == 1)
        /* the triangle's part of each column at once: rows j.. (lower) or ..j (upper) */
        for (int64_t j = 0; j < s->n; j++) {
            const int64_t i0 = s->lower ? (j < s->m ? j : s->m) : 0, i1 = s->lower ? s->m : (j + 1 < s->m ? j + 1 : s->m);
            double *dst = s->dst + j * s->dcs;
            if (s->kind == OZB_SHAPE_MASK) {
                memset(dst, 0, sizeof(double) * (size_t)i0);
                memset(dst + i1, 0, sizeof(double) * (size_t)(s->m - i1));
                if (!s->src) memset(dst + i0, 0, sizeof(double) * (size_t)(i1 - i0));
            }
            if (s->src) memcpy(dst + i0, s->src + i0 + j * s->scs, sizeof(double) * (size_t)(i1 - i0));
        }
    else
        for (int64_t j = 0; j < s->n; j++)
            for (int64_t i = 0; i < s->m; i++) ozb_op_shape_elem(s, i, j);
    return OZBLAS_STATUS_SUCCESS;
}
