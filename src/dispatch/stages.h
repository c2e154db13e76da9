/* The host stages' table and the lists of stages a plan walks (stages.c). */
#ifndef OZB_STAGES_H
#define OZB_STAGES_H
#include "core/stage.h"

extern const ozb_stage ozb_host_stages[OZB_ST_COUNT];

/* A list of host stages, in the order they are tried. */
typedef struct { const uint8_t *id; int n; } ozb_stage_list;

/* The list that computes a call with plan pl on handle h. */
ozb_stage_list ozb_stage_list_for(ozblas_handle_t h, const ozb_plan *pl);
#endif
