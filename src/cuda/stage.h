/* A CUDA handle's operands are device pointers: where its own stages decline, the routine's
 * operands are brought to the host, the host stages run there with its products on the device (products_cuda.c),
 * and the output window goes back.  Every element is computed by the same code as on a CPU
 * handle, so the results are the CPU's bit for bit. */
#ifndef OZB_STAGE_H
#define OZB_STAGE_H
#include "core/problem.h"

/* The backend's host_begin and host_end (core/backend.h): the operands a routine reads
 * copied to the host (the device held from begin to end), and C's window put back. */
ozblas_status_t ozb_stage_begin(ozblas_handle_t h, const ozb_problem *pr, ozb_problem *hp);
ozblas_status_t ozb_stage_end(ozblas_handle_t h, const ozb_problem *pr, ozblas_status_t st);

/* A device-resident call that writes C tile by tile saves C's window in device memory first
 * (ozb_stage_save_c, before its first write; NOT_SUPPORTED where the device has no room for
 * it: the call is then staged) and, when a later step fails, puts it back
 * (ozb_stage_restore_c): a failed call leaves its output untouched, and nothing goes through
 * the host. */
ozblas_status_t ozb_stage_save_c(ozblas_handle_t h, const ozb_problem *pr);
/* C's window copied into device memory w (m n doubles, packed as the staged copy packs it) and
 * *wp: pr with C there (C's window only read where beta != 0) */
ozblas_status_t ozb_stage_c_copy(ozblas_handle_t h, const ozb_problem *pr, double *w, ozb_problem *wp);
void            ozb_stage_restore_c(ozblas_handle_t h, const ozb_problem *pr);
#endif
