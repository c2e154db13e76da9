/* The executor: one call's stages walked in its plan's order (executor.c). */
#ifndef OZB_EXECUTOR_H
#define OZB_EXECUTOR_H
#include "core/problem.h"

/* Computes pr with plan pl: the backend's stages first where it has them, then the host list. */
ozblas_status_t ozb_execute(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl);

/* The host list of plan pl from stage `first` (an ozb_stage_id) on: for a caller that has
 * done the stages before it itself (the drivers' direct DDOT). */
ozblas_status_t ozb_walk_from(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int first);
#endif
