/* The one internal interface of the drivers above the library (src/mpi: libozblas_mpi;
 * scripts/check_layers.py lets src/mpi and src/preload include include/ and this header alone).
 * libozblas.so exports ozblas_* only (CMakeLists.txt's version script), so the functions that
 * libozblas_mpi calls across the library boundary have ozblas_internal_* names: declared here,
 * never in include/ozblas.h, defined as thin wrappers in eft_dot.c.  The header-only pieces
 * they combine with (static inline, nothing exported) are reached through this header too.
 * It sits in src/eft, the highest folder it draws on, so every include below points down. */
#ifndef OZBLAS_PARTS_H
#define OZBLAS_PARTS_H
#include <stdint.h>
#include "core/fpenv.h"                  /* ozb_fpenv_enter/leave: round to nearest, no FTZ/DAZ */
#include "sum/eft.h"                     /* ozb_two_product */
#include "../../kernels/ozb_sum_ops.h"   /* the long accumulator: ozb_longacc, ozb_op_la_* */

/* ozb_eft_dot_parts (eft_dot.h): sum_i x_i y_i as S + C + D with |D| <= B, by the DOT kernels
 * on the calling thread in the caller's floating-point environment; 0 where out of range */
int ozblas_internal_dot_parts(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy, double *S,
                              double *C, double *B);
/* ozb_eft_gemv_n_parts (eft_dot.h): the same for the m rows of a column-major block times x */
int ozblas_internal_gemv_n_parts(int64_t m, int64_t k, const double *A, int64_t lda, const double *x, double *parts);
/* ozb_sum2_certify (sum/sum.h): RN(sum of p + d) for every |d| <= extra where Sum2's bound certifies it */
int ozblas_internal_sum2_certify(const double *p, int64_t m, double extra, double *out);
#endif
