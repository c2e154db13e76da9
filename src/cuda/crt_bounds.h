/* The bounds of the CRT format on the device (crt_bounds.c), for resident_crt.c; both are
 * called with the device locked. */
#ifndef OZB_CUDA_CRT_BOUNDS_H
#define OZB_CUDA_CRT_BOUNDS_H
#include "crt/crt.h"

/* ACCURATE scaling (crt.c's crt_accurate): sets ra[i].cz as the CPU does (two waits for the
 * device: one copy there, one back). */
ozblas_status_t ozb_crt_dev_accurate(ozblas_handle_t h, const ozb_problem *pr, rowscale_t *ra, const rowscale_t *rb);

/* DOUBLE mode's certificate of every element (crt.c's certify_tile): flags[i + j m] = 1 on the
 * device where the element is not certified, their number in *nflag; ra and rb with their
 * factors and hats set (two waits: one copy there, the count back). */
ozblas_status_t ozb_crt_dev_certify(ozblas_handle_t h, const ozb_problem *pr, const rowscale_t *ra, const rowscale_t *rb,
                                    uint8_t *flags, int64_t *nflag);
#endif
