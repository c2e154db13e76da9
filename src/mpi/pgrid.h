/* The MPI layer's view of a BLACS process grid and of block-cyclic layouts (ScaLAPACK's
 * conventions), and the collective agreement every call starts with. */
#ifndef OZB_PGRID_H
#define OZB_PGRID_H
#include <mpi.h>
#include <stdint.h>
#include "ozblas_mpi.h"

/* BLACS (in Debian's libscalapack-openmpi) */
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int  Cblacs_pnum(int ctxt, int prow, int pcol);
MPI_Comm Cblacs2sys_handle(int sysctxt);
int  Csys2blacs_handle(MPI_Comm comm);

typedef struct {
    MPI_Comm comm;               /* the grid's processes; rank = prow * npcol + pcol */
    int nprow, npcol, myrow, mycol;
} ozb_pgrid;

/* The grid of ctxt: 1 with *g filled, 0 where this process is outside it (or ctxt is not a
 * grid), -1 where the communicator could not be made.  Collective over the grid's processes
 * (the communicator is made once per grid and kept). */
int ozb_pgrid_get(int ctxt, ozb_pgrid *g);

/* one dimension of a block-cyclic layout: blocks of nb over np processes from src */
typedef struct { int64_t nb; int src, np; } ozb_bc1;

static inline int ozb_bc_owner(const ozb_bc1 *d, int64_t g) { return (int)((g / d->nb + d->src) % d->np); }
/* index of global g in its owner's local array */
static inline int64_t ozb_bc_local(const ozb_bc1 *d, int64_t g) { return (g / (d->nb * d->np)) * d->nb + g % d->nb; }
/* global index of local l of process p */
static inline int64_t ozb_bc_global(const ozb_bc1 *d, int64_t l, int p)
{
    const int dist = (p - d->src + d->np) % d->np;
    return ((l / d->nb) * d->np + dist) * d->nb + l % d->nb;
}
/* how many of the globals 0..g-1 process p holds (NUMROC) */
int64_t ozb_bc_count(const ozb_bc1 *d, int64_t g, int p);

/* a descriptor's two dimensions */
static inline ozb_bc1 ozb_desc_rows(const int *desc, int nprow)
{ ozb_bc1 d = { desc[OZBLAS_DESC_MB], desc[OZBLAS_DESC_RSRC], nprow }; return d; }
static inline ozb_bc1 ozb_desc_cols(const int *desc, int npcol)
{ ozb_bc1 d = { desc[OZBLAS_DESC_NB], desc[OZBLAS_DESC_CSRC], npcol }; return d; }

/* A descriptor in ScaLAPACK's type-1 form (out[9]) from either of the forms PBLAS takes:
 * type 1 (desc[9]) or type 2 (desc[11]: DTYPE=2, CTXT, M, N, IMB, INB, MB, NB, RSRC, CSRC,
 * LLD) whose first blocks are whole (IMB = MB, INB = NB), as the PBLAS testers make them.
 * Returns 0 (out: every entry -1 but the context) for NULL, other types and first blocks of
 * other sizes. */
int ozb_desc_norm(const int *desc, int out[9]);

/* 1 where desc is a valid descriptor on grid g (type 1, the grid's context ctxt, sizes,
 * sources, local leading dimension for this process) and the 1-based window (i, j) of
 * rows x cols lies inside it (a window with no rows or columns only needs i, j >= 1) */
int ozb_desc_ok(const int *desc, int ctxt, const ozb_pgrid *g, int64_t i, int64_t j, int64_t rows, int64_t cols);

/* The agreement every call starts with: key[0..nkey-1] (the arguments and the handle's
 * configuration, as integers) must be the same on every rank, and each rank's own checks
 * pass (local: SUCCESS or the status they give).  Returns the same on every rank: the
 * largest local status where one is not SUCCESS, else INVALID_VALUE where the keys differ,
 * else SUCCESS. */
ozblas_status_t ozb_agree(MPI_Comm comm, const int64_t *key, int nkey, ozblas_status_t local);

/* the handle's configuration as integers for ozb_agree (6 entries): SUCCESS, INVALID_VALUE
 * (no handle) or NOT_SUPPORTED (a CUDA handle: its calls take device pointers) */
ozblas_status_t ozb_config_key(ozblas_handle_t h, int64_t *key);
/* 1 where every element of a GEMM or GEMV result is a function of its own row of op(A)
 * and column of op(B) (and C, alpha, beta, k, the configuration) alone, so that a process
 * may compute the elements it holds by itself: CORRECTLY_ROUNDED (unique), DOUBLE (computed
 * correctly rounded with the slice formats; with CRT_INT8 a moduli count from k and each
 * element certified on its own or correctly rounded), FIXED (per-row and per-column grids,
 * the inner blocking a function of k) except with the CRT's ACCURATE scaling, whose row scales
 * come from the whole of op(B): those calls are computed on one process. */
int ozb_elementwise(const int64_t *config_key);
/* 1 where a DOT is correctly rounded (CORRECTLY_ROUNDED, DOUBLE but with CRT_INT8) */
int ozb_dot_exact(const int64_t *config_key);

/* one status for all: the largest of the ranks' */
ozblas_status_t ozb_agree_status(MPI_Comm comm, ozblas_status_t st);
#endif
