/* ozblas_pddot: the single-node bits for a vector split in pieces over a communicator.
 *
 * Correctly rounded configurations (CORRECTLY_ROUNDED, DOUBLE with FP64): each process adds
 * its products exactly into a long accumulator (kernels/ozb_sum_ops.h: a fixed-point integer
 * from 2^-3500 up), normalises it to digits in [0, 2^32), and one MPI_Allreduce sums the
 * digits as 64-bit integers: integer sums are exact, so the reduced accumulator is the
 * exact dot product whatever the number of processes or the order of the reduction, and
 * rounding it once gives RN(exact), the single-node result.  Bit budget: P normalised digits
 * sum to below P 2^32, far inside int64 for any P below 2^31; the top digit carries the sign.
 * Non-finite products are counted (NaN, +Inf, -Inf) in the same reduction and give the
 * single-node special value (CONTRACT §4).
 *
 * First a certificate (pddot_certified), which costs one local pass and one small exchange:
 * each process sums its products by the error-free DOT kernels of the correctly rounded DDOT
 * (src/eft/eft_dot.c: ozb_eft_dot_parts) into s = S + C + D with |D| <= B, a rigorous bound
 * (src/eft/eft_kern.h).  Every process gathers every (S, C, B), adds the S and C exactly into
 * a long accumulator T and the B into E, and where RN(T - E) and RN(T + E) have the same bits,
 * that is RN of the exact sum (RN is monotone).  Only where the exact
 * sum lies within E of a rounding boundary (about 2^-50 of random cases), or a partial sum is
 * not finite, does every process take the exact sums above; all decide alike, from the same
 * gathered values.
 *
 * The other configurations (FIXED, DOUBLE with FP16/INT8/CRT_INT8) depend on the inner
 * blocking of the whole vector: the pieces are gathered on rank 0, which computes the
 * single-node call, and the result is broadcast. */
#include "mpi/pgrid.h"
#include "eft/ozblas_parts.h"   /* the library's internal interface (fpenv, TwoProduct, the long accumulator) */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NSPECIAL = 3 };   /* NaN terms, +Inf terms, -Inf terms */

static double elem(const double *x, int64_t n, int64_t inc, int64_t i)
{
    return inc < 0 ? x[(n - 1 - i) * -inc] : x[i * inc];
}

/* digits in [0, 2^32) below the top one, which keeps the sign: the same value */
static void normalise(ozb_longacc *a)
{
    for (int i = 0; i < OZB_LA_DIGITS - 1; i++) {
        const int64_t c = a->d[i] >> 32;     /* floor(d / 2^32): arithmetic shift */
        a->d[i] -= c * ((int64_t)1 << 32);
        a->d[i + 1] += c;
    }
}

static ozblas_status_t pddot_exact(MPI_Comm comm, int64_t n, const double *x, int64_t incx, const double *y,
                                   int64_t incy, double *result)
{
    ozb_longacc *acc = malloc(sizeof *acc);
    int64_t *red = malloc(sizeof(int64_t) * (OZB_LA_DIGITS + NSPECIAL));
    int err = !(acc && red), any = 0;
    int ag = 0;
    MPI_Allreduce(&err, &ag, 1, MPI_INT, MPI_MAX, comm);
    if (ag) { free(acc); free(red); return OZBLAS_STATUS_ALLOC_FAILED; }
    /* comparisons with zero under a caller's denormals-are-zero would drop subnormal terms */
    ozb_fpenv_t saved;
    const int changed = ozb_fpenv_enter(&saved);
    ozb_op_la_init(acc);
    int64_t sp[NSPECIAL] = { 0, 0, 0 };
    for (int64_t i = 0; i < n; i++) {
        const double a = elem(x, n, incx, i), b = elem(y, n, incy, i);
        if (isfinite(a) && isfinite(b)) {
            if (a != 0.0 && b != 0.0) { ozb_op_la_add_product(acc, a, b); any = 1; }
        } else if (isnan(a) || isnan(b) || a == 0.0 || b == 0.0) {
            sp[0]++;                                  /* NaN, or Inf * 0 */
        } else {
            sp[signbit(a) != signbit(b) ? 2 : 1]++;
        }
    }
    if (any) normalise(acc);
    for (int i = 0; i < OZB_LA_DIGITS; i++) red[i] = any ? acc->d[i] : 0;
    for (int i = 0; i < NSPECIAL; i++) red[OZB_LA_DIGITS + i] = sp[i];
    MPI_Allreduce(MPI_IN_PLACE, red, OZB_LA_DIGITS + NSPECIAL, MPI_INT64_T, MPI_SUM, comm);
    const int64_t *s = red + OZB_LA_DIGITS;
    if (s[0] > 0 || (s[1] > 0 && s[2] > 0)) *result = NAN;
    else if (s[1] > 0) *result = INFINITY;
    else if (s[2] > 0) *result = -INFINITY;
    else {
        for (int i = 0; i < OZB_LA_DIGITS; i++) acc->d[i] = red[i];
        acc->lo = 0;
        acc->hi = OZB_LA_DIGITS - 1;
        int sign;
        *result = ozb_op_la_round(acc, &sign);
    }
    ozb_fpenv_leave(saved, changed);
    free(acc);
    free(red);
    return OZBLAS_STATUS_SUCCESS;
}

