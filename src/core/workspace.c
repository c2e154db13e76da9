/* Workspace owned by the handle: each slot grows to the largest size asked for and
 * is reused, so repeated calls of the same shape allocate nothing. */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime, sysconf */
#include "core/ozb_internal.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include <omp.h>
#include <time.h>

void *ozb_buf_get(ozblas_handle_t h, int slot, size_t bytes)
{
    ozb_buf *b = &h->buf[slot];
    if (bytes == 0) bytes = 64;
    if (b->bytes >= bytes) return b->p;
    if (h->knobs.fail_alloc > 0 && ++(h->root ? h->root : h)->grows == h->knobs.fail_alloc) return NULL;   /* fault injection */
    size_t want = (bytes + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, want);
    if (!p) return NULL;
    free(b->p);
    b->p = p;
    b->bytes = want;
    return p;
}

void ozb_buf_free_all(ozblas_handle_t h)
{
    for (int i = 0; i < OZB_NBUF; i++) { free(h->buf[i].p); h->buf[i].p = NULL; h->buf[i].bytes = 0; }
}

/* Default: 1/8 of physical memory, at least 64 MiB.  The machine's memory and core count
 * are read once per process (sysconf and omp_get_num_procs are system calls: read on every
 * call they would be a good part of a small call's fixed cost); the same value whichever
 * thread reads first. */
size_t ozb_workspace_limit(ozblas_handle_t h)
{
    if (h->ws_limit) return h->ws_limit;
    static _Atomic size_t deflt;
    size_t lim = atomic_load_explicit(&deflt, memory_order_relaxed);
    if (lim) return lim;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    size_t total = (pages > 0 && psz > 0) ? (size_t)pages * (size_t)psz : ((size_t)8 << 30);
    lim = total / 8;
    lim = lim < ((size_t)64 << 20) ? ((size_t)64 << 20) : lim;
    atomic_store_explicit(&deflt, lim, memory_order_relaxed);
    return lim;
}

int ozb_threads(ozblas_handle_t h)
{
    if (h->threads > 0) return h->threads;
    static _Atomic int procs;
    int n = atomic_load_explicit(&procs, memory_order_relaxed);
    if (n) return n;
    n = omp_get_num_procs();
    n = n > 0 ? n : 1;
    atomic_store_explicit(&procs, n, memory_order_relaxed);
    return n;
}

/* CLOCK_MONOTONIC directly (omp_get_wtime adds a call and a conversion around the same read) */
double ozb_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
