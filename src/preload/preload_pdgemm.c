/* ScaLAPACK's pdgemm_ and pdgemv_ through ozblas_pdgemm / ozblas_pdgemv: an
 * unchanged ScaLAPACK program run with LD_PRELOAD=libozblas_preload.so gets the single-node
 * bits of its distributed GEMMs and GEMVs.
 *
 * The interposer links neither MPI nor ScaLAPACK (a process without them must not get them):
 * pdgemm_ and pdgemv_ are only ever called by a process that has both loaded, and on the first call this
 * file opens libozblas_mpi (next to this library, else the build tree's, else by soname) with
 * RTLD_LOCAL, whose MPI and BLACS references bind to the process's own.  That library brings
 * its ozblas (libozblas.so), whose products reach the interposer's exported BLAS like any
 * other program that links libozblas.so does, and go from there to the process's BLAS
 * (from_libozblas in ozblas_preload.c).  Its handle, one per thread, is configured from the
 * same OZBLAS_PRELOAD_* variables (OZBLAS_PRELOAD_THREADS: the threads of each process).
 *
 * Every status other than SUCCESS (libozblas_mpi missing, arguments ozblas refuses, a failure
 * midway) sends the call to ScaLAPACK's own routine with the original arguments, on every
 * process alike (ozblas's statuses are agreed by all processes); the process's part of sub(C)
 * (sub(y)) is saved first when beta != 0 and put back before, so ScaLAPACK sees what it was
 * given. */
#define _GNU_SOURCE
#include "ozblas.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload_settings.h"

typedef void (*pdgemm_fn)(const char *, const char *, const int *, const int *, const int *, const double *,
                          const double *, const int *, const int *, const int *, const double *, const int *,
                          const int *, const int *, const double *, double *, const int *, const int *, const int *);
typedef void (*pdgemv_fn)(const char *, const int *, const int *, const double *, const double *, const int *,
                          const int *, const int *, const double *, const int *, const int *, const int *, const int *,
                          const double *, double *, const int *, const int *, const int *, const int *);
typedef ozblas_status_t (*oz_pdgemv_fn)(ozblas_handle_t, ozblas_operation_t, int64_t, int64_t, double, const double *,
                                        int64_t, int64_t, const int *, const double *, int64_t, int64_t, const int *,
                                        int64_t, double, double *, int64_t, int64_t, const int *, int64_t);
typedef ozblas_status_t (*oz_pdgemm_fn)(ozblas_handle_t, ozblas_operation_t, ozblas_operation_t, int64_t, int64_t,
                                        int64_t, double, const double *, int64_t, int64_t, const int *, const double *,
                                        int64_t, int64_t, const int *, double, double *, int64_t, int64_t, const int *);

static struct {
    pdgemm_fn real;
    pdgemv_fn real_gemv;
    oz_pdgemm_fn pdgemm;
    oz_pdgemv_fn pdgemv;
    ozblas_status_t (*create)(ozblas_handle_t *);
    ozblas_status_t (*set_mode)(ozblas_handle_t, ozblas_mode_t);
    ozblas_status_t (*set_split)(ozblas_handle_t, int);
    ozblas_status_t (*set_fast)(ozblas_handle_t, int);
    ozblas_status_t (*set_engine)(ozblas_handle_t, ozblas_engine_t);
    ozblas_status_t (*set_threads)(ozblas_handle_t, int);
    int64_t (*numroc)(int64_t, int64_t, int, int, int);
    ozblas_status_t (*grid_info)(int, int *, int *, int *, int *);
    int mode, split, fast, engine, threads, verbose, ok;
} mp;
static pthread_once_t mp_once = PTHREAD_ONCE_INIT;
static _Thread_local ozblas_handle_t mp_handle;

void pdgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
             const double *A, const int *ia, const int *ja, const int *desca, const double *B, const int *ib,
             const int *jb, const int *descb, const double *beta, double *C, const int *ic, const int *jc,
             const int *descc);
void pdgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *A, const int *ia,
             const int *ja, const int *desca, const double *X, const int *ix, const int *jx, const int *descx,
             const int *incx, const double *beta, double *Y, const int *iy, const int *jy, const int *descy,
             const int *incy);

static void mp_load(void);

