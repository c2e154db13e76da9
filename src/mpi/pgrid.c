/* Process grids, descriptors and the collective agreement of the MPI layer. */
#include "mpi/pgrid.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- the grids' communicators, made once per set of processes ----
 * A grid's communicator is made over MPI_COMM_WORLD's processes that the grid holds, in grid
 * order, and known by that list of world ranks: the same on every process of the grid,
 * whatever its context numbers (local to each process) or its system communicator's handle
 * (which BLACS frees at gridexit and MPI recycles differently on each process).  An entry
 * is never dropped, so every process of a grid finds its list or not alike (each took part
 * in every earlier call on that same list) and so makes the communicator, a collective over
 * the grid's processes, together with the others. */
typedef struct grid_entry {
    int np;
    int *world;                 /* the grid's processes as MPI_COMM_WORLD ranks, row-major */
    MPI_Comm comm;
    struct grid_entry *next;
} grid_entry;
static grid_entry *grids;
static pthread_mutex_t grids_lock = PTHREAD_MUTEX_INITIALIZER;

int ozb_pgrid_get(int ctxt, ozb_pgrid *g)
{
    int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    if (nprow < 1 || npcol < 1 || myrow < 0 || mycol < 0 || myrow >= nprow || mycol >= npcol) return 0;
    int sysctxt = -1;
    Cblacs_get(ctxt, 10, &sysctxt);
    const MPI_Comm sys = Cblacs2sys_handle(sysctxt);
    const int np = nprow * npcol;
    int *pnum = malloc(sizeof(int) * (size_t)np), *world = malloc(sizeof(int) * (size_t)np);
    if (!pnum || !world) { free(pnum); free(world); return -1; }
    for (int r = 0; r < nprow; r++)
        for (int c = 0; c < npcol; c++) pnum[r * npcol + c] = Cblacs_pnum(ctxt, r, c);
    MPI_Group sg, wg;
    MPI_Comm_group(sys, &sg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(sg, np, pnum, wg, world);
    MPI_Group_free(&sg);
    free(pnum);
    pthread_mutex_lock(&grids_lock);
    grid_entry *e = grids;
    for (; e; e = e->next)
        if (e->np == np && memcmp(e->world, world, sizeof(int) * (size_t)np) == 0) break;
    int ok = 1;
    if (!e) {
        MPI_Group gg;
        MPI_Comm comm = MPI_COMM_NULL;
        MPI_Group_incl(wg, np, world, &gg);
        /* a collective over the grid's processes only (other processes never call in); the
         * tag below 32767, the least MPI_TAG_UB */
        if (MPI_Comm_create_group(MPI_COMM_WORLD, gg, 2842, &comm) != MPI_SUCCESS || comm == MPI_COMM_NULL) ok = 0;
        MPI_Group_free(&gg);
        e = ok ? malloc(sizeof *e) : NULL;
        if (e) {
            *e = (grid_entry){ np, world, comm, grids };
            grids = e;
            world = NULL;
        } else {
            ok = 0;
        }
    }
    MPI_Group_free(&wg);
    if (ok) *g = (ozb_pgrid){ e->comm, nprow, npcol, myrow, mycol };
    pthread_mutex_unlock(&grids_lock);
    free(world);
    return ok ? 1 : -1;
}

int64_t ozb_bc_count(const ozb_bc1 *d, int64_t g, int p)
{
    if (g <= 0) return 0;
    const int64_t dist = (p - d->src + d->np) % d->np;
    const int64_t nblocks = g / d->nb, extra = nblocks % d->np;
    int64_t num = (nblocks / d->np) * d->nb;
    if (dist < extra) num += d->nb;
    else if (dist == extra) num += g % d->nb;
    return num;
}

int64_t ozblas_mpi_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs)
{
    if (nb < 1 || nprocs < 1) return 0;
    const ozb_bc1 d = { nb, ((isrc % nprocs) + nprocs) % nprocs, nprocs };
    return ozb_bc_count(&d, n, ((iproc % nprocs) + nprocs) % nprocs);
}

int ozb_desc_norm(const int *desc, int out[9])
{
    for (int i = 0; i < 9; i++) out[i] = -1;
    if (!desc) return 0;
    out[OZBLAS_DESC_CTXT] = desc[OZBLAS_DESC_CTXT];
    if (desc[OZBLAS_DESC_DTYPE] == 1) {
        for (int i = 0; i < 9; i++) out[i] = desc[i];
        return 1;
    }
    if (desc[OZBLAS_DESC_DTYPE] == 2 && desc[4] == desc[6] && desc[5] == desc[7]) {
        const int t1[9] = { 1, desc[1], desc[2], desc[3], desc[6], desc[7], desc[8], desc[9], desc[10] };
        for (int i = 0; i < 9; i++) out[i] = t1[i];
        return 1;
    }
    return 0;
}

int ozb_desc_ok(const int *desc, int ctxt, const ozb_pgrid *g, int64_t i, int64_t j, int64_t rows, int64_t cols)
{
    if (!desc || desc[OZBLAS_DESC_DTYPE] != 1 || desc[OZBLAS_DESC_CTXT] != ctxt) return 0;
    const int M = desc[OZBLAS_DESC_M], N = desc[OZBLAS_DESC_N];
    if (M < 0 || N < 0 || desc[OZBLAS_DESC_MB] < 1 || desc[OZBLAS_DESC_NB] < 1) return 0;
    if (desc[OZBLAS_DESC_RSRC] < 0 || desc[OZBLAS_DESC_RSRC] >= g->nprow) return 0;
    if (desc[OZBLAS_DESC_CSRC] < 0 || desc[OZBLAS_DESC_CSRC] >= g->npcol) return 0;
    const ozb_bc1 r = ozb_desc_rows(desc, g->nprow);
    const int64_t lrows = ozb_bc_count(&r, M, g->myrow);
    if (desc[OZBLAS_DESC_LLD] < (lrows > 1 ? lrows : 1)) return 0;
    if (i < 1 || j < 1 || rows < 0 || cols < 0) return 0;
    if (rows > 0 && cols > 0 && (i - 1 + rows > M || j - 1 + cols > N)) return 0;
    return 1;
}