static void add_double(ozb_longacc *a, double v, double sign)
{
    if (v != 0.0) ozb_op_la_add_product(a, v, sign);
}

/* 1 with *result set where the certificate decides (on every process alike), 0 where the
 * exact sums must; ALLOC_FAILED never leaves a process alone (agreed before the gather) */
static int pddot_certified(MPI_Comm comm, int64_t n, const double *x, int64_t incx, const double *y, int64_t incy,
                           double *result)
{
    ozb_fpenv_t saved;
    const int changed = ozb_fpenv_enter(&saved);   /* the kernels' environment; subnormals compare as they are */
    double mine[4] = { 0.0, 0.0, 0.0, 1.0 };      /* S, C, B, usable */
    mine[3] = ozblas_internal_dot_parts(n, x, incx, y, incy, &mine[0], &mine[1], &mine[2]);
    int size = 0;
    MPI_Comm_size(comm, &size);
    double *all = malloc(sizeof(double) * 4 * (size_t)size);
    ozb_longacc *acc = malloc(2 * sizeof *acc);
    int ok = all && acc, agreed = 0;
    MPI_Allreduce(&ok, &agreed, 1, MPI_INT, MPI_MIN, comm);
    int decided = agreed;
    if (agreed) {
        MPI_Allgather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, comm);
        for (int p = 0; p < size; p++) decided &= all[4 * p + 3] != 0.0;
    }
    if (decided) {
        /* T = sum of every S + C exactly; RN(T - E) and RN(T + E), E = sum of the bounds */
        ozb_longacc *lo = acc, *hi = acc + 1;
        ozb_op_la_init(lo);
        for (int p = 0; p < size; p++) { add_double(lo, all[4 * p], 1.0); add_double(lo, all[4 * p + 1], 1.0); }
        *hi = *lo;
        for (int p = 0; p < size; p++) { add_double(lo, all[4 * p + 2], -1.0); add_double(hi, all[4 * p + 2], 1.0); }
        int s1, s2;
        const double a = ozb_op_la_round(lo, &s1), b = ozb_op_la_round(hi, &s2);
        uint64_t ba, bb;
        memcpy(&ba, &a, sizeof ba);
        memcpy(&bb, &b, sizeof bb);
        decided = ba == bb;
        if (decided) *result = a;
    }
    ozb_fpenv_leave(saved, changed);
    free(all);
    free(acc);
    return decided;
}

