/* The CUDA backend (core/backend.h) and CUDA handles (include/ozblas.h): a CPU handle's
 * configuration plus a device (dev.h), real or emulated.  A call runs device-resident
 * where the resident engines can (resident_crt.c, resident.c); the rest is staged
 * (stage.c): the host methods on host copies, with the products on the device. */
#include "core/backend.h"
#include "core/info.h"
#include "cuda/dev.h"
#include "cuda/products_cuda.h"
#include "cuda/resident.h"
#include "cuda/stage.h"
#include <stdlib.h>

static int format_engine(ozblas_handle_t h, ozblas_engine_t engine, ozb_format_engine *out)
{
    (void)h;
    switch (engine) {   /* cuBLAS: DGEMM, FP16 on the tensor cores with FP32 accumulation, INT8 -> INT32 */
    case OZBLAS_ENGINE_FP64: *out = (ozb_format_engine){ ozb_products_cuda_fp64, ozb_scratch_cuda }; return 1;
    case OZBLAS_ENGINE_FP16: *out = (ozb_format_engine){ ozb_products_cuda_fp16, ozb_scratch_cuda }; return 1;
    case OZBLAS_ENGINE_INT8: *out = (ozb_format_engine){ ozb_products_cuda_int8, ozb_scratch_cuda }; return 1;
    default: return 0;
    }
}

static int int8_fast(ozblas_handle_t h) { (void)h; return 1; }   /* cuBLAS's INT8 GEMM on the tensor cores */

static const char *products_name(ozblas_handle_t h, ozblas_engine_t engine)
{
    (void)h;
    switch (engine) {
    case OZBLAS_ENGINE_FP64: return "cuBLAS DGEMM";
    case OZBLAS_ENGINE_FP16: return "cuBLAS GemmEx FP16 x FP16 -> FP32 (tensor cores)";
    case OZBLAS_ENGINE_INT8:
    case OZBLAS_ENGINE_CRT_INT8: return "cuBLAS GemmEx INT8 x INT8 -> INT32 (tensor cores)";
    default: return NULL;
    }
}

static int crt_gemm(ozblas_handle_t h, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb,
                    int64_t nbb, int64_t kbb, int32_t *dst, int32_t mod, int nt)
{
    (void)nt;
    return ozb_crt_gemm_cuda(h->dev, RB, colB, RA, colA, mbb, nbb, kbb, dst, mod);
}

static int crt_acc(ozblas_handle_t h, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb,
                   int64_t nbb, int64_t kbb, int s, int t, int fold, int32_t mod)
{
    return ozb_crt_gemm_cuda_acc(h->dev, RB, colB, RA, colA, mbb, nbb, kbb, s, t, fold, mod);
}

static int crt_recon(ozblas_handle_t h, const void *consts, int64_t ne, double *val)
{
    return ozb_crt_recon_cuda(h->dev, consts, ne, val);
}

/* the bytes and waits of an operation outside the executor's problems (a scaling, a shape, a
 * flag or rows' positions read back) into the call's report (core/info.h), as the problems'
 * own are */
static void report_moves(ozblas_handle_t h, ozb_moves m0) { ozb_info_moves_add(h, m0, ozb_dev_moved(h->dev), 0); }

static int scale(ozblas_handle_t h, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    const int tok = ozb_dev_enter(h->dev);
    const ozb_moves m0 = ozb_dev_moved(h->dev);
    const int rc = ozb_dev_scale(h->dev, c, crs, ccs, m, n, beta);
    report_moves(h, m0);
    ozb_dev_leave(h->dev, tok);
    return rc;
}

/* the level-3 shapes' scratch and element operations in device memory */
static double *shape_buf(ozblas_handle_t h, int slot, size_t bytes)
{
    const int dslot = slot == OZB_BUF_SHAPE_A ? OZB_DBUF_SHAPE_A : slot == OZB_BUF_SHAPE_B ? OZB_DBUF_SHAPE_B : OZB_DBUF_SHAPE_T;
    const int tok = ozb_dev_lock(h->dev);
    double *p = ozb_dev_buf(h->dev, dslot, bytes);
    ozb_dev_unlock(h->dev, tok);
    return p;
}

static int shape(ozblas_handle_t h, const ozb_op_shape *s)
{
    const int tok = ozb_dev_lock(h->dev);
    const ozb_moves m0 = ozb_dev_moved(h->dev);
    const int rc = ozb_dev_shape(h->dev, s);
    report_moves(h, m0);
    ozb_dev_unlock(h->dev, tok);
    return rc;
}

static int subst(ozblas_handle_t h, const ozb_op_subst *g, int *left)
{
    const int tok = ozb_dev_lock(h->dev);
    const ozb_moves m0 = ozb_dev_moved(h->dev);
    const int rc = ozb_dev_subst(h->dev, g, left);
    report_moves(h, m0);
    ozb_dev_unlock(h->dev, tok);
    return rc;
}

static int nonfinite(ozblas_handle_t h, const double *x, int64_t rs, int64_t cs, int64_t m, int64_t n, int64_t *range,
                     int *any)
{
    const int tok = ozb_dev_lock(h->dev);
    const ozb_moves m0 = ozb_dev_moved(h->dev);
    const int rc = ozb_dev_nonfinite(h->dev, x, rs, cs, m, n, range, any);
    report_moves(h, m0);
    ozb_dev_unlock(h->dev, tok);
    return rc;
}

