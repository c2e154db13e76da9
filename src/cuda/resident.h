/* The device-resident engine of CUDA handles: split, products and sums on the device, with
 * the CPU handle's bits (resident.c). */
#ifndef OZB_RESIDENT_H
#define OZB_RESIDENT_H
#include "core/problem.h"

/* Computes pr (device pointers) on the device for FIXED and CORRECTLY_ROUNDED (the plan's mode and
 * format) with the FP64, FP16 and INT8 formats.  OZBLAS_STATUS_NOT_SUPPORTED, with
 * every output untouched, where the staged path (stage.c) must compute it instead. */
ozblas_status_t ozb_resident_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan);

/* The CRT format in FIXED mode (FAST scaling) on the device (resident_crt.c).
 * NOT_SUPPORTED, every output untouched, where the staged path must compute it (DOUBLE mode
 * included: crt.c certifies each element and computes the others correctly rounded). */
ozblas_status_t ozb_resident_crt_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan);
/* CORRECTLY_ROUNDED DOT and GEMV (n == 1) by certified error-free sums (resident_eft.c):
 * NOT_SUPPORTED, every output untouched, where it does not apply or does not certify every
 * row (the slice path then computes the call). */
ozblas_status_t ozb_resident_eft_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan);
/* CORRECTLY_ROUNDED GEMM (n > 8) through the exact CRT on the INT8 tensor cores
 * (resident_crcr.c): NOT_SUPPORTED, C as it was, where it does not apply or does not certify
 * every element (the FP64 slices then compute the call). */
ozblas_status_t ozb_resident_crcr_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan);
#endif
