/* One routine call as the layers below the drivers see it: the problem (strided views of
 * op(A), op(B)^T and C) and the plan (what the dispatch decided for this call).  Both are
 * values passed down; a call writes nothing into the handle but its info and workspace. */
#ifndef OZB_PROBLEM_H
#define OZB_PROBLEM_H
#include "core/ozb_internal.h"

typedef struct {
    int64_t  m, n, k;          /* C is m x n, inner dimension k (all >= 1)               */
    ozb_view a;                /* op(A): element (i, l), i < m, l < k                    */
    ozb_view b;                /* op(B)^T: element (j, l), j < n, l < k                  */
    double   alpha, beta;      /* alpha != 0 (drivers handle alpha == 0)                 */
    double  *c;                /* C(i, j) = c[i*crs + j*ccs]                             */
    int64_t  crs, ccs;
    int64_t  kblock;           /* inner block size: depends on the routine and shape only */
    int      c_host;           /* c is host memory on a device handle too (DOT's result)  */
    int      tri;              /* OZB_TRI_*: the elements of C the caller keeps (shapes.c) */
    const uint8_t *want;       /* NULL, or the elements the caller keeps: want[i + j m] != 0 */
    int      zeros;            /* OZB_ZEROS_*: where op(A) or op(B)^T is known to be zero    */
} ozb_problem;

/* A square C of which the caller keeps one triangle (a diagonal block of DSYRK's in a scratch
 * copy): a stage may leave anything in the other part, and need not flag any of it.  The
 * triangle is in C's own coordinates, so a problem on part of C has OZB_TRI_ALL
 * (ozb_problem_part). */
enum { OZB_TRI_ALL = 0, OZB_TRI_LOWER = 1 /* i >= j */, OZB_TRI_UPPER = 2 /* i <= j */ };

/* An operand zero beyond one triangle (DTRMM's op(T) made whole): for a view x(r, l), KLE
 * says x(r, l) = 0 where l > r, KGE where l < r.  A backend may leave those products out (they
 * are exact zeros: no bit depends on it).  In the operands' own coordinates, so a problem on
 * part of C has OZB_ZEROS_NONE (ozb_problem_part). */
enum { OZB_ZEROS_NONE = 0, OZB_ZEROS_A_KLE, OZB_ZEROS_A_KGE, OZB_ZEROS_B_KLE, OZB_ZEROS_B_KGE };

/* The same for any set of elements: `want` (the flags of a stage's remainder, computed whole
 * into a copy of C by the executor, which copies back only those).  Both in C's own
 * coordinates: a problem on part of C (other origin or shape) has tri = OZB_TRI_ALL, want =
 * NULL.  Element (i, j) is kept where ozb_kept says so. */
static inline int ozb_kept(const ozb_problem *pr, int64_t i, int64_t j)
{
    if (pr->tri != OZB_TRI_ALL && (pr->tri == OZB_TRI_LOWER ? i < j : i > j)) return 0;
    return !pr->want || pr->want[i + j * pr->m];
}

/* A copy of pr to be made a problem on part of C (another origin or shape): every element
 * kept, as tri and want are C's own, and no zeros known, as those are the operands' own */
static inline ozb_problem ozb_problem_part(const ozb_problem *pr)
{
    ozb_problem s = *pr;
    s.tri = OZB_TRI_ALL;
    s.want = NULL;
    s.zeros = OZB_ZEROS_NONE;
    return s;
}

/* The part of pr whose C rows start at i0 (m of them) and columns at j0 (n): op(A)'s rows and
 * op(B)'s columns that make them, each element the same sum as in pr */
static inline ozb_problem ozb_problem_sub(const ozb_problem *pr, int64_t i0, int64_t m, int64_t j0, int64_t n)
{
    ozb_problem s = ozb_problem_part(pr);
    s.m = m;
    s.n = n;
    s.a.p = pr->a.p + i0 * pr->a.rs;
    s.b.p = pr->b.p + j0 * pr->b.rs;
    s.c = pr->c + i0 * pr->crs + j0 * pr->ccs;
    return s;
}

/* The per-call decisions of the dispatch (src/dispatch/plan.h), from the handle's
 * configuration and the problem's shape only, never from timing or thread count. */
typedef struct {
    ozblas_mode_t   mode;      /* the mode the call computes (DOUBLE DOT/GEMV: CORRECTLY_ROUNDED) */
    ozblas_engine_t engine;    /* the slice format it computes with                        */
} ozb_plan;

/* Inner block sizes (shape-only, CONTRACT §3). */
#define OZB_KBLOCK_DOT  ((int64_t)1 << 15)  /* DOT: 19 bits per FP64 slice, blocks in cache */
#define OZB_KBLOCK_MAX  ((int64_t)1 << 20)  /* GEMM and GEMV (a GEMM of one column: the
                                               same grid): 16 bits per FP64 slice at most */
#endif
