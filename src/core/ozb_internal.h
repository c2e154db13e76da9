/* Internal declarations shared by the drivers and the engines. */
#ifndef OZB_INTERNAL_H
#define OZB_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <stdatomic.h>
#include "ozblas.h"
#include "core/knobs.h"

/* A strided matrix view: element (i, l) is p[i*rs + l*cs].  Rows are what the
 * splitter scales independently (rows of op(A); columns of op(B), i.e. rows of
 * op(B)^T), l runs along the inner dimension k. */
typedef struct { const double *p; int64_t rs, cs; } ozb_view;

static inline double ozb_view_at(const ozb_view *v, int64_t i, int64_t l) { return v->p[i * v->rs + l * v->cs]; }

/* What a backend's memory exchanged with the host: bytes copied each way, and the times the
 * host waited for the device (a copy, which completes before it returns, or a
 * synchronisation), reported in ozblas_info_t. */
typedef struct { uint64_t to_dev, to_host, waits; } ozb_moves;

/* Handle-owned growable buffer: allocated on first need, reused afterwards. */
typedef struct { void *p; size_t bytes; } ozb_buf;

struct ozb_dev;      /* a backend's state, opaque outside its folder (src/cuda/dev.h) */
struct ozb_backend;  /* the backend interface (core/backend.h) */

/* Buffer slots of the workspace (OZB_NBUF: their count). */
enum { OZB_BUF_SA = 0, OZB_BUF_SB, OZB_BUF_WA, OZB_BUF_WB, OZB_BUF_NA, OZB_BUF_NB, OZB_BUF_P,
       OZB_BUF_SCRATCH, OZB_BUF_TERMS, OZB_BUF_LAZY,
       OZB_BUF_FZ_TERMS, OZB_BUF_FZ_TERMS2, OZB_BUF_FZ_DIGITS, OZB_BUF_FZ_THREAD,
       OZB_BUF_EFT,     /* error-free DOT/GEMV (eft/eft_dot.c): its fail flags outlive the fallback's calls */
       OZB_BUF_DEEP,    /* the deep error-free sums (eft/eft_deep.c): their operands and fail flags */
       OZB_BUF_SCALED,  /* the scaled error-free sums (eft/eft_scaled.c): scaled copies and fail flags */
       OZB_BUF_EFT2,    /* the error-free sums run inside the scaled ones */
       OZB_BUF_SMALL,   /* the exact short inner dimensions (exact/exact_small.c): fail flags */
       OZB_BUF_TINY,    /* the exact tiny inner dimensions (exact/exact_tiny.c): fail flags */
       OZB_BUF_SMALL_GEMM, /* the small GEMMs' error-free sums (eft/eft_small_gemm.c): fail flags */
       OZB_BUF_HA, OZB_BUF_HB, OZB_BUF_HC, /* host copies of a device handle's operands */
       OZB_BUF_CRTFAIL, /* DOUBLE-mode CRT (crt/crt.c): the elements it did not certify, for the fallback */
       OZB_BUF_CRTLOW,  /* DOUBLE-mode CRT: a tile's lower bounds of |A||B| */
       OZB_BUF_SHAPE_A, OZB_BUF_SHAPE_B, OZB_BUF_SHAPE_T, /* the level-2/3 shapes (shapes/shapes.h): operands
                                                       * made whole or a solve's column sums, a
                                                       * diagonal block, a copy of B */
       OZB_BUF_SHAPE_P, /* a packed matrix unpacked (blas2/packed.c) */
       OZB_NBUF };
struct ozblas_context {
    const struct ozb_backend *be;     /* the backend's table (core/backend.h) */
    struct ozb_dev    *dev;           /* the backend's state (NULL on the CPU), only its folder looks inside */
    ozblas_mode_t      mode;
    int                split_count;   /* FIXED mode */
    int                fast_mode;     /* FIXED mode */
    ozblas_summation_t summation;     /* FIXED mode */
    ozblas_engine_t    engine;
    ozblas_crt_scaling_t crt_scaling; /* CRT_INT8 FIXED/DOUBLE scaling */
    int                threads;       /* 0 = all cores */
    int64_t            par_work;      /* fewest multiply-adds for threads: 0 = OZB_PAR_WORK */
    size_t             ws_limit;      /* 0 = default */
    int                slice_hint_a, slice_hint_b; /* workspace sizing learnt from earlier calls (never changes a bit) */
    ozb_buf            buf[OZB_NBUF];
    ozblas_info_t      info;          /* read through ozb_info_read: a short DOT's is filled in late */
    /* > 0: the last call was a short DOT of this many products by the error-free split, run
     * with this mode and format (core/info.h: ozb_info_short_dot); info is filled when read */
    int64_t            info_dot_k;
    ozblas_mode_t      info_dot_mode;
    ozblas_engine_t    info_dot_engine;
    ozb_knobs          knobs;         /* read once, at creation (core/knobs.c) */
    _Atomic int        grows;         /* workspace buffers grown (OZBLAS_FAIL_ALLOC counts them, on the
                                         handle for its parts' too) */
    int                out_partial;   /* the call's failure came after part of C was written
                                         (ozb_execute then reports OZBLAS_STATUS_PARTIAL) */
    /* a routine made of several problems (level 3 on a CUDA handle): what they all moved
     * between host and device, reported as the routine's (core/info.h: ozb_info_moves_*) */
    int                moves_on, moves_staged;
    ozb_moves          moves;
    /* a call's host copies of a backend's operands, from its host_begin to its host_end */
    int                stage_token;
    double             stage_t0, stage_t1;
    /* a routine's parts run at once (core/parts.h): their handles, and a part's own handle */
    struct ozblas_context **parts;
    int                nparts;
    struct ozblas_context *root;
};


