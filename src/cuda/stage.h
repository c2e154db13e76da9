/* A CUDA handle's operands are device pointers: the routine's operands are brought to the
 * host, the shared pipeline runs there with its products on the device (products_cuda.c),
 * and the output window goes back.  Every element is computed by the same code as on a CPU
 * handle, so the results are the CPU's bit for bit. */
#ifndef OZB_STAGE_H
#define OZB_STAGE_H
#include "core/problem.h"

ozblas_status_t ozb_stage_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan, ozb_host_run_fn host_run);

/* A device-resident call that writes C tile by tile saves C's window on the host first
 * (ozb_stage_save_c, before its first write) and, when a later step fails, puts it back
 * (ozb_stage_restore_c): a failed call leaves its output untouched. */
ozblas_status_t ozb_stage_save_c(ozblas_handle_t h, const ozb_problem *pr);
void            ozb_stage_restore_c(ozblas_handle_t h, const ozb_problem *pr);
#endif
