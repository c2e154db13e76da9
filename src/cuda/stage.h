/* A CUDA handle's operands are device pointers: the routine's operands are brought to the
 * host, the shared pipeline runs there with its products on the device (products_cuda.c),
 * and the output window goes back.  Every element is computed by the same code as on a CPU
 * handle, so the results are the CPU's bit for bit. */
#ifndef OZB_STAGE_H
#define OZB_STAGE_H
#include "core/problem.h"

ozblas_status_t ozb_stage_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *plan, ozb_host_run_fn host_run);
#endif