/* The device-resident engines, the backend's stages (core/stage.h): each computes the whole
 * call on the device or declines before writing anything; what they all decline the host
 * stages compute on host copies (stage.c), with the products on the device. */
static ozblas_status_t eft_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                               int64_t *nfail)
{
    (void)nt; (void)fail; (void)nfail;
    return ozb_resident_eft_run(h, pr, pl);
}
static ozblas_status_t crcr_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                int64_t *nfail)
{
    (void)nt; (void)fail; (void)nfail;
    return ozb_resident_crcr_run(h, pr, pl);
}
static int crt_format(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl)
{
    (void)h; (void)pr;
    return pl->engine == OZBLAS_ENGINE_CRT_INT8;
}
static int slice_format(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl) { return !crt_format(h, pr, pl); }
static ozblas_status_t crt_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                               int64_t *nfail)
{
    (void)nt; (void)fail; (void)nfail;
    return ozb_resident_crt_run(h, pr, pl);
}
static ozblas_status_t slices_run(ozblas_handle_t h, const ozb_problem *pr, const ozb_plan *pl, int nt, uint8_t **fail,
                                  int64_t *nfail)
{
    (void)nt; (void)fail; (void)nfail;
    return ozb_resident_run(h, pr, pl);
}
static ozb_moves moved(ozblas_handle_t h) { return ozb_dev_moved(h->dev); }

static const ozb_stage cuda_stages[] = {
    { .name = "resident error-free DOT/GEMV", .run = eft_run, .skip = OZB_ST_NEXT },   /* CORRECTLY_ROUNDED, n == 1 */
    { .name = "resident exact CRT GEMM", .run = crcr_run, .skip = OZB_ST_NEXT },       /* CORRECTLY_ROUNDED, n > 8 */
    { .name = "resident CRT", .eligible = crt_format, .run = crt_run, .skip = OZB_ST_NEXT },   /* FIXED */
    { .name = "resident slices", .eligible = slice_format, .run = slices_run, .skip = OZB_ST_NEXT },
};

/* The CRT engines leave out the products pblocks.c finds: the exact CRT GEMM, which computes
 * the correctly rounded calls (DOUBLE's too on the slice formats: dispatch/plan.h) of more
 * than 8 columns where the CRT is on, and the CRT_INT8 format's; not where the host stages
 * compute every call (OZBLAS_CUDA_STAGED) */
static int whole_triangles(ozblas_handle_t h, const ozb_problem *pr)
{
    if (h->knobs.cuda_staged) return 0;
    const int cr = h->mode == OZBLAS_MODE_CORRECTLY_ROUNDED ||
                   (h->mode == OZBLAS_MODE_DOUBLE && h->engine != OZBLAS_ENGINE_CRT_INT8);
    return cr ? pr->n > 8 && !h->knobs.no_crt : h->engine == OZBLAS_ENGINE_CRT_INT8;
}

static void close_dev(ozblas_handle_t h) { ozb_dev_close(h->dev); h->dev = NULL; }

static const ozb_backend cuda_backend = {
    .id = OZBLAS_BACKEND_CUDA,
    .name = "cuda",
    .format_engine = format_engine,
    .int8_fast = int8_fast,
    .products_name = products_name,
    .crt_gemm = crt_gemm,
    .crt_acc = crt_acc,
    .crt_recon = crt_recon,
    .scale = scale,
    .shape_buf = shape_buf,
    .shape = shape,
    .subst = subst,
    .nonfinite = nonfinite,
    .min_block = 1024,
    .whole_triangles = whole_triangles,
    .stages = cuda_stages,
    .nstages = (int)(sizeof cuda_stages / sizeof cuda_stages[0]),
    .host_begin = ozb_stage_begin,
    .host_end = ozb_stage_end,
    .moved = moved,
    .close = close_dev,
};

ozblas_status_t ozblas_create_cuda(ozblas_handle_t *handle, int device)
{
    if (!handle || device < 0) return OZBLAS_STATUS_INVALID_VALUE;
    ozblas_handle_t h;
    ozblas_status_t st = ozb_handle_new(&cuda_backend, &h);   /* reads the knobs */
    if (st != OZBLAS_STATUS_SUCCESS) return st;
    ozb_dev *d = NULL;
    const char *why;
    if ((st = ozb_dev_open(device, &h->knobs, &d, &why)) != OZBLAS_STATUS_SUCCESS) { ozblas_destroy(h); return st; }
    h->dev = d;
    *handle = h;
    return OZBLAS_STATUS_SUCCESS;
}

const char *ozblas_cuda_unavailable_reason(int device)
{
    const char *why = "invalid device number";
    ozb_knobs k;
    ozb_knobs_read(&k);
    return ozb_dev_probe(device, &k, &why) == OZBLAS_STATUS_SUCCESS ? NULL : why;
}

ozblas_status_t ozblas_set_stream(ozblas_handle_t h, void *cuda_stream)
{
    if (!h) return OZBLAS_STATUS_INVALID_VALUE;
    if (h->be != &cuda_backend) return OZBLAS_STATUS_NOT_SUPPORTED;
    ozb_dev_set_stream(h->dev, cuda_stream);
    return OZBLAS_STATUS_SUCCESS;
}