static void *open_mpi_layer(void)
{
    char path[4096];
    Dl_info di;
    void *lib = NULL;
    if (dladdr((void *)mp_load, &di) && di.dli_fname) {          /* next to this library (a static
                                                                   * function: no relocation against an export) */
        const char *slash = strrchr(di.dli_fname, '/');
        const int dir = slash ? (int)(slash - di.dli_fname) : 0;
        snprintf(path, sizeof path, "%.*s%slibozblas_mpi.so.0", dir, di.dli_fname, dir ? "/" : "");
        lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
#ifdef OZBLAS_PRELOAD_MPI_LIB
    if (!lib) lib = dlopen(OZBLAS_PRELOAD_MPI_LIB, RTLD_NOW | RTLD_LOCAL);   /* the build tree's */
#endif
    if (!lib) lib = dlopen("libozblas_mpi.so.0", RTLD_NOW | RTLD_LOCAL);
    return lib;
}

static void mp_load(void)
{
    ozb_preload_settings(&mp.mode, &mp.split, &mp.fast, &mp.engine, &mp.threads, &mp.verbose);
    mp.real = (pdgemm_fn)dlsym(RTLD_NEXT, "pdgemm_");
    mp.real_gemv = (pdgemv_fn)dlsym(RTLD_NEXT, "pdgemv_");
    void *lib = open_mpi_layer();
    if (!lib) {
        if (mp.verbose) fprintf(stderr, "ozblas_preload: pdgemm_ -> ScaLAPACK (libozblas_mpi not found: %s)\n", dlerror());
        return;
    }
    mp.pdgemm = (oz_pdgemm_fn)dlsym(lib, "ozblas_pdgemm");
    mp.pdgemv = (oz_pdgemv_fn)dlsym(lib, "ozblas_pdgemv");
    *(void **)&mp.create = dlsym(lib, "ozblas_create");
    *(void **)&mp.set_mode = dlsym(lib, "ozblas_set_mode");
    *(void **)&mp.set_split = dlsym(lib, "ozblas_set_split_count");
    *(void **)&mp.set_fast = dlsym(lib, "ozblas_set_fast_mode");
    *(void **)&mp.set_engine = dlsym(lib, "ozblas_set_engine");
    *(void **)&mp.set_threads = dlsym(lib, "ozblas_set_num_threads");
    *(void **)&mp.numroc = dlsym(lib, "ozblas_mpi_numroc");
    *(void **)&mp.grid_info = dlsym(lib, "ozblas_mpi_grid_info");
    mp.ok = mp.pdgemm && mp.pdgemv && mp.create && mp.set_mode && mp.set_split && mp.set_fast && mp.set_engine && mp.set_threads &&
            mp.numroc && mp.grid_info;
}

static ozblas_handle_t mp_thread_handle(void)
{
    if (mp_handle) return mp_handle;
    ozblas_handle_t h = NULL;
    if (mp.create(&h) != OZBLAS_STATUS_SUCCESS) return NULL;
    mp.set_mode(h, (ozblas_mode_t)mp.mode);
    mp.set_split(h, mp.split);
    mp.set_fast(h, mp.fast);
    mp.set_engine(h, (ozblas_engine_t)mp.engine);
    mp.set_threads(h, mp.threads);
    return mp_handle = h;   /* kept for the thread's life: a few kilobytes */
}

/* a descriptor's M, MB, NB, RSRC, CSRC, LLD from either form PBLAS takes (type 1: desc[9];
 * type 2: desc[11] with IMB, INB before MB, NB); 0 for other types */
static int desc_fields(const int *d, int f[6])
{
    if (!d) return 0;
    if (d[0] == 1) { const int t[6] = { d[2], d[4], d[5], d[6], d[7], d[8] }; memcpy(f, t, sizeof t); return 1; }
    if (d[0] == 2) { const int t[6] = { d[2], d[6], d[7], d[8], d[9], d[10] }; memcpy(f, t, sizeof t); return 1; }
    return 0;
}

/* this process's part of sub(C) (local rows r0.., columns c0.., leading dimension *lld), saved
 * into *buf where beta != 0; 0 where it cannot be */
static int save_c(const double *C, int m, int n, int ic, int jc, const int *descc, int64_t *r0, int64_t *nr,
                  int64_t *c0, int64_t *nc, int64_t *lld, double **buf)
{
    int nprow, npcol, myrow, mycol, f[6];
    *buf = NULL;
    *nr = *nc = 0;
    if (!desc_fields(descc, f) || mp.grid_info(descc[1], &nprow, &npcol, &myrow, &mycol) != OZBLAS_STATUS_SUCCESS ||
        myrow < 0 || f[1] < 1 || f[2] < 1)
        return 1;   /* nothing of C here, or a descriptor ozblas refuses (then C is not written) */
    *r0 = mp.numroc(ic - 1, f[1], myrow, f[3], nprow);
    *nr = mp.numroc(ic - 1 + m, f[1], myrow, f[3], nprow) - *r0;
    *c0 = mp.numroc(jc - 1, f[2], mycol, f[4], npcol);
    *nc = mp.numroc(jc - 1 + n, f[2], mycol, f[4], npcol) - *c0;
    *lld = f[5];
    if (*nr <= 0 || *nc <= 0 || !C || *lld < *nr) { *nr = *nc = 0; return 1; }
    *buf = malloc(sizeof(double) * (size_t)(*nr * *nc));
    if (!*buf) return 0;
    for (int64_t j = 0; j < *nc; j++)
        memcpy(*buf + j * *nr, C + *r0 + (*c0 + j) * *lld, sizeof(double) * (size_t)*nr);
    return 1;
}

static void restore_c(double *C, const double *saved, int64_t r0, int64_t nr, int64_t c0, int64_t nc, int64_t lld)
{
    if (saved)
        for (int64_t j = 0; j < nc; j++) memcpy(C + r0 + (c0 + j) * lld, saved + j * nr, sizeof(double) * (size_t)nr);
}

void pdgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k, const double *alpha,
             const double *A, const int *ia, const int *ja, const int *desca, const double *B, const int *ib,
             const int *jb, const int *descb, const double *beta, double *C, const int *ic, const int *jc,
             const int *descc)
{
    pthread_once(&mp_once, mp_load);
    const int ta = ozb_preload_fortran_trans(transa), tb = ozb_preload_fortran_trans(transb);
    ozblas_status_t st = OZBLAS_STATUS_NOT_SUPPORTED;
    double *saved = NULL;
    int64_t r0 = 0, nr = 0, c0 = 0, nc = 0, lld = 1;
    /* ozblas_pdgemm agrees every argument (transposes and handle included) with the other
     * processes: an invalid one is INVALID_VALUE on all of them, so a process whose handle or
     * saved copy of C failed still takes part, with no handle */
    if (mp.ok) {
        ozblas_handle_t h = mp_thread_handle();
        if (*beta != 0.0 && !save_c(C, *m, *n, *ic, *jc, descc, &r0, &nr, &c0, &nc, &lld, &saved)) h = NULL;
        st = mp.pdgemm(h, ta == 1 ? OZBLAS_OP_T : ta == 0 ? OZBLAS_OP_N : (ozblas_operation_t)-1,
                       tb == 1 ? OZBLAS_OP_T : tb == 0 ? OZBLAS_OP_N : (ozblas_operation_t)-1, *m, *n, *k, *alpha, A, *ia,
                       *ja, desca, B, *ib, *jb, descb, *beta, C, *ic, *jc, descc);
    }
    if (mp.verbose)
        fprintf(stderr, "ozblas_preload: pdgemm_ %c%c m=%d n=%d k=%d -> %s (status %d)\n", transa ? *transa : '?',
                transb ? *transb : '?', *m, *n, *k, st == OZBLAS_STATUS_SUCCESS ? "ozblas" : "ScaLAPACK", (int)st);
    if (st != OZBLAS_STATUS_SUCCESS) {
        restore_c(C, saved, r0, nr, c0, nc, lld);
        if (mp.real) mp.real(transa, transb, m, n, k, alpha, A, ia, ja, desca, B, ib, jb, descb, beta, C, ic, jc, descc);
    }
    free(saved);
}

void pdgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *A, const int *ia,
             const int *ja, const int *desca, const double *X, const int *ix, const int *jx, const int *descx,
             const int *incx, const double *beta, double *Y, const int *iy, const int *jy, const int *descy,
             const int *incy)
{
    pthread_once(&mp_once, mp_load);
    const int t = ozb_preload_fortran_trans(trans);
    ozblas_status_t st = OZBLAS_STATUS_NOT_SUPPORTED;
    double *saved = NULL;
    int64_t r0 = 0, nr = 0, c0 = 0, nc = 0, lld = 1;
    const int leny = t == 1 ? *n : *m;
    /* sub(y) as a window: a row of Y's matrix where incy = M_Y (PBLAS's rule), else a column */
    const int yrow = descy && *incy == descy[2];
    if (mp.ok) {
        ozblas_handle_t h = mp_thread_handle();
        if (*beta != 0.0 && !save_c(Y, yrow ? 1 : leny, yrow ? leny : 1, *iy, *jy, descy, &r0, &nr, &c0, &nc, &lld, &saved))
            h = NULL;
        st = mp.pdgemv(h, t == 1 ? OZBLAS_OP_T : t == 0 ? OZBLAS_OP_N : (ozblas_operation_t)-1, *m, *n, *alpha, A, *ia, *ja,
                       desca, X, *ix, *jx, descx, *incx, *beta, Y, *iy, *jy, descy, *incy);
    }
    if (mp.verbose)
        fprintf(stderr, "ozblas_preload: pdgemv_ %c m=%d n=%d -> %s (status %d)\n", trans ? *trans : '?', *m, *n,
                st == OZBLAS_STATUS_SUCCESS ? "ozblas" : "ScaLAPACK", (int)st);
    if (st != OZBLAS_STATUS_SUCCESS) {
        restore_c(Y, saved, r0, nr, c0, nc, lld);
        if (mp.real_gemv)
            mp.real_gemv(trans, m, n, alpha, A, ia, ja, desca, X, ix, jx, descx, incx, beta, Y, iy, jy, descy, incy);
    }
    free(saved);
}
