/* Shared by the CRT format's files (crt.c the driver and reconstruction, crt_scale.c,
 * crt_residues.c, crt_select.c); private to src/crt. */
#ifndef OZB_CRT_INTERNAL_H
#define OZB_CRT_INTERNAL_H
#include "crt/crt.h"
#include "crt/crt_consts.h"
#include "crt/crt_gemm.h"
#include "core/backend.h"
#include "sum/special.h"
#include "../../kernels/ozb_crt_ops.h"
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

/* a row with a finite nonzero maximum */
static inline int crt_usable(int32_t e) { return e != E_ZERO && e != E_BAD; }

/* Per-modulus constants of the residues: the device's own type (kernels/ozb_crt_ops.h) */
typedef ozb_op_crt_res resconst_t;

/* crt_scale.c: every row's e, c, l1 (cz unset); the scaling exponent for s moduli */
void    ozb_crt_row_scales(const ozb_view *v, int64_t rows, int64_t k, rowscale_t *rs, int nt);
int32_t ozb_crt_row_ka(const rowscale_t *r, const ozb_crt_consts *cs);

/* crt_residues.c */
int  ozb_crt_make_residues(const ozb_view *v, const rowscale_t *rs, int64_t r0, int64_t rows, int64_t l0, int64_t kb,
                           const resconst_t *rc, int8_t *out, double *tmp, int nt, int uns);

/* crt_select.c: the ACCURATE bound (sets ra[i].cz; 1, 0 on allocation failure, -1 when the
 * backend failed); DOUBLE mode's moduli count and the operands of its lower bound of |A||B| */
int ozb_crt_accurate(ozblas_handle_t h, const ozb_problem *pr, rowscale_t *ra, const rowscale_t *rb, int nt);
int ozb_crt_low_hats(const ozb_view *v, const rowscale_t *rs, int64_t r0, int64_t rows, int64_t l0, int64_t kb,
                     uint8_t *out, double *g, int nt);
#endif
