/* A block of slices: the data every slice format's products engine takes (core/format.h)
 * and the splitting engine (split/split.h) writes. */
#ifndef OZB_SLICES_H
#define OZB_SLICES_H
#include "core/ozb_internal.h"

/* Row flags: a row holding Inf or NaN (no slices; the special-value path computes its
 * elements). */
enum { OZB_ROW_NONFINITE = 1 };

typedef struct {
    int64_t  rows, kb;    /* block shape                                                 */
    int      cap;         /* slices the buffer holds (plus one slot for the remainder)  */
    int      s;           /* max over rows of the slices produced                        */
    int      need;        /* > cap if some row needed more slices than cap              */
    double  *slice;       /* slice t, row i, element l: slice[(t*rows + i)*kb + l]       */
    int32_t *w;           /* w[t*wstride + i]: slice t of row i is digit * 2^w          */
    int64_t  wstride;     /* >= rows                                                     */
    int32_t *ns;          /* ns[i]: slices of row i (0 for a zero or non-finite row)     */
    uint8_t *flag;        /* OZB_ROW_* bits                                              */
} ozb_slices;

#endif