/* everything on rank 0, the single-node call there, the result to all */
static ozblas_status_t pddot_root(ozblas_handle_t h, MPI_Comm comm, int64_t n, const double *x, int64_t incx,
                                  const double *y, int64_t incy, double *result)
{
    int size = 0, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    int64_t *ns = malloc(sizeof(int64_t) * (size_t)size);
    int *cnt = malloc(sizeof(int) * (size_t)size), *dis = malloc(sizeof(int) * (size_t)size);
    double *xl = malloc(sizeof(double) * (size_t)(n + 1)), *yl = malloc(sizeof(double) * (size_t)(n + 1));
    int err = !(ns && cnt && dis && xl && yl), ag = 0;
    MPI_Allreduce(&err, &ag, 1, MPI_INT, MPI_MAX, comm);
    double *xg = NULL, *yg = NULL;
    ozblas_status_t st = ag ? OZBLAS_STATUS_ALLOC_FAILED : OZBLAS_STATUS_SUCCESS;
    int64_t total = 0;
    if (st == OZBLAS_STATUS_SUCCESS) {
        MPI_Allgather(&n, 1, MPI_INT64_T, ns, 1, MPI_INT64_T, comm);
        for (int r = 0; r < size; r++) {
            if (total + ns[r] > INT_MAX) { st = OZBLAS_STATUS_NOT_SUPPORTED; break; }   /* the same on all */
            dis[r] = (int)total;
            cnt[r] = (int)ns[r];
            total += ns[r];
        }
    }
    if (st == OZBLAS_STATUS_SUCCESS) {
        err = 0;
        if (rank == 0) {
            xg = malloc(sizeof(double) * (size_t)(total + 1));
            yg = malloc(sizeof(double) * (size_t)(total + 1));
            err = !(xg && yg);
        }
        MPI_Bcast(&err, 1, MPI_INT, 0, comm);
        if (err) st = OZBLAS_STATUS_ALLOC_FAILED;
    }
    if (st == OZBLAS_STATUS_SUCCESS) {
        for (int64_t i = 0; i < n; i++) { xl[i] = elem(x, n, incx, i); yl[i] = elem(y, n, incy, i); }
        MPI_Gatherv(xl, (int)n, MPI_DOUBLE, xg, cnt, dis, MPI_DOUBLE, 0, comm);
        MPI_Gatherv(yl, (int)n, MPI_DOUBLE, yg, cnt, dis, MPI_DOUBLE, 0, comm);
        double out[2] = { 0.0, 0.0 };
        if (rank == 0) {
            const ozblas_status_t s0 = ozblas_ddot(h, total, xg, 1, yg, 1, &out[1]);
            out[0] = (double)s0;
        }
        MPI_Bcast(out, 2, MPI_DOUBLE, 0, comm);
        st = (ozblas_status_t)(int)out[0];
        if (st == OZBLAS_STATUS_SUCCESS) *result = out[1];
    }
    free(ns); free(cnt); free(dis); free(xl); free(yl); free(xg); free(yg);
    return st;
}

/* One process holds every element (or none does): it makes the single-node call itself and
 * sends the result; 0 where more than one process holds elements */
static int pddot_single(ozblas_handle_t h, MPI_Comm comm, int64_t n, const double *x, int64_t incx, const double *y,
                        int64_t incy, double *result, ozblas_status_t *st)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    int64_t mine[2] = { n > 0, n > 0 ? rank : 0 }, all[2] = { 0, 0 };   /* holders, and their ranks' sum */
    MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, comm);
    if (all[0] > 1) return 0;
    const int owner = (int)all[1];
    double out[2] = { 0.0, 0.0 };
    if (rank == owner) out[0] = (double)ozblas_ddot(h, n, x, incx, y, incy, &out[1]);
    MPI_Bcast(out, 2, MPI_DOUBLE, owner, comm);
    *st = (ozblas_status_t)(int)out[0];
    if (*st == OZBLAS_STATUS_SUCCESS) *result = out[1];
    return 1;
}

ozblas_status_t ozblas_pddot(ozblas_handle_t h, MPI_Comm comm, int64_t n_local, const double *x, int64_t incx,
                             const double *y, int64_t incy, double *result)
{
    if (comm == MPI_COMM_NULL) return OZBLAS_STATUS_INVALID_VALUE;
    int64_t key[6] = { 0, 0, 0, 0, 0, 0 };
    const int64_t n = n_local > 0 ? n_local : 0;
    ozblas_status_t st = ozb_config_key(h, key);
    if (st == OZBLAS_STATUS_SUCCESS && (!result || (n > 0 && (!x || !y)))) st = OZBLAS_STATUS_INVALID_VALUE;
    st = ozb_agree(comm, key, 6, st);
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    if (pddot_single(h, comm, n, x, incx, y, incy, result, &st)) return st;
    if (!ozb_dot_exact(key)) return pddot_root(h, comm, n, x, incx, y, incy, result);
    if (pddot_certified(comm, n, x, incx, y, incy, result)) return OZBLAS_STATUS_SUCCESS;
    return pddot_exact(comm, n, x, incx, y, incy, result);
}
