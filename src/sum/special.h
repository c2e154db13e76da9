/* CONTRACT §4 special values: the IEEE result of the exact computation, per element. */
#ifndef OZB_SPECIAL_H
#define OZB_SPECIAL_H
#include "core/ozb_internal.h"

enum { OZB_CLASS_FINITE = 0, OZB_CLASS_PINF, OZB_CLASS_NINF, OZB_CLASS_NAN };

/* Class of sum_l a(i,l) * b(j,l): NaN if a term is NaN or 0*Inf, or +Inf meets -Inf;
 * else +-Inf if a term is infinite; else finite. */
int ozb_dot_class(const ozb_view *a, int64_t i, const ozb_view *b, int64_t j, int64_t k);

/* Exact sign (-1, 0, 1) of sum_l a(i,l) * b(j,l) for finite entries, from the inputs
 * themselves (a long accumulator): what alpha = +-Inf needs in every mode, also where the
 * slices are truncated (FIXED, DOUBLE). */
int ozb_dot_sign(const ozb_view *a, int64_t i, const ozb_view *b, int64_t j, int64_t k);

/* alpha*S + beta*c where S has class sclass and (when finite) exact sign ssign; c is
 * used only if use_c.  Returns the non-finite result, or sets *finite = 1 when the
 * result is finite (then the caller computes it). */
double ozb_special_combine(double alpha, int sclass, int ssign, double beta, double c, int use_c, int *finite);

#endif
