/* The earlier rows' sums of a triangular solve on one right-hand side, gathered column block
 * by column block (eft_trcols.c).  Where op(T)'s columns are contiguous (a lower triangle
 * without transpose, or an upper one, read bottom up), the solve rule's sums
 * b_i - sum_{j < s} T_ij x_j (CONTRACT §6) are each a GEMV-N row; instead of one GEMV per
 * block of rows (16 rows across every solved column: one cache line a column, a page apart
 * where lda is large), every strip of eight rows below a solved block takes that block's
 * columns into its running error-free sums, so op(T) is read once, down its columns, as a
 * GEMV-N reads a matrix.  A block's rows are then rounded once: RN(exact), the bits of the
 * rule's GEMV on every path. */
#ifndef OZB_EFT_TRCOLS_H
#define OZB_EFT_TRCOLS_H
#include "core/problem.h"

/* Where op(T)'s columns lie: full storage, op(T)(i, j) = p[i rs + j cs]; or the reference
 * BLAS's packed storage of an m x m triangle (p: AP), lower (op(T) = T, read down its columns,
 * rs = 1) or upper (op(T) = T read from its last row and column, rs = -1, as the full upper
 * triangle is after ozb_tri_solve_op's flip) */
enum { OZB_COLS_FULL, OZB_COLS_PACKED_LOWER, OZB_COLS_PACKED_UPPER };
typedef struct {
    const double *p;
    int64_t rs, cs, m;        /* rs = 1 or -1; m rows; cs: full storage only */
    int kind;                 /* OZB_COLS_* */
    void *st;                 /* two lanes of four per strip of eight rows */
    uint8_t *bad;             /* per strip: its sums left to the caller */
} ozb_trcols_t;

/* the address of op(T)(0, j) (a position in the array whatever the storage: packed upper,
 * T's column m - 1 - j at row m - 1); op(T)(i, j) at that plus i rs */
static inline const double *ozb_trcols_col(const ozb_trcols_t *c, int64_t j)
{
    if (c->kind == OZB_COLS_FULL) return c->p + j * c->cs;
    if (c->kind == OZB_COLS_PACKED_LOWER) return c->p + ozb_packed_at(c->m, 1, 0, j);
    return c->p + ozb_packed_at(c->m, 0, c->m - 1, c->m - 1 - j);
}

/* (offered where ozb_eft_subst_applies: the same kernels, and the solve by columns runs both) */
/* the bytes of the state of m rows (32-byte aligned) */
size_t ozb_eft_trcols_bytes(int64_t m);
/* every sum zero; buf: ozb_eft_trcols_bytes(m) bytes, 32-byte aligned */
void ozb_eft_trcols_init(ozb_trcols_t *c, const double *p, int64_t rs, int64_t cs, int64_t m, int kind, void *buf);
/* Strips b0.. (rows 8 b0 .. m-1) += sum_{c0 <= j < c0 + nb} T_ij x[j], nb <= 16, on nt threads
 * (each strip its own: the split changes nothing).  A strip whose products leave the kernel's
 * range (Inf, NaN, beyond 2^990) is marked bad and no longer read. */
void ozb_eft_trcols_add(const ozb_trcols_t *c, int64_t b0, int64_t c0, int64_t nb, const double *x, int nt);
/* Strip b's rows i (below m), whose sums hold the columns 0..k-1:
 *     x[i] := RN(x[i] - sum_{j < k} T_ij x[j])
 * where certified; fail[i - 8 b] = 1 and x[i] untouched elsewhere (a bad strip, a result at a
 * rounding boundary or zero).  Returns the rows left.  In the standard floating-point
 * environment (core/fpenv.h). */
int64_t ozb_eft_trcols_put(const ozb_trcols_t *c, int64_t b, int64_t k, double *x, uint8_t fail[8]);
#endif
