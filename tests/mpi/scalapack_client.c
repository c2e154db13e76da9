/* An unchanged ScaLAPACK program: C = alpha A B + beta C by ScaLAPACK's pdgemm_, then
 * y = alpha A x + beta y and w = alpha A^T v + beta w by pdgemv_, on an nprow x npcol BLACS
 * grid in nb x nb blocks; rank 0 writes the bits of the whole C, y and w (column major) to a
 * file.  It links MPI and ScaLAPACK only; run under LD_PRELOAD=libozblas_preload.so
 * its pdgemm_ is ozblas's (run_scalapack.sh).
 *   mpirun -np P scalapack_client NPROW NPCOL NB OUT */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scalapack_gen.h"

void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);
int numroc_(const int *, const int *, const int *, const int *, const int *);
void descinit_(int *, const int *, const int *, const int *, const int *, const int *, const int *, const int *,
               const int *, int *);
void pdgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
             const int *, const int *, const int *, const double *, const int *, const int *, const int *,
             const double *, double *, const int *, const int *, const int *);
void pdgemv_(const char *, const int *, const int *, const double *, const double *, const int *, const int *,
             const int *, const double *, const int *, const int *, const int *, const int *, const double *,
             double *, const int *, const int *, const int *, const int *);

enum { M = 53, N = 41, K = 67 };

static int l2g(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

static double *local(int which, int gm, int gn, int nb, int myr, int myc, int npr, int npc, int *lld, int *desc, int ctxt)
{
    const int zero = 0;
    int lr = numroc_(&gm, &nb, &myr, &zero, &npr), lc = numroc_(&gn, &nb, &myc, &zero, &npc), info;
    *lld = lr > 1 ? lr : 1;
    descinit_(desc, &gm, &gn, &nb, &nb, &zero, &zero, &ctxt, lld, &info);
    double *L = calloc((size_t)(*lld * (lc > 0 ? lc : 1)), sizeof(double));
    for (int j = 0; j < lc; j++)
        for (int i = 0; i < lr; i++) L[i + j * *lld] = sg_elem(which, l2g(i, nb, myr, npr), l2g(j, nb, myc, npc));
    return L;
}

/* the whole gm x gn matrix on rank 0, in global order, appended to f: (i, j, value) triples
 * gathered from every process */
static void write_global(FILE *f, const double *L, int gm, int gn, int nb, int lld, int myr, int myc, int npr, int npc)
{
    const int zero = 0, lr = numroc_(&gm, &nb, &myr, &zero, &npr), lcn = numroc_(&gn, &nb, &myc, &zero, &npc);
    double *mine = malloc(sizeof(double) * (size_t)(3 * lr * lcn + 1));
    int cnt = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int j = 0; j < lcn; j++)
        for (int i = 0; i < lr; i++) {
            mine[cnt++] = l2g(i, nb, myr, npr);
            mine[cnt++] = l2g(j, nb, myc, npc);
            mine[cnt++] = L[i + j * lld];
        }
    int *cnts = malloc(sizeof(int) * (size_t)size), *dis = malloc(sizeof(int) * (size_t)size), t = 0;
    MPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++) { dis[r] = t; t += cnts[r]; }
    double *all = malloc(sizeof(double) * (size_t)(t + 1));
    MPI_Gatherv(mine, cnt, MPI_DOUBLE, all, cnts, dis, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double *G = calloc((size_t)(gm * gn), sizeof(double));
        for (int p = 0; p < t; p += 3) G[(int)all[p] + (int)all[p + 1] * gm] = all[p + 2];
        if (fwrite(G, sizeof(double), (size_t)(gm * gn), f) != (size_t)(gm * gn)) MPI_Abort(MPI_COMM_WORLD, 3);
        free(G);
    }
    free(mine); free(cnts); free(dis); free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 5) { fprintf(stderr, "usage: scalapack_client NPROW NPCOL NB OUT\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    const int npr = atoi(argv[1]), npc = atoi(argv[2]), nb = atoi(argv[3]);
    int rank, ctxt, nr, nc, myr, myc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", npr, npc);
    Cblacs_gridinfo(ctxt, &nr, &nc, &myr, &myc);
    const int m = M, n = N, k = K, one = 1;
    const double alpha = 0.75, beta = -1.5;
    int da[9], db[9], dc[9], dx[9], dy[9], dv[9], dw[9], la, lb, lc;
    double *A = local(0, m, k, nb, myr, myc, npr, npc, &la, da, ctxt);
    double *B = local(1, k, n, nb, myr, myc, npr, npc, &lb, db, ctxt);
    double *C = local(2, m, n, nb, myr, myc, npr, npc, &lc, dc, ctxt);
    pdgemm_("N", "N", &m, &n, &k, &alpha, A, &one, &one, da, B, &one, &one, db, &beta, C, &one, &one, dc);
    double *X = local(3, k, 1, nb, myr, myc, npr, npc, &la, dx, ctxt);
    double *Y = local(4, m, 1, nb, myr, myc, npr, npc, &la, dy, ctxt);
    double *V = local(5, m, 1, nb, myr, myc, npr, npc, &la, dv, ctxt);
    double *W = local(6, k, 1, nb, myr, myc, npr, npc, &la, dw, ctxt);
    pdgemv_("N", &m, &k, &alpha, A, &one, &one, da, X, &one, &one, dx, &one, &beta, Y, &one, &one, dy, &one);
    pdgemv_("T", &m, &k, &alpha, A, &one, &one, da, V, &one, &one, dv, &one, &beta, W, &one, &one, dw, &one);
    FILE *f = rank == 0 ? fopen(argv[4], "wb") : NULL;
    if (rank == 0 && !f) { perror(argv[4]); MPI_Abort(MPI_COMM_WORLD, 3); }
    write_global(f, C, m, n, nb, lc, myr, myc, npr, npc);
    write_global(f, Y, m, 1, nb, dy[8], myr, myc, npr, npc);
    write_global(f, W, k, 1, nb, dw[8], myr, myc, npr, npc);
    if (f) fclose(f);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return 0;
}
