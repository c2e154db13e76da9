/* ozblas on MPI: DOT, GEMV and GEMM over distributed data with the single-node bits.
 *
 * Every routine gives, on every rank, bit for bit what ozblas_ddot / ozblas_dgemv /
 * ozblas_dgemm give on the gathered data with the same handle configuration, for any number
 * of ranks, process grid and block size (README, "Distributed").  Link with -lozblas_mpi
 * -lozblas and the MPI and ScaLAPACK (BLACS) libraries; the handles are ordinary CPU handles
 * (ozblas_create), configured alike on every rank (a configuration that differs between the
 * ranks of a call is INVALID_VALUE on all of them).
 *
 * Errors are collective: an invalid argument on any rank makes every rank of the call return
 * OZBLAS_STATUS_INVALID_VALUE with its outputs untouched; no call aborts the job.
 * Processes outside a descriptor's process grid (or given a context that is no grid) must not
 * call pdgemv/pdgemm, as in PBLAS: they get OZBLAS_STATUS_INVALID_VALUE at once and take no
 * part.  Handles must be CPU handles (a CUDA handle is NOT_SUPPORTED on every rank). */
#ifndef OZBLAS_MPI_H
#define OZBLAS_MPI_H

#include <mpi.h>
#include "ozblas.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ScaLAPACK's array descriptor entries (desc[9], 0-based indices) */
enum { OZBLAS_DESC_DTYPE = 0, OZBLAS_DESC_CTXT, OZBLAS_DESC_M, OZBLAS_DESC_N, OZBLAS_DESC_MB,
       OZBLAS_DESC_NB, OZBLAS_DESC_RSRC, OZBLAS_DESC_CSRC, OZBLAS_DESC_LLD };

/* A BLACS process grid of nprow x npcol processes over comm, row-major (rank r of comm at
 * (r / npcol, r % npcol)); collective over comm.  Ranks beyond nprow * npcol get
 * *ctxt = -1 (outside the grid).  Release with ozblas_mpi_grid_free. */
ozblas_status_t ozblas_mpi_grid(MPI_Comm comm, int nprow, int npcol, int *ctxt);
ozblas_status_t ozblas_mpi_grid_free(int ctxt);
/* this process's place in the grid (myrow = -1 outside it) */
ozblas_status_t ozblas_mpi_grid_info(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
/* Rows (or columns) of a dimension of n entries in blocks of nb that process iproc holds
 * when the first block is on process isrc of nprocs (ScaLAPACK's NUMROC). */
int64_t ozblas_mpi_numroc(int64_t n, int64_t nb, int iproc, int isrc, int nprocs);
/* desc for an m x n matrix in mb x nb blocks from process (0, 0) of the grid ctxt, with the
 * smallest local leading dimension (max(1, local rows)) in *lld (ScaLAPACK's DESCINIT with
 * rsrc = csrc = 0 and that lld). */
ozblas_status_t ozblas_mpi_desc(int desc[9], int64_t m, int64_t n, int mb, int nb, int ctxt, int *lld);

/* result = sum of x_i y_i over the concatenation, in rank order of comm, of every rank's
 * n_local elements (x_i: the i-th BLAS element of the local x with increment incx; any
 * n_local, zero and negative mean none); every rank of comm gets the result. */
ozblas_status_t ozblas_pddot(ozblas_handle_t h, MPI_Comm comm, int64_t n_local, const double *x, int64_t incx,
                             const double *y, int64_t incy, double *result);

/* PBLAS PDGEMV: sub(y) = alpha op(sub(A)) sub(x) + beta sub(y), sub(A) = A(ia:ia+m-1,
 * ja:ja+n-1) (1-based, as in ScaLAPACK), sub(x) the vector from X(ix, jx) along a column
 * (incx = 1) or a row (incx = desc_x[M_]), sub(y) likewise. */
ozblas_status_t ozblas_pdgemv(ozblas_handle_t h, ozblas_operation_t trans, int64_t m, int64_t n, double alpha,
                              const double *A, int64_t ia, int64_t ja, const int *desc_a,
                              const double *X, int64_t ix, int64_t jx, const int *desc_x, int64_t incx,
                              double beta, double *Y, int64_t iy, int64_t jy, const int *desc_y, int64_t incy);

/* PBLAS PDGEMM: sub(C) = alpha op(sub(A)) op(sub(B)) + beta sub(C), sub(C) = C(ic:ic+m-1,
 * jc:jc+n-1), op(sub(A)) m x k, op(sub(B)) k x n; A, B and C on the same process grid. */
ozblas_status_t ozblas_pdgemm(ozblas_handle_t h, ozblas_operation_t transa, ozblas_operation_t transb,
                              int64_t m, int64_t n, int64_t k, double alpha,
                              const double *A, int64_t ia, int64_t ja, const int *desc_a,
                              const double *B, int64_t ib, int64_t jb, const int *desc_b,
                              double beta, double *C, int64_t ic, int64_t jc, const int *desc_c);

#ifdef __cplusplus
}
#endif
#endif
