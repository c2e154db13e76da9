/* Ozaki scheme II for GEMM (and GEMV/DOT shapes): INT8 residues modulo pairwise coprime
 * moduli, one exact INT8 GEMM per modulus, reconstruction by the Chinese remainder theorem. */
#ifndef OZB_CRT_H
#define OZB_CRT_H
#include "core/pipeline.h"

/* Computes pr in the handle's run mode (FIXED: split count = number of moduli; DOUBLE: the
 * moduli count from the data, see crt.c).  Returns OZBLAS_STATUS_NOT_SUPPORTED, having
 * written nothing, where the scheme does not apply (no oneDNN, non-finite alpha, or DOUBLE
 * accuracy out of the table's reach); the caller then uses slice-based INT8. */
ozblas_status_t ozb_crt_run(ozblas_handle_t h, const ozb_problem *pr, int nt);

/* CORRECTLY_ROUNDED through the CRT (crt_cr.c): exact scaling, exact reconstruction.
 * NOT_SUPPORTED, having written nothing, where the rows' bit spans need more moduli than
 * the table holds or an input is Inf/NaN (the caller then uses FP64 slices: same bits). */
ozblas_status_t ozb_crt_cr_run(ozblas_handle_t h, const ozb_problem *pr, int nt);
#endif
