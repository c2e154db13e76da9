/* Moving windows of block-cyclic matrices between the processes of a grid: each process
 * receives, in one MPI_Alltoallv, the rows and columns of a window it needs to compute the
 * outputs it holds (the panels SUMMA would broadcast to it, all at once), or one process
 * everything, and back. */
#ifndef OZB_REDIST_H
#define OZB_REDIST_H
#include "mpi/pgrid.h"

/* rows r0..r0+M-1 and columns c0..c0+N-1 (0-based global) of a block-cyclic matrix whose
 * local array is p (leading dimension lld) */
typedef struct {
    const double *p;
    int64_t lld;
    ozb_bc1 r, c;
    int64_t r0, c0, M, N;
} ozb_win;

/* Which processes need element (i, j) of a window, for one dimension of the grid (need_r:
 * the process rows, need_c: the process columns):
 *   OZB_NEED_ALL  every one
 *   OZB_NEED_I    the one that holds index off + i in layout lay (i: the window's row)
 *   OZB_NEED_J    the one that holds index off + j in layout lay (j: the window's column)
 *   OZB_NEED_ONE  process `one` only */
enum { OZB_NEED_ALL, OZB_NEED_I, OZB_NEED_J, OZB_NEED_ONE };
typedef struct {
    int kind;
    ozb_bc1 lay;
    int64_t off;
    int one;
} ozb_need;

/* The part of the window this process needs, gathered: rows {i : its conditions keyed on i
 * hold for this process} by columns likewise, in increasing global order, column-major at
 * *data with leading dimension *ld: a copy in *own (malloc'ed, ld = max(1, *rows); the
 * caller frees it) or, with allow_view, where all it needs is its own part of the window
 * whole, that part in place (*own NULL, *ld the local array's).  Collective over g->comm;
 * ALLOC_FAILED or NOT_SUPPORTED (counts beyond an int) on every process alike, before
 * anything is exchanged. */
ozblas_status_t ozb_redist_gather(const ozb_pgrid *g, const ozb_win *w, ozb_need need_r, ozb_need need_c, int allow_view,
                                  double **own, const double **data, int64_t *ld);

/* The output window of a call that process (0, 0) computes alone, there, in full
 * (column-major, ld max(1, M)): gathered where the call reads it (read: beta != 0), else only
 * allocated (*out NULL on the other processes; the caller frees it).  Collective where read;
 * an allocation failure is process (0, 0)'s alone (the caller agrees the call's status). */
ozblas_status_t ozb_redist_output_at_root(const ozb_pgrid *g, const ozb_win *w, int read, double **out);

/* The inverse for one holder: process `root` has the whole M x N window in full (column-major,
 * ld max(1, M)); every process receives the elements of the window it holds into its local
 * array out (leading dimension lld).  Collective over g->comm. */
ozblas_status_t ozb_redist_scatter(const ozb_pgrid *g, int root, const double *full, const ozb_win *w, double *out);
#endif