ozblas_status_t ozb_agree(MPI_Comm comm, const int64_t *key, int nkey, ozblas_status_t local)
{
    enum { MAXKEY = 48 };
    int64_t v[2 * MAXKEY + 1], r[2 * MAXKEY + 1];
    if (nkey > MAXKEY) nkey = MAXKEY;
    /* max of key and of ~key (= -key - 1, order reversed, no overflow): min = ~max(~key).
     * Every rank decides from the same reduced values, so all decide alike. */
    for (int i = 0; i < nkey; i++) { v[i] = key[i]; v[nkey + i] = ~key[i]; }
    v[2 * nkey] = (int64_t)local;
    MPI_Allreduce(v, r, 2 * nkey + 1, MPI_INT64_T, MPI_MAX, comm);
    if (r[2 * nkey]) return (ozblas_status_t)r[2 * nkey];
    for (int i = 0; i < nkey; i++)
        if (r[i] != ~r[nkey + i]) return OZBLAS_STATUS_INVALID_VALUE;   /* max != min */
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_config_key(ozblas_handle_t h, int64_t *key)
{
    ozblas_mode_t mode;
    ozblas_engine_t engine;
    ozblas_summation_t sum;
    ozblas_backend_t backend;
    ozblas_crt_scaling_t scaling;
    int split, fast;
    if (!h || ozblas_get_mode(h, &mode) || ozblas_get_engine(h, &engine) || ozblas_get_summation(h, &sum) ||
        ozblas_get_split_count(h, &split) || ozblas_get_fast_mode(h, &fast) || ozblas_get_backend(h, &backend) ||
        ozblas_get_crt_scaling(h, &scaling))
        return OZBLAS_STATUS_INVALID_VALUE;
    /* host memory only: a CUDA handle's calls take device pointers */
    if (backend != OZBLAS_BACKEND_CPU) return OZBLAS_STATUS_NOT_SUPPORTED;
    key[0] = mode; key[1] = engine; key[2] = sum; key[3] = split; key[4] = fast; key[5] = scaling;
    return OZBLAS_STATUS_SUCCESS;
}

int ozb_elementwise(const int64_t *c)
{
    return !(c[0] == OZBLAS_MODE_FIXED && c[1] == OZBLAS_ENGINE_CRT_INT8 && c[5] == OZBLAS_CRT_SCALING_ACCURATE);
}

int ozb_dot_exact(const int64_t *c)
{
    return c[0] == OZBLAS_MODE_CORRECTLY_ROUNDED || (c[0] == OZBLAS_MODE_DOUBLE && c[1] != OZBLAS_ENGINE_CRT_INT8);
}

ozblas_status_t ozb_agree_status(MPI_Comm comm, ozblas_status_t st)
{
    int s = (int)st, r = 0;
    MPI_Allreduce(&s, &r, 1, MPI_INT, MPI_MAX, comm);
    return (ozblas_status_t)r;
}

/* ---- grids and descriptors for callers who do not use BLACS themselves ---- */
ozblas_status_t ozblas_mpi_grid(MPI_Comm comm, int nprow, int npcol, int *ctxt)
{
    int size = 0;
    if (!ctxt || nprow < 1 || npcol < 1 || comm == MPI_COMM_NULL || MPI_Comm_size(comm, &size) != MPI_SUCCESS ||
        (int64_t)nprow * npcol > size)
        return OZBLAS_STATUS_INVALID_VALUE;
    int c = Csys2blacs_handle(comm);
    Cblacs_gridinit(&c, "Row", nprow, npcol);
    *ctxt = c;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_mpi_grid_free(int ctxt)
{
    int nprow = -1, npcol, myrow, mycol;
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    if (nprow < 1) return OZBLAS_STATUS_INVALID_VALUE;
    Cblacs_gridexit(ctxt);
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_mpi_grid_info(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol)
{
    if (!nprow || !npcol || !myrow || !mycol) return OZBLAS_STATUS_INVALID_VALUE;
    Cblacs_gridinfo(ctxt, nprow, npcol, myrow, mycol);
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozblas_mpi_desc(int desc[9], int64_t m, int64_t n, int mb, int nb, int ctxt, int *lld)
{
    int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    if (!desc || m < 0 || n < 0 || m > INT32_MAX || n > INT32_MAX || mb < 1 || nb < 1 || nprow < 1)
        return OZBLAS_STATUS_INVALID_VALUE;
    const int64_t lr = myrow >= 0 ? ozblas_mpi_numroc(m, mb, myrow, 0, nprow) : 0;
    const int ld = (int)(lr > 1 ? lr : 1);
    const int d[9] = { 1, ctxt, (int)m, (int)n, mb, nb, 0, 0, ld };
    memcpy(desc, d, sizeof d);
    if (lld) *lld = ld;
    return OZBLAS_STATUS_SUCCESS;
}
