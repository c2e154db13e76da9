/* The README's "Distributed" example: a correctly rounded PDGEMM and PDDOT on a 2-D grid,
 * the same bits on any number of processes.
 *   mpicc mpi_pdgemm.c -o mpi_pdgemm -lozblas_mpi -lozblas -lscalapack-openmpi
 *   mpirun -np 4 ./mpi_pdgemm */
#include <ozblas_mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* the squarest grid of all processes, without BLACS calls of one's own */
    int nprow = 1;
    for (int p = 1; p * p <= size; p++)
        if (size % p == 0) nprow = p;
    int ctxt, np, nq, myrow, mycol;
    ozblas_mpi_grid(MPI_COMM_WORLD, nprow, size / nprow, &ctxt);
    ozblas_mpi_grid_info(ctxt, &np, &nq, &myrow, &mycol);

    /* C = A B, n x n in 32 x 32 blocks; element (i, j) of A is 1/(i+j+1), of B (i-j)/(n+1) */
    const int64_t n = 300;
    int desc[9], lld;
    ozblas_mpi_desc(desc, n, n, 32, 32, ctxt, &lld);
    const int64_t mloc = ozblas_mpi_numroc(n, 32, myrow, 0, np), nloc = ozblas_mpi_numroc(n, 32, mycol, 0, nq);
    double *A = calloc((size_t)(lld * (nloc > 0 ? nloc : 1)), sizeof(double));
    double *B = calloc((size_t)(lld * (nloc > 0 ? nloc : 1)), sizeof(double));
    double *C = calloc((size_t)(lld * (nloc > 0 ? nloc : 1)), sizeof(double));
    for (int64_t lj = 0; lj < nloc; lj++)
        for (int64_t li = 0; li < mloc; li++) {
            const int64_t i = (li / 32 * np + myrow) * 32 + li % 32, j = (lj / 32 * nq + mycol) * 32 + lj % 32;
            A[li + lj * lld] = 1.0 / (double)(i + j + 1);
            B[li + lj * lld] = (double)(i - j) / (double)(n + 1);
        }

    ozblas_handle_t h;
    ozblas_create(&h);
    ozblas_set_mode(h, OZBLAS_MODE_CORRECTLY_ROUNDED);
    ozblas_status_t st = ozblas_pdgemm(h, OZBLAS_OP_N, OZBLAS_OP_N, n, n, n, 1.0, A, 1, 1, desc, B, 1, 1, desc,
                                       0.0, C, 1, 1, desc);

    /* a checksum of C's bits that does not depend on the grid: the sum over the elements of
     * their bit patterns, each process adding those it holds */
    uint64_t mine = 0, all = 0;
    for (int64_t lj = 0; lj < nloc; lj++)
        for (int64_t li = 0; li < mloc; li++) {
            uint64_t b;
            memcpy(&b, &C[li + lj * lld], sizeof b);
            mine += b;
        }
    MPI_Reduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);

    /* and the dot product of the first column of A with itself, in pieces of any size */
    const int64_t piece = n / size + (rank < n % size), first = rank * (n / size) + (rank < n % size ? rank : n % size);
    double *x = malloc(sizeof(double) * (size_t)(piece > 0 ? piece : 1)), dot = 0;
    for (int64_t i = 0; i < piece; i++) x[i] = 1.0 / (double)(first + i + 1);
    ozblas_status_t sd = ozblas_pddot(h, MPI_COMM_WORLD, piece, x, 1, x, 1, &dot);

    if (rank == 0)
        printf("%d processes, grid %dx%d: pdgemm %s, C checksum %016llx; pddot %s, %.17g\n", size, np, nq,
               ozblas_status_string(st), (unsigned long long)all, ozblas_status_string(sd), dot);
    ozblas_destroy(h);
    free(A); free(B); free(C); free(x);
    ozblas_mpi_grid_free(ctxt);
    MPI_Finalize();
    return st != OZBLAS_STATUS_SUCCESS || sd != OZBLAS_STATUS_SUCCESS;
}
