/* A routine's independent parts run at once on the call's threads, each on its own handle
 * (the level-3 routines' column blocks: CONTRACT §6 makes their bits independent of any such
 * split).  A part's handle has the caller's configuration, one thread and its own
 * workspace, so the parts share no buffer and each computes as the whole call would on one
 * thread: one parallel region for the call, where each of its problems would open its own. */
#ifndef OZB_PARTS_H
#define OZB_PARTS_H
#include "core/ozb_internal.h"

/* The most parts of one call (bounds the cuts' arrays) */
#define OZB_MAX_PARTS 256

typedef ozblas_status_t (*ozb_part_fn)(ozblas_handle_t h, int64_t lo, int64_t hi, void *ctx);

/* The parts a call of `threads` threads (ozb_threads_for) cuts n units into, each holding
 * `quantum` units at least: 1 where the handle's configuration is not element-local (FIXED
 * with CRT_INT8's ACCURATE scaling, whose row scales read every column: a cut would change
 * bits), or where its operands are not host memory */
int ozb_parts_count(ozblas_handle_t h, int threads, int64_t n, int64_t quantum);
/* 1 where no bit of an element depends on how a call's C is cut into blocks of columns: every
 * configuration but FIXED mode with CRT_INT8's ACCURATE scaling, whose row scales read every
 * column of op(B) (CONTRACT §6); there a routine cuts C the same way on every backend */
int ozb_cuts_free(ozblas_handle_t h);

/* body(part handle t, cuts[t], cuts[t + 1], ctx) for t < nt (nt <= ozb_parts_count's), each on
 * its own thread, where nt is above 1 and the part handles can be made; otherwise
 * body(h, cuts[0], cuts[nt], ctx) on the calling thread.  Either way in the standard
 * floating-point environment (core/fpenv.h), entered on each part's thread.  The first share's
 * failure status in share order, else SUCCESS; the handle's info is then the last part's. */
ozblas_status_t ozb_par_parts_at(ozblas_handle_t h, int nt, const int64_t *cuts, ozb_part_fn body, void *ctx);

/* The same on equal shares of [0, n), ozb_parts_count of them, whose bounds are multiples of
 * `quantum` */
ozblas_status_t ozb_par_parts(ozblas_handle_t h, int threads, int64_t n, int64_t quantum, ozb_part_fn body, void *ctx);

/* Releases the part handles (ozblas_destroy). */
void ozb_parts_free(ozblas_handle_t h);
#endif
