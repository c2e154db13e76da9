/* Parallel loops that cost nothing when they run on one thread (par.h). */
#include "core/par.h"
#include <omp.h>

int64_t ozb_par_for(int par, int nt, int64_t n, int64_t (*body)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
    if (n <= 0) return 0;
    if (!par || nt <= 1 || n == 1) return body(ctx, 0, n);
    int64_t sum = 0;
    #pragma omp parallel num_threads(nt) reduction(+:sum)
    {
        const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
        const int64_t lo = n * t / T, hi = n * (t + 1) / T;
        if (lo < hi) sum += body(ctx, lo, hi);
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
    #pragma omp parallel for num_threads(nt) schedule(dynamic, 1) reduction(+:sum)
    for (int64_t r = 0; r < nruns; r++) sum += body(ctx, r * run, (r + 1) * run < n ? (r + 1) * run : n);
    return sum;
}
