/* Shared helpers of the ozblas Check test suite. */
#ifndef OZBLAS_TU_H
#define OZBLAS_TU_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "ozblas.h"
#include "ozref.h"

/* Base seed of this run: $OZBLAS_TEST_SEED if set, else derived from the time.
 * Every test derives its own generator from it and the test's tag. */
extern uint64_t tu_seed;

/* Bits of the sentinel NaN written into every padding / gap element. */
#define TU_SENTINEL_BITS 0x7ff8deadbeefcafeULL

/* seconds for tcase_set_timeout, scaled up under sanitizers */
double tu_timeout(double seconds);
/* seeds r from tu_seed and tag (deterministic per tag) */
void tu_rng(ozref_rng *r, const char *tag);
/* prints the seed, runs the suite (CK_FORK default), returns the process exit code */
int tu_main(const char *name, Suite *s);

/* allocation, sentinel filling */
double *tu_alloc(size_t n);                  /* n doubles (n >= 1), all sentinel */
void tu_fill_sentinel(double *p, size_t n);
int tu_is_sentinel(double v);
uint64_t tu_bits(double v);
double tu_from_bits(uint64_t b);
/* fill the rows x cols window of a column-major matrix from the phi generator */
void tu_fill_mat(ozref_rng *r, double *A, int64_t rows, int64_t cols, int64_t ld, double phi);
/* fill the n elements of a strided vector (BLAS layout) */
void tu_fill_vec(ozref_rng *r, double *x, int64_t n, int64_t inc, double phi);
size_t tu_vec_len(int64_t n, int64_t inc);   /* buffer length of a BLAS vector, >= 1 */
/* pointer to BLAS element i of a vector of length n with increment inc */
double *tu_vec_elem(double *x, int64_t n, int64_t inc, int64_t i);

ozblas_handle_t tu_handle(ozblas_mode_t mode);  /* asserts success */
const char *tu_mode_name(ozblas_mode_t mode);

/* ---- generic checks ----
 * got/ref: n output values; absb: |alpha| (|op(A)||op(B)|) + |beta||C| per value (long double),
 * k: inner dimension.  group: values are checked in consecutive groups (GEMM: one row of C),
 * the DOUBLE-mode bound is the row-wise one of Algorithm 3 (seed 000):
 *   sum_g |got-ref| <= 4 k u sum_g absb + 4 sum_g ulp(ref).
 * CORRECTLY_ROUNDED: bitwise (any NaN matches any NaN).
 * every mode: non-finite references must be matched (NaN by NaN, +-Inf bitwise),
 * finite references never give NaN, and Inf only where overflow is possible. */
void tu_check_values(ozblas_mode_t mode, int64_t n, const double *got, const double *ref,
                     const long double *absb, int64_t k, int64_t group, const char *ctx);
/* bitwise comparison of two buffers, failing with index and values; nan_any: NaNs match
 * any NaN except the sentinel (which must match exactly) */
void tu_check_bits(const double *got, const double *exp, size_t n, int nan_any, const char *ctx);

/* ---- whole-routine runners: call ozblas, check against ozref per mode, check padding,
 * untouched inputs and repeat-call reproducibility. ---- */
typedef struct {
    int ta, tb;
    int64_t m, n, k;
    int64_t lda, ldb, ldc;   /* 0: minimal (max(1,rows)) */
    double alpha, beta;
    int64_t sample_rows;     /* 0: check every element, else this many rows of C (plus first and last) */
} tu_gemm_params;

/* A, B, C are prepared by the caller (layout from p). C is overwritten with the result. */
void tu_gemm_run(ozblas_handle_t h, ozblas_mode_t mode, const tu_gemm_params *p,
                 const double *A, const double *B, double *C, const char *ctx);
/* random inputs from the phi generator, padding = sentinel */
void tu_gemm_random(ozblas_handle_t h, ozblas_mode_t mode, tu_gemm_params p, double phi,
                    ozref_rng *r, const char *tag);
void tu_gemm_sizes(const tu_gemm_params *p, int64_t *lda, int64_t *ldb, int64_t *ldc,
                   size_t *na, size_t *nb, size_t *nc);

typedef struct {
    int trans;
    int64_t m, n, lda;       /* lda 0: max(1,m) */
    int64_t incx, incy;
    double alpha, beta;
} tu_gemv_params;
void tu_gemv_run(ozblas_handle_t h, ozblas_mode_t mode, const tu_gemv_params *p,
                 const double *A, const double *x, double *y, const char *ctx);
void tu_gemv_random(ozblas_handle_t h, ozblas_mode_t mode, tu_gemv_params p, double phi,
                    ozref_rng *r, const char *tag);
void tu_gemv_sizes(const tu_gemv_params *p, int64_t *lda, size_t *na, size_t *nx, size_t *ny);

/* DOT: returns the result; checks it per mode */
double tu_dot_run(ozblas_handle_t h, ozblas_mode_t mode, int64_t n, const double *x, int64_t incx,
                  const double *y, int64_t incy, const char *ctx);
void tu_dot_random(ozblas_handle_t h, ozblas_mode_t mode, int64_t n, int64_t incx, int64_t incy,
                   double phi, ozref_rng *r, const char *tag);

/* Operands for a CUDA handle under OZBLAS_TEST_CUDA (=1: GPU 0's memory, =emulate: host
 * memory): a device copy of n doubles, and back into host (when not NULL), freeing it. */
void *tu_dev_copy(const double *host, size_t n);
void  tu_dev_take(double *host, void *dev, size_t n);

/* The CUDA twin's info after its last call (OZBLAS_TEST_CUDA set); 0 where there is no twin. */
int tu_twin_info(ozblas_info_t *info);

/* Records, while a suite is built (in the parent process), that some of its cases cannot run
 * on this build or machine: tu_main then reports the program to ctest as skipped (exit 77,
 * SKIP_RETURN_CODE) when nothing failed, never as passed. */
void tu_skip_note(const char *name, const char *why);
#define TU_MAIN(name, builder) int main(void) { return tu_main(name, builder()); }

#define TU_MODES {OZBLAS_MODE_DOUBLE, OZBLAS_MODE_CORRECTLY_ROUNDED, OZBLAS_MODE_FIXED}

#endif
