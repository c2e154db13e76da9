/* Parallel loops that cost nothing when they run on one thread. */
#ifndef OZB_PAR_H
#define OZB_PAR_H
#include <stdint.h>
#include "core/fpenv.h"

/* body(ctx, lo, hi) for consecutive ranges covering [0, n); returns the sum of what the
 * calls return.  With par and nt > 1: an OpenMP region of nt threads, thread t taking the
 * t-th of nt equal blocks (schedule(static)); otherwise one call on the calling thread, with
 * no OpenMP region at all: entering one with if(0) still allocates a team and wakes the
 * pool's idle threads, about a microsecond, which a small call cannot pay.  Bodies compute
 * every index from that index alone, so the split never changes a bit. */
int64_t ozb_par_for(int par, int nt, int64_t n, int64_t (*body)(void *ctx, int64_t lo, int64_t hi), void *ctx);

/* The same for units of uneven cost (a triangular or graded operand whose zero products are
 * skipped, elements left to a slower stage in some units only): the threads take runs of
 * `run` consecutive units in turn as they finish, so none waits at the end for another's
 * share of the expensive units.  The same bits as ozb_par_for: every unit from itself alone. */
int64_t ozb_par_for_dyn(int par, int nt, int64_t n, int64_t run, int64_t (*body)(void *ctx, int64_t lo, int64_t hi),
                        void *ctx);

/* The same for a block written in place: `omp parallel <clauses>` around the block where cond
 * holds, or, for a for loop, `omp parallel num_threads(nthr)` around `omp for <clauses>` on
 * it (reductions and schedules go in clauses); elsewhere the block runs on the calling thread
 * with no region.  Directives inside the block are written OZB_PRAGMA(omp for ...),
 * OZB_PRAGMA(omp critical) and so on: outside a region they bind to the calling thread alone
 * (an orphaned omp for runs the whole loop).  Every thread of a region enters the standard
 * floating-point environment for the block, as ozb_par_for's do (par.c).  The loop's omp for
 * takes nowait: the region's own end is the one barrier (reductions are complete there), as
 * with omp parallel for. */
#define OZB_PRAGMA(x) _Pragma(#x)
#define OZB_PARALLEL_IF(cond, clauses, ...)                                                  \
    do {                                                                                     \
        if (cond) {                                                                          \
            OZB_PRAGMA(omp parallel clauses) {                                               \
                ozb_fpenv_t env_;                                                            \
                const int changed_ = ozb_fpenv_enter(&env_);                                 \
                { __VA_ARGS__ }                                                              \
                ozb_fpenv_leave(env_, changed_);                                             \
            }                                                                                \
        } else { __VA_ARGS__ }                                                               \
    } while (0)
#define OZB_PARALLEL_FOR_IF(cond, nthr, clauses, ...)                                        \
    do {                                                                                     \
        if (cond) {                                                                          \
            OZB_PRAGMA(omp parallel num_threads(nthr)) {                                     \
                ozb_fpenv_t env_;                                                            \
                const int changed_ = ozb_fpenv_enter(&env_);                                 \
                OZB_PRAGMA(omp for nowait clauses) __VA_ARGS__                               \
                ozb_fpenv_leave(env_, changed_);                                             \
            }                                                                                \
        } else { __VA_ARGS__ }                                                               \
    } while (0)
#endif
