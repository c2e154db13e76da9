/* ozblas-bench --mpi (run with mpirun): libozblas_mpi against ScaLAPACK and against an
 * MPI_Allreduce of local results, same run, same inputs, one thread per process.
 *   mpirun -np P ozblas-bench --mpi [--n N[,N..]] [--reps R] [--mode double|cr|fixed] [--routine gemm,gemv,dot]
 * PDGEMM and PDGEMV: n x n on the squarest P = nprow x npcol grid, blocks of 64, against
 * ScaLAPACK's pdgemm_/pdgemv_; PDDOT: 2^20 and 2^24 elements in equal pieces, against
 * MPI_Allreduce of OpenBLAS's and of ozblas's local ddot.  Times: the median over the runs of
 * the slowest process's time.  Also prints the doubles each process receives (ozblas: its
 * rows of op(A) and columns of op(B); the SUMMA model of PDGEMM for comparison). */
#include "ozblas_mpi.h"
#include "bench.h"
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pdgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
             const int *, const int *, const int *, const double *, const int *, const int *, const int *,
             const double *, double *, const int *, const int *, const int *);
void pdgemv_(const char *, const int *, const int *, const double *, const double *, const int *, const int *,
             const int *, const double *, const int *, const int *, const int *, const int *, const double *,
             double *, const int *, const int *, const int *, const int *);

static int rank, nproc;
enum { OZB_BENCH_LA_WORDS = 232 + 3 };   /* pddot's reduction: the accumulator's digits and 3 counts */

/* the CPU and the features that decide ozblas's kernels, as the other bench scripts record them */
static void print_cpu(void)
{
    static const char *const want[] = { "avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni", "amx_int8" };
    char line[8192], model[256] = "?";
    int have[7] = { 0 };
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10) && model[0] == '?') {
            const char *c = strchr(line, ':');
            if (c) snprintf(model, sizeof model, "%s", c + 2);
            model[strcspn(model, "\n")] = 0;
        }
        if (!strncmp(line, "flags", 5))
            for (int i = 0; i < 7; i++) {
                char pat[64];
                snprintf(pat, sizeof pat, " %s ", want[i]);
                line[strcspn(line, "\n")] = ' ';
                if (strstr(line, pat)) have[i] = 1;
            }
    }
    if (f) fclose(f);
    printf("CPU: %s; features (of avx2 fma avx512f avx512bw avx512_vnni avx_vnni amx_int8):", model);
    for (int i = 0; i < 7; i++)
        if (have[i]) printf(" %s", want[i]);
    printf("\n");
}

/* (u - 0.5) exp(phi g), u uniform and g normal from a hash of (which, i, j): any process
 * generates any element */
static double elem(int which, int64_t i, int64_t j, double phi)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL * (uint64_t)(which + 1) ^ (uint64_t)i * 0xbf58476d1ce4e5b9ULL ^ (uint64_t)j * 0x94d049bb133111ebULL;
    uint64_t r[3];
    for (int t = 0; t < 3; t++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t z = s;
        z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
        r[t] = z ^ (z >> 33);
    }
    const double u = (double)(r[0] >> 11) * 0x1p-53, u1 = ((double)(r[1] >> 11) + 1) * 0x1p-53, u2 = (double)(r[2] >> 11) * 0x1p-53;
    return (u - 0.5) * exp(phi * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
}

static double *local_mat(int which, int64_t gm, int64_t gn, const int *desc, int myr, int myc, int npr, int npc)
{
    const int64_t lr = ozblas_mpi_numroc(gm, desc[4], myr, 0, npr), lc = ozblas_mpi_numroc(gn, desc[5], myc, 0, npc);
    double *L = malloc(sizeof(double) * (size_t)(desc[8] * (lc > 0 ? lc : 1)));
    for (int64_t j = 0; j < lc; j++)
        for (int64_t i = 0; i < lr; i++) {
            const int64_t gi = (i / desc[4] * npr + myr) * desc[4] + i % desc[4], gj = (j / desc[5] * npc + myc) * desc[5] + j % desc[5];
            L[i + j * desc[8]] = elem(which, gi, gj, 1.0);
        }
    return L;
}

