/* The dispatch: from a driver's problem to the method that computes it. */
#ifndef OZB_DISPATCH_H
#define OZB_DISPATCH_H
#include "core/problem.h"
#include "core/fpenv.h"

/* The standard floating-point environment for a call's arithmetic (core/fpenv.h); under the
 * caller's other one, the call's problems run on this thread alone (the pool's threads may
 * carry the caller's).  ozb_env_leave restores both. */
typedef struct { ozb_fpenv_t env; int changed, threads; } ozb_env_t;
ozb_env_t ozb_env_enter(ozblas_handle_t h);
void ozb_env_leave(ozblas_handle_t h, ozb_env_t e);

/* Computes C = alpha op(A) op(B) + beta C as the handle's mode says. */
ozblas_status_t ozb_run(ozblas_handle_t h, const ozb_problem *pr);
/* The same, correctly rounded whatever the handle's mode (the FP64 slices' methods): the
 * element-wise updates and reductions of CONTRACT §6, exact in every mode. */
ozblas_status_t ozb_run_rn(ozblas_handle_t h, const ozb_problem *pr);

/* 1 where ozb_run's results are RN(exact) for the handle's configuration (CORRECTLY_ROUNDED,
 * and DOUBLE with the FP64, FP16 and INT8 formats: dispatch/plan.h): then exact zero terms
 * left out of a problem change no bit, whatever the blocking */
int ozb_run_rounds_exact(ozblas_handle_t h);

/* 1 where ozb_run (rn: ozb_run_rn) computes a square problem with a kept triangle (pr->tri)
 * about that triangle only: the host's error-free GEMM takes it first (CORRECTLY_ROUNDED on
 * the FP64 format's methods, host operands, its kernels offered and its workspace allowed) */
int ozb_run_walks_triangle(ozblas_handle_t h, const ozb_problem *pr, int rn);

/* x^T y for contiguous x, y (0 < n) where the short error-free DOT takes it in the standard
 * floating-point environment: 1 and the call's status in *st (RN(x^T y) in *out where it is
 * SUCCESS), else 0 and nothing computed (then ozb_run computes the call: the same bits). */
int ozb_run_dot_direct(ozblas_handle_t h, const double *x, const double *y, int64_t n, double *out, ozblas_status_t *st);

/* Clears the handle's info for a call that computes nothing. */
void ozb_info_reset(ozblas_handle_t h);

/* C := beta * C (beta == 0: C := +0, not read; beta == 1: untouched), for alpha == 0 or k == 0. */
ozblas_status_t ozb_scale_c(ozblas_handle_t h, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta);
#endif
