/* Workspace owned by the handle: each slot grows to the largest size asked for and
 * is reused, so repeated calls of the same shape allocate nothing. */
#include "core/ozb_internal.h"
#include <stdlib.h>
#include <unistd.h>
#include <omp.h>

void *ozb_buf_get(ozblas_handle_t h, int slot, size_t bytes)
{
    ozb_buf *b = &h->buf[slot];
    if (bytes == 0) bytes = 64;
    if (b->bytes >= bytes) return b->p;
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

/* Default: 1/8 of physical memory, at least 64 MiB. */
size_t ozb_workspace_limit(ozblas_handle_t h)
{
    if (h->ws_limit) return h->ws_limit;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    size_t total = (pages > 0 && psz > 0) ? (size_t)pages * (size_t)psz : ((size_t)8 << 30);
    size_t lim = total / 8;
    return lim < ((size_t)64 << 20) ? ((size_t)64 << 20) : lim;
}

int ozb_threads(ozblas_handle_t h)
{
    if (h->threads > 0) return h->threads;
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
}

double ozb_now(void) { return omp_get_wtime(); }
