/* Shared pieces of Ozaki scheme I (src/scheme1): the per-call context, the slice metadata of
 * one side, where an element's partial products live, and the functions the files share:
 *   terms.c     slice metadata, the term walk of one element and the per-element sums
 *   lazy.c      CORRECTLY_ROUNDED GEMM on FP64 slices: leading pairs first, the rest lazily
 *   pipeline.c  the call: tiles (GEMM shapes) or units (DOT/GEMV shapes), ozb_scheme1_run
 * Scheme I computes two modes: CORRECTLY_ROUNDED (both sides split until exact, all pairs,
 * RN(exact)) and FIXED (at most the split count of slices, fast mode's pairs t + u < split
 * count, the handle's summation).  DOUBLE mode never reaches it: the call's plan (src/dispatch)
 * computes it correctly rounded, or through the CRT, whose fallbacks are correctly rounded. */
#ifndef OZB_S1_INTERNAL_H
#define OZB_S1_INTERNAL_H
#include "core/problem.h"
#include "core/format.h"
#include "core/tiles.h"
#include "core/par.h"
#include "sum/special.h"
#include "scheme1/scheme1.h"
#include "split/split.h"
#include "sum/sum.h"
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

typedef struct {
    int limit, fast, dfixed;
    ozblas_summation_t summation;
} run_cfg;

/* Exponents, slice counts and flags of one side, for every k-block:
 * w[(kk*(cap+1) + t)*R + i], ns[kk*R + i], flag[kk*R + i]. */
typedef struct { int32_t *w, *ns; uint8_t *flag; int64_t R; int cap; } meta_t;

typedef struct {
    ozblas_handle_t h;
    const ozb_problem *pr;
    run_cfg cfg;
    int nt;
    int timed;                 /* phase times read the clock (ozb_timed: not for tiny calls) */
    int64_t kb, nkb;
    int beta_bits;
    int capA, capB;
    ozb_format fmt_row;       /* the plan's format on the handle's backend */
    const ozb_format *fmt;    /* &fmt_row */
    int level_sum;         /* pairs on one grid level may be pre-summed exactly (format)     */
    int lazy;              /* CORRECTLY_ROUNDED through lazy_tile (FP64 products, one k-block)  */
    int dcr;               /* lazy_tile multiplies pairs t + u < dcr first                     */
    int64_t lazy_fixups;   /* elements that needed their remaining pairs                       */
    ozb_prod_stats pst;
    int smaxA, smaxB;
    int64_t fallbacks;
    int dev_err;                   /* a device product failed (CUDA handles) */
    int wrote;                     /* a tile or wave of C written: a later failure leaves C partly written */
} ctx_t;

/* Where the partial products of one element live:
 * P(kk, t, u) = P[kk*kkstride + (t*mrows + il) + (u*ncols + jl)*ldp]. */
typedef struct { const double *P; size_t kkstride; int64_t ldp, mrows, ncols; } ploc_t;

/* Per-thread term buffers, one layout for every summation loop:
 * P[maxterms], scratch[2*maxterms+4] (NearSum input), E[maxterms]; 64-byte aligned. */
typedef struct { double *P, *scratch; int32_t *E; } terms_t;

int ozb_s1_meta_alloc(ozblas_handle_t h, meta_t *M, int slot_w, int slot_n, int64_t R, int64_t nkk, int cap);
void ozb_s1_bind(ozb_slices *sl, double *buf, const meta_t *M, int64_t kk, int64_t roff);
ozb_split_params ozb_s1_params_of(const ctx_t *c);
int ozb_s1_block_dmax(const ctx_t *c);
double ozb_s1_element(const ctx_t *c, const meta_t *MA, int64_t ia, const meta_t *MB, int64_t jb, int64_t bkk_base, int bshared, const ploc_t *pl, int64_t il, int64_t jl, int64_t gi, int64_t gj, double *TP, int32_t *TE, double *scratch, int64_t *fb);
size_t ozb_s1_terms_bytes(int64_t maxterms);
char *ozb_s1_terms_alloc(ozblas_handle_t h, int64_t maxterms, int nt);
terms_t ozb_s1_thread_terms(char *tbuf, int64_t maxterms);
int ozb_s1_sum_range(ctx_t *c, const meta_t *MA, const meta_t *MB, int64_t i0, int64_t mcount, int64_t j0, int64_t ncount, int64_t mb_units, const ploc_t *pl_tile, const double *Punits, size_t unit_stride, int bshared);
int ozb_s1_grow(int cap, int need);
int ozb_s1_lazy_levels(int beta, int64_t kb);
void ozb_s1_slice_norms(const ozb_slices *S, double *n1, double *nx, int nt);
int ozb_s1_lazy_tile(ctx_t *c, const meta_t *MA, const meta_t *MB, const ozb_slices *SA, const ozb_slices *SB, double *P, size_t pblock, int64_t ldp, int D, int64_t i0, int64_t j0, void *scr);
run_cfg ozb_s1_config_of(ozblas_handle_t h, ozblas_mode_t mode);
ozblas_status_t ozb_s1_run_tiles(ctx_t *c, int64_t mb, int64_t nb);
ozblas_status_t ozb_s1_run_units(ctx_t *c, int64_t mb);
ozblas_status_t ozb_s1_run_waves(ctx_t *c, int64_t mb, size_t limit);
#endif
