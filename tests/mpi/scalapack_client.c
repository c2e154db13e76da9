/* An unchanged ScaLAPACK program: C = alpha A B + beta C by ScaLAPACK's pdgemm_ on an
 * nprow x npcol BLACS grid in nb x nb blocks; rank 0 writes the bits of the whole C (column
 * major) to a file.  It links MPI and ScaLAPACK only; run under LD_PRELOAD=libozblas_preload.so
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
    int da[9], db[9], dc[9], la, lb, lc;
    double *A = local(0, m, k, nb, myr, myc, npr, npc, &la, da, ctxt);
    double *B = local(1, k, n, nb, myr, myc, npr, npc, &lb, db, ctxt);
    double *C = local(2, m, n, nb, myr, myc, npr, npc, &lc, dc, ctxt);
    pdgemm_("N", "N", &m, &n, &k, &alpha, A, &one, &one, da, B, &one, &one, db, &beta, C, &one, &one, dc);
    /* the whole C on rank 0, in global order: (i, j, value) triples */
    const int zero = 0, lr = numroc_(&m, &nb, &myr, &zero, &npr), lcn = numroc_(&n, &nb, &myc, &zero, &npc);
    double *mine = malloc(sizeof(double) * (size_t)(3 * lr * lcn + 1));
    int cnt = 0;
    for (int j = 0; j < lcn; j++)
        for (int i = 0; i < lr; i++) {
            mine[cnt++] = l2g(i, nb, myr, npr);
            mine[cnt++] = l2g(j, nb, myc, npc);
            mine[cnt++] = C[i + j * lc];
        }
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *cnts = malloc(sizeof(int) * (size_t)size), *dis = malloc(sizeof(int) * (size_t)size);
    MPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double *all = NULL;
    if (rank == 0) {
        int t = 0;
        for (int r = 0; r < size; r++) { dis[r] = t; t += cnts[r]; }
        all = malloc(sizeof(double) * (size_t)(t + 1));
    }
    MPI_Gatherv(mine, cnt, MPI_DOUBLE, all, cnts, dis, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double *G = calloc((size_t)(m * n), sizeof(double));
        int t = 0;
        for (int r = 0; r < size; r++) t += cnts[r];
        for (int p = 0; p < t; p += 3) G[(int)all[p] + (int)all[p + 1] * m] = all[p + 2];
        FILE *f = fopen(argv[4], "wb");
        if (!f || fwrite(G, sizeof(double), (size_t)(m * n), f) != (size_t)(m * n)) { perror(argv[4]); MPI_Abort(MPI_COMM_WORLD, 3); }
        fclose(f);
        free(G);
    }
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return 0;
}
