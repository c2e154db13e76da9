/* The backend interface: what a handle's backend (src/cpu, src/cuda) does for the layers
 * above.  One table of function pointers per backend; nothing outside a backend's folder
 * asks which backend a handle has, it calls through h->be.  Adding a backend is one folder
 * that fills this table and one public create function (see docs/ARCHITECTURE.md). */
#ifndef OZB_BACKEND_H
#define OZB_BACKEND_H
#include "core/problem.h"
#include "core/format.h"
#include "core/stage.h"
#include "../../kernels/ozb_shape_ops.h"

typedef struct ozb_backend {
    ozblas_backend_t id;
    const char      *name;
    /* The products engine of slice format `engine` (FP64, FP16, INT8) on this handle; 0
     * where the backend has none (format.c joins it to the format table's row). */
    int (*format_engine)(ozblas_handle_t h, ozblas_engine_t engine, ozb_format_engine *out);
    /* 1 where the INT8 products are fast enough to be picked by default. */
    int (*int8_fast)(ozblas_handle_t h);
    /* What computes format `engine`'s exact products on this handle (static text; NULL where
     * the backend has no such products): ozblas_products_name. */
    const char *(*products_name)(ozblas_handle_t h, ozblas_engine_t engine);
    /* The CRT's product (crt/crt_gemm.h): dst (mbb x nbb, column-major, host) = RB RA^T over
     * kbb <= OZB_CRT_KBLOCK, exactly, or congruent modulo mod > 0; nt threads.  0, or
     * nonzero when the backend failed. */
    int (*crt_gemm)(ozblas_handle_t h, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb,
                    int64_t nbb, int64_t kbb, int32_t *dst, int32_t mod, int nt);
    /* Optional (NULL: the CRT engine folds crt_gemm's host results and reconstructs on the
     * host): modulus t's product of s kept by the backend (fold: a later k-block, folded
     * modulo mod), then every element's reconstruction (consts: ozb_op_crt_consts) into the
     * host array val.  The same element operations, so the same bits. */
    int (*crt_acc)(ozblas_handle_t h, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb,
                   int64_t nbb, int64_t kbb, int s, int t, int fold, int32_t mod);
    int (*crt_recon)(ozblas_handle_t h, const void *consts, int64_t ne, double *val);
    /* C := beta C in the backend's memory (beta == 0: +0, C not read); 0 or nonzero on failure. */
    int (*scale)(ozblas_handle_t h, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta);
    /* Optional (NULL: the operands are host memory, and shapes/ works there): the level-3
     * routines' scratch in the backend's memory (slot: OZB_BUF_SHAPE_A, B or T; NULL on
     * failure), and shape s (kernels/ozb_shape_ops.h) computed there (0, or nonzero on failure). */
    double *(*shape_buf)(ozblas_handle_t h, int slot, size_t bytes);
    int (*shape)(ozblas_handle_t h, const ozb_op_shape *s);
    /* Optional (NULL: the rows one by one, or the host's lane groups): a triangular solve
     * block's in-block rows on the backend's memory (kernels/ozb_shape_ops.h; g->out and g->bad
     * not read), written over X where every row is certified, else *left = 1 and X as it was;
     * 0, or nonzero on failure. */
    int (*subst)(ozblas_handle_t h, const ozb_op_subst *g, int *left);
    /* Optional (NULL: the operands are host memory, scanned there): Inf and NaN in the m x n
     * window x(i, j) = x[i rs + j cs] of the backend's memory, one vector a column: *any = 0
     * where it holds none, else *any = 1 and each column's first and last non-finite row in the
     * host array range[2 j], range[2 j + 1] (-1 where none); 0, or nonzero on failure. */
    int (*nonfinite)(ozblas_handle_t h, const double *x, int64_t rs, int64_t cs, int64_t m, int64_t n, int64_t *range,
                     int *any);
    /* The fewest columns of C (DTRMM: rows or columns) a level-3 routine gives one problem
     * where it cuts C into blocks of its own choosing (shapes.c's triangle, DTRMM's blocks):
     * 0 where the routines' own sizes serve (the CPU's), more where each problem has a fixed
     * cost that small blocks repeat (a device's launches and read-backs, some 0.3 ms a problem
     * on an H200).  A choice of shape, taken only where no bit depends on it (core/parts.h
     * ozb_cuts_free; DTRMM's blocks: correctly rounded results). */
    int64_t min_block;
    /* Optional (NULL: 0): 1 where the engine that computes pr on this handle's backend leaves
     * out the products a problem's tri and zeros mark (core/problem.h), so that a level-3
     * routine gives one problem where it would cut C into blocks: a choice of shape, taken
     * only where no bit depends on it, as min_block. */
    int (*whole_triangles)(ozblas_handle_t h, const ozb_problem *pr);
    /* Optional (NULL, 0: the operands are host memory and the host stages compute every
     * call): the backend's own stages (core/stage.h) on its memory, walked before the host
     * ones, each deciding the whole call or declining with C as it was. */
    const ozb_stage *stages;
    int nstages;
    /* Where the operands are not host memory: host copies of pr's operands in *hp for the
     * host stages (host_begin), and, after them, C's window put back where st is SUCCESS
     * (host_end, called whatever host_begin returned; returns the call's status). */
    ozblas_status_t (*host_begin)(ozblas_handle_t h, const ozb_problem *pr, ozb_problem *hp);
    ozblas_status_t (*host_end)(ozblas_handle_t h, const ozb_problem *pr, ozblas_status_t st);
    /* With host_begin: the bytes copied to the device and to the host, and the waits for the
     * device, since the handle's device opened (the executor reports a call's share in its info). */
    ozb_moves (*moved)(ozblas_handle_t h);
    /* Releases the backend's state (h->dev); NULL where there is none. */
    void (*close)(ozblas_handle_t h);
} ozb_backend;

/* A new handle on backend `be` with the default configuration and the knobs read (the
 * public create functions of the backends call this). */
ozblas_status_t ozb_handle_new(const ozb_backend *be, ozblas_handle_t *out);

/* 1 where the handle's operands are host memory (a backend that stages nothing: the CPU's);
 * the routines computed on the host alone (CONTRACT §6) decline the others */
static inline int ozb_host_operands(ozblas_handle_t h) { return h->be->host_begin == NULL; }
#endif
