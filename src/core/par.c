/* Parallel loops that cost nothing when they run on one thread (par.h).  Every thread of a
 * region enters the standard floating-point environment for its bodies (core/fpenv.h): a pool
 * started while the program had FTZ or DAZ set keeps them in its threads after the caller has
 * gone back to the standard modes, and a body there would read subnormal operands as zero. */
#include "core/par.h"
#include "core/fpenv.h"
#include <omp.h>

int64_t ozb_par_for(int par, int nt, int64_t n, int64_t (*body)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
    if (n <= 0) return 0;
    if (!par || nt <= 1 || n == 1) return body(ctx, 0, n);
    int64_t sum = 0;
    #pragma omp parallel num_threads(nt) reduction(+:sum)
    {
        ozb_fpenv_t env;
        const int changed = ozb_fpenv_enter(&env);
        const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
        const int64_t lo = n * t / T, hi = n * (t + 1) / T;
        if (lo < hi) sum += body(ctx, lo, hi);
        ozb_fpenv_leave(env, changed);
    }
    return sum;
}

int64_t ozb_par_for_dyn(int par, int nt, int64_t n, int64_t run, int64_t (*body)(void *ctx, int64_t lo, int64_t hi),
                        void *ctx)
{
    if (n <= 0) return 0;
    if (!par || nt <= 1 || n == 1) return body(ctx, 0, n);
    if (run < 1) run = 1;
    const int64_t nruns = (n + run - 1) / run;
    int64_t sum = 0;
    #pragma omp parallel num_threads(nt) reduction(+:sum)
    {
        ozb_fpenv_t env;
        const int changed = ozb_fpenv_enter(&env);
        #pragma omp for schedule(dynamic, 1) nowait
        for (int64_t r = 0; r < nruns; r++) sum += body(ctx, r * run, (r + 1) * run < n ? (r + 1) * run : n);
        ozb_fpenv_leave(env, changed);
    }
    return sum;
}
