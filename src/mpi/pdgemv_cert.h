/* PDGEMV in the correctly rounded configurations by certified sums of each process's own
 * block of op(A) (pdgemv_cert.c). */
#ifndef OZB_PDGEMV_CERT_H
#define OZB_PDGEMV_CERT_H
#include "mpi/redist.h"

/* y := RN(alpha op(A) x + beta y) for the windows aw (A), xw (x: a row of its matrix where
 * xrow), yw (y: a row where yrow; held by process row or column `holder`), Y the local array
 * of y; t: op = T.  1 where every element was certified and y written; 0 where nothing was
 * written (*st SUCCESS: the caller computes the call otherwise; else the agreed failure).
 * The same on every process.  Collective over g->comm. */
int ozb_pdgemv_certified(const ozb_pgrid *g, int t, double alpha, const ozb_win *aw, const ozb_win *xw, int xrow, double beta,
                         const ozb_win *yw, int yrow, int holder, double *Y, ozblas_status_t *st);
#endif
