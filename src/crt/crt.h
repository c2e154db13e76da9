/* Ozaki scheme II for GEMM (and GEMV/DOT shapes): INT8 residues modulo pairwise coprime
 * moduli, one exact INT8 GEMM per modulus, reconstruction by the Chinese remainder theorem. */
#ifndef OZB_CRT_H
#define OZB_CRT_H
#include "core/problem.h"
#include "crt/crt_consts.h"
#include "../../kernels/ozb_crt_ops.h"

/* Per row (of op(A), or column of op(B)): e with max|x| < 2^e, c with 2^c >= ||x||_2,
 * ||x||_1 2^-e (rounded up), and the two factors f1 f2 = 2^ka of its scaling (set later). */
typedef struct {
    int32_t e, c;       /* max < 2^e, 2^c >= ||x||_2                                       */
    int32_t cz;         /* ACCURATE (op(A) rows): ceil(log2 Z_i), INT32_MIN when unused     */
    int32_t ka;         /* the scaling exponent used: x' = trunc(x 2^ka)                     */
    int32_t hs;         /* DOUBLE: the lower bound's operand min(floor(|x| 2^(hs - e)), 127)  */
    double l1;          /* ||x||_1 2^-e, rounded up                                         */
    double f1, f2;      /* f1 f2 = 2^ka                                                     */
} rowscale_t;

#define E_ZERO INT32_MIN
#define E_BAD  INT32_MAX

/* Computes pr in the plan's mode (FIXED: split count = number of moduli; DOUBLE: a count
 * from k, every element certified on its own, see crt.c).  DOUBLE: *fail (m x n flags,
 * column-major, owned by the handle) marks the *nfail elements left untouched, which the
 * caller computes correctly rounded.  Returns OZBLAS_STATUS_NOT_SUPPORTED, having written
 * nothing, where the scheme does not apply (no exact INT8 product, non-finite alpha); the
 * caller then uses slice-based INT8. */
ozblas_status_t ozb_crt_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan, int nt, uint8_t **fail,
                            int64_t *nfail);

/* CORRECTLY_ROUNDED through the CRT (crt_cr.c): exact scaling, exact reconstruction.
 * NOT_SUPPORTED, having written nothing, where the rows' bit spans need more moduli than
 * the table holds or an input is Inf/NaN (the caller then uses FP64 slices: same bits). */
ozblas_status_t ozb_crt_cr_run(ozblas_handle_t h, const ozb_problem *pr, int nt);

/* Pieces of ozb_crt_run that the CUDA device engine (cuda/resident_crt.c) shares: the rows'
 * scaling factors for s moduli; the reconstruction constants. */
void ozb_crt_set_factors(rowscale_t *rs, int64_t rows, const ozb_crt_consts *cs);
/* DOUBLE mode: the moduli count, from k alone, and each row's resolution hs of the lower bound's
 * operands (crt_select.c) */
int ozb_crt_double_moduli(int64_t k);
void ozb_crt_set_hats(rowscale_t *rs, int64_t rows, int64_t k);
void ozb_crt_recon_consts(const ozb_crt_consts *cs, ozb_op_crt_consts *k);
/* the residues' constants of moduli t0 .. t0 + s - 1 (s <= OZB_CRT_MAXMOD), truncating scaling
 * (ka, pw NULL; crt_residues.c) */
void ozb_crt_resconst_init(int t0, int s, ozb_op_crt_res *rc);
/* A failed product in the output tile at (i0, j0) of a loop over j0 then i0: the tiles before
 * it are written, so the call's output is partly written unless this is the first (the
 * executor then reports OZBLAS_STATUS_PARTIAL) */
static inline ozblas_status_t ozb_crt_tile_failed(ozblas_handle_t h, int64_t i0, int64_t j0)
{
    h->out_partial |= i0 > 0 || j0 > 0;
    return OZBLAS_STATUS_EXECUTION_FAILED;
}
#endif