void  *ozb_buf_get(ozblas_handle_t h, int slot, size_t bytes);   /* NULL on allocation failure */
void   ozb_buf_free_all(ozblas_handle_t h);
size_t ozb_workspace_limit(ozblas_handle_t h);
int    ozb_threads(ozblas_handle_t h);
/* Work (multiply-adds, or elements of a pass) from which a parallel region pays for itself:
 * an OpenMP region costs about a microsecond on the 2-core EPYC, what 2^16 multiply-adds take.
 * The thread count never changes a bit. */
#define OZB_PAR_WORK 65536
/* The threads a call of `work` multiply-adds (m n k) computes with: one below the handle's
 * threshold (OZB_PAR_WORK unless ozblas_set_parallel_threshold set another). */
static inline int ozb_threads_for(ozblas_handle_t h, double work)
{
    return work < (h->par_work > 0 ? (double)h->par_work : OZB_PAR_WORK) ? 1 : ozb_threads(h);
}
double ozb_now(void);
/* ozb_now() where `timed`, else 0: the phase times of calls too small to pay for a clock read */
static inline double ozb_now_if(int timed) { return timed ? ozb_now() : 0.0; }
/* Calls of at least this many multiply-adds (m n k) are timed (info.seconds_*): below it a
 * clock read (25-60 ns in a VM) is a good part of the whole call. */
#define OZB_TIMED_WORK 16384.0
static inline int ozb_timed(double work) { return work >= OZB_TIMED_WORK; }

/* Element (i, j) of the stored triangle of an n x n matrix in the reference BLAS's packed
 * storage (column-major, the lower or the upper triangle): its index in AP.  Also defined as
 * an address for i outside the triangle (i = 0 in a lower one: column j's start less j, >= 0),
 * so that a column's elements are AP + ozb_packed_at(n, lower, 0, j) + i. */
static inline int64_t ozb_packed_at(int64_t n, int lower, int64_t i, int64_t j)
{
    return lower ? j * n - j * (j - 1) / 2 + (i - j) : j * (j + 1) / 2 + i;
}

/* 2^e as a double for -1022 <= e <= 1023, built from its bits (exact, no libm). */
static inline double ozb_pow2(int e) {
    uint64_t b = (uint64_t)(e + 1023) << 52;
    double d; memcpy(&d, &b, sizeof d); return d;
}
/* 2^p as two normal factors for any p with |p| <= 2023: x * g[0] * g[1] is x 2^p, exact
 * when the result is normal or when only its truncation below 1 (0) is used. */
static inline void ozb_pow2_pair(int p, double g[2])
{
    const int p1 = p > 1000 ? 1000 : p < -1000 ? -1000 : p;
    g[0] = ozb_pow2(p1);
    g[1] = ozb_pow2(p - p1);
}

/* Hot loops also get an AVX-512 clone, picked at load time where the CPU has it.  Results do
 * not change: every operation in them is exact or canonically ordered, whatever the width. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define OZB_CLONES __attribute__((target_clones("arch=x86-64-v4", "default")))
#else
#define OZB_CLONES
#endif

static inline uint64_t ozb_bits(double x) { uint64_t b; memcpy(&b, &x, sizeof b); return b; }
/* floor(log2|x|) for finite nonzero x, subnormals included (a subnormal is m 2^-1074). */
static inline int ozb_ilogb(double x)
{
    const uint64_t b = ozb_bits(x) & 0x7fffffffffffffffull;
    const int ef = (int)(b >> 52);
    return ef ? ef - 1023 : 63 - __builtin_clzll(b) - 1074;
}

/* Argument checks shared by the drivers. */
static inline int ozb_valid_op(ozblas_operation_t op) { return op == OZBLAS_OP_N || op == OZBLAS_OP_T; }

#endif
