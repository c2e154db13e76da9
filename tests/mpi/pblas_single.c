/* The single-node twin of scalapack_client.c: the same C = alpha A B + beta C by ozblas_dgemm,
 * y = alpha A x + beta y and w = alpha A^T v + beta w by ozblas_dgemv, in one process, their
 * bits to a file.  pblas_single MODE OUT (MODE: double,
 * correctly_rounded, fixed: split 3, as the interposer's defaults). */
#include "ozblas.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scalapack_gen.h"

enum { M = 53, N = 41, K = 67 };

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: pblas_single MODE OUT\n"); return 2; }
    static double A[M * K], B[K * N], C[M * N];
    for (int j = 0; j < K; j++) for (int i = 0; i < M; i++) A[i + j * M] = sg_elem(0, i, j);
    for (int j = 0; j < N; j++) for (int i = 0; i < K; i++) B[i + j * K] = sg_elem(1, i, j);
    for (int j = 0; j < N; j++) for (int i = 0; i < M; i++) C[i + j * M] = sg_elem(2, i, j);
    ozblas_handle_t h;
    if (ozblas_create(&h)) return 1;
    ozblas_set_mode(h, !strcmp(argv[1], "double") ? OZBLAS_MODE_DOUBLE
                       : !strcmp(argv[1], "fixed") ? OZBLAS_MODE_FIXED : OZBLAS_MODE_CORRECTLY_ROUNDED);
    if (ozblas_dgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, M, N, K, 0.75, A, M, B, K, -1.5, C, M)) return 1;
    static double x[K], y[M], v[M], w[K];
    for (int i = 0; i < K; i++) { x[i] = sg_elem(3, i, 0); w[i] = sg_elem(6, i, 0); }
    for (int i = 0; i < M; i++) { y[i] = sg_elem(4, i, 0); v[i] = sg_elem(5, i, 0); }
    if (ozblas_dgemv(h, OZBLAS_OP_N, M, K, 0.75, A, M, x, 1, -1.5, y, 1)) return 1;
    if (ozblas_dgemv(h, OZBLAS_OP_T, M, K, 0.75, A, M, v, 1, -1.5, w, 1)) return 1;
    FILE *f = fopen(argv[2], "wb");
    if (!f || fwrite(C, sizeof(double), M * N, f) != M * N || fwrite(y, sizeof(double), M, f) != M ||
        fwrite(w, sizeof(double), K, f) != K)
        return 3;
    fclose(f);
    ozblas_destroy(h);
    return 0;
}