static int cmp_d(const void *a, const void *b) { const double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

/* the slowest process's time of each run, median over runs */
typedef void (*run_fn)(void *);
static double timed(run_fn f, void *ctx, int reps)
{
    double t[64];
    if (reps > 64) reps = 64;
    f(ctx);   /* warm-up */
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        f(ctx);
        double dt = MPI_Wtime() - t0, mx = 0;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[r] = mx;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    return t[reps / 2];
}

typedef struct {
    ozblas_handle_t h;
    int n, one, da[9], db[9], dc[9];
    double *A, *B, *C;
    ozblas_status_t st;
} gemm_ctx;
static void run_oz_gemm(void *p)
{
    gemm_ctx *g = p;
    g->st = ozblas_pdgemm(g->h, OZBLAS_OP_N, OZBLAS_OP_N, g->n, g->n, g->n, 1.0, g->A, 1, 1, g->da, g->B, 1, 1, g->db, 0.0, g->C, 1,
                          1, g->dc);
}
static void run_sl_gemm(void *p)
{
    gemm_ctx *g = p;
    const double one = 1.0, zero = 0.0;
    pdgemm_("N", "N", &g->n, &g->n, &g->n, &one, g->A, &g->one, &g->one, g->da, g->B, &g->one, &g->one, g->db, &zero, g->C,
            &g->one, &g->one, g->dc);
}
static void run_oz_gemv(void *p)
{
    gemm_ctx *g = p;
    g->st = ozblas_pdgemv(g->h, OZBLAS_OP_N, g->n, g->n, 1.0, g->A, 1, 1, g->da, g->B, 1, 1, g->db, 1, 0.0, g->C, 1, 1, g->dc, 1);
}
static void run_sl_gemv(void *p)
{
    gemm_ctx *g = p;
    const double one = 1.0, zero = 0.0;
    pdgemv_("N", &g->n, &g->n, &one, g->A, &g->one, &g->one, g->da, g->B, &g->one, &g->one, g->db, &g->one, &zero, g->C,
            &g->one, &g->one, g->dc, &g->one);
}

typedef struct { ozblas_handle_t h; int64_t n; double *x, *y, r; ozblas_status_t st; } dot_ctx;
static void run_oz_pddot(void *p) { dot_ctx *d = p; d->st = ozblas_pddot(d->h, MPI_COMM_WORLD, d->n, d->x, 1, d->y, 1, &d->r); }
static void run_blas_allreduce(void *p)
{
    dot_ctx *d = p;
    double l = cblas_ddot((blasint)d->n, d->x, 1, d->y, 1);
    MPI_Allreduce(&l, &d->r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
static void run_oz_allreduce(void *p)
{
    dot_ctx *d = p;
    double l = 0;
    d->st = ozblas_ddot(d->h, d->n, d->x, 1, d->y, 1, &l);
    MPI_Allreduce(&l, &d->r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int bench_mpi(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    int sizes[8] = { 1024, 2048 }, nsz = 2, reps = 5, do_gemm = 1, do_gemv = 1, do_dot = 1;
    ozblas_mode_t mode = OZBLAS_MODE_DOUBLE;
    const char *mname = "double";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) {
            nsz = 0;
            for (char *t = strtok(argv[++i], ","); t && nsz < 8; t = strtok(NULL, ",")) sizes[nsz++] = atoi(t);
        } else if (!strcmp(argv[i], "--routine") && i + 1 < argc) {
            const char *r = argv[++i];
            do_gemm = strstr(r, "gemm") != NULL;
            do_gemv = strstr(r, "gemv") != NULL;
            do_dot = strstr(r, "dot") != NULL;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            mname = argv[++i];
            mode = !strcmp(mname, "cr") ? OZBLAS_MODE_CORRECTLY_ROUNDED : !strcmp(mname, "fixed") ? OZBLAS_MODE_FIXED : OZBLAS_MODE_DOUBLE;
        }
    }
    int npr = 1;
    for (int p = 1; p * p <= nproc; p++)
        if (nproc % p == 0) npr = p;
    const int npc = nproc / npr;
    ozblas_handle_t h;
    ozblas_create(&h);
    ozblas_set_mode(h, mode);
    ozblas_set_num_threads(h, 1);
    openblas_set_num_threads(1);
    int ctxt, myr, myc, a1, a2;
    ozblas_mpi_grid(MPI_COMM_WORLD, npr, npc, &ctxt);
    ozblas_mpi_grid_info(ctxt, &a1, &a2, &myr, &myc);
    if (rank == 0) {
        printf("ozblas-bench --mpi: %d processes, grid %dx%d, blocks 64, 1 thread each, mode %s, median of %d runs "
               "(the slowest process's time)\n", nproc, npr, npc, mname, reps);
        print_cpu();
        printf("| routine | n | ozblas s | baseline s | ratio | baseline | doubles received per process (ozblas / SUMMA model) |\n");
        printf("|---|---|---|---|---|---|---|\n");
    }
    for (int s = 0; s < nsz; s++) {
        gemm_ctx g = { h, sizes[s], 1, {0}, {0}, {0}, NULL, NULL, NULL, OZBLAS_STATUS_SUCCESS };
        const int n = sizes[s];
        int ld;
        ozblas_mpi_desc(g.da, n, n, 64, 64, ctxt, &ld);
        ozblas_mpi_desc(g.db, n, n, 64, 64, ctxt, &ld);
        ozblas_mpi_desc(g.dc, n, n, 64, 64, ctxt, &ld);
        g.A = local_mat(0, n, n, g.da, myr, myc, npr, npc);
        g.B = local_mat(1, n, n, g.db, myr, myc, npr, npc);
        g.C = local_mat(2, n, n, g.dc, myr, myc, npr, npc);
        const double to = do_gemm ? timed(run_oz_gemm, &g, reps) : 0, ts = do_gemm ? timed(run_sl_gemm, &g, reps) : 0;
        /* received from other processes: op(A)'s rows of this process row (all k), less the
         * part held here, and op(B)'s columns likewise; SUMMA's panels are the same doubles */
        const double ml = (double)ozblas_mpi_numroc(n, 64, myr, 0, npr), nl = (double)ozblas_mpi_numroc(n, 64, myc, 0, npc);
        const double recv = ml * n * (1.0 - 1.0 / npc) + nl * n * (1.0 - 1.0 / npr);
        double rmax = 0;
        MPI_Allreduce(&recv, &rmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0 && do_gemm)
            printf("| pdgemm | %d | %.4f | %.4f | %.2f | ScaLAPACK pdgemm_ | %.3g / %.3g |%s\n", n, to, ts, to / ts, rmax,
                   (double)n * n / npr * (1.0 - 1.0 / npc) + (double)n * n / npc * (1.0 - 1.0 / npr),
                   g.st == OZBLAS_STATUS_SUCCESS ? "" : " FAILED");
        free(g.C);
        g.C = local_mat(2, n, 1, g.dc, myr, myc, npr, npc);
        free(g.B);
        int dx[9], dy[9];
        ozblas_mpi_desc(dx, n, 1, 64, 64, ctxt, &ld);
        ozblas_mpi_desc(dy, n, 1, 64, 64, ctxt, &ld);
        memcpy(g.db, dx, sizeof dx);
        memcpy(g.dc, dy, sizeof dy);
        g.B = local_mat(1, n, 1, g.db, myr, myc, npr, npc);
        g.C = local_mat(2, n, 1, g.dc, myr, myc, npr, npc);
        const double vo = do_gemv ? timed(run_oz_gemv, &g, reps) : 0, vs = do_gemv ? timed(run_sl_gemv, &g, reps) : 0;
        if (rank == 0 && do_gemv)
            printf("| pdgemv N | %d | %.5f | %.5f | %.2f | ScaLAPACK pdgemv_ | %.3g (x's part; 3 per row of y from each process of its row) |%s\n",
                   n, vo, vs, vo / vs, nl + (myc == 0 ? 3.0 * ml * npc : 0.0), g.st == OZBLAS_STATUS_SUCCESS ? "" : " FAILED");
        free(g.A); free(g.B); free(g.C);
    }
    for (int e = 20; e <= 24 && do_dot; e += 4) {
        const int64_t total = (int64_t)1 << e, nl = total / nproc;
        dot_ctx d = { h, nl, malloc(sizeof(double) * (size_t)nl), malloc(sizeof(double) * (size_t)nl), 0, OZBLAS_STATUS_SUCCESS };
        for (int64_t i = 0; i < nl; i++) { d.x[i] = elem(3, rank * nl + i, 0, 1.0); d.y[i] = elem(4, rank * nl + i, 0, 1.0); }
        const double to = timed(run_oz_pddot, &d, reps), tb = timed(run_blas_allreduce, &d, reps), tl = timed(run_oz_allreduce, &d, reps);
        if (rank == 0) {
            printf("| pddot | 2^%d | %.5f | %.5f | %.2f | MPI_Allreduce of OpenBLAS ddot | 4 doubles from each process (%d int64 more where the certificate cannot decide) |\n",
                   e, to, tb, to / tb, OZB_BENCH_LA_WORDS);
            printf("| pddot | 2^%d | %.5f | %.5f | %.2f | MPI_Allreduce of ozblas_ddot (not reproducible) | 1 double |\n", e, to, tl, to / tl);
        }
        free(d.x); free(d.y);
    }
    ozblas_destroy(h);
    ozblas_mpi_grid_free(ctxt);
    MPI_Finalize();
    return 0;
}
