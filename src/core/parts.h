/* A routine's independent parts run at once on the call's threads, each on its own handle
 * (the level-3 routines' column blocks: CONTRACT §6 makes their bits independent of any such
 * split).  A part's handle has the caller's configuration, one thread and its own
 * workspace, so the parts share no buffer and each computes as the whole call would on one
 * thread: one parallel region for the call, where each of its problems would open its own. */
#ifndef OZB_PARTS_H
#define OZB_PARTS_H
#include "core/ozb_internal.h"

typedef ozblas_status_t (*ozb_part_fn)(ozblas_handle_t h, int64_t lo, int64_t hi, void *ctx);

/* body(part handle t, cuts[t], cuts[t + 1], ctx) for t < nt, each on its own thread, where nt
 * is above 1 and the part handles can be made; otherwise body(h, cuts[0], cuts[nt], ctx) on
 * the calling thread.  The first share's failure status in share order, else SUCCESS. */
ozblas_status_t ozb_par_parts_at(ozblas_handle_t h, int nt, const int64_t *cuts, ozb_part_fn body, void *ctx);

/* The same on equal shares of [0, n), one per thread (at most `threads`), whose bounds are
 * multiples of `quantum` and which hold `quantum` at least each. */
ozblas_status_t ozb_par_parts(ozblas_handle_t h, int threads, int64_t n, int64_t quantum, ozb_part_fn body, void *ctx);

/* Releases the part handles (ozblas_destroy). */
void ozb_parts_free(ozblas_handle_t h);
#endif
