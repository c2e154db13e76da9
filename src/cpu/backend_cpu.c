/* The CPU backend (core/backend.h): slice products through OpenBLAS (FP64, FP16) and
 * oneDNN (INT8, where its int8 GEMM is exact on this CPU), the CRT's product, C := beta C
 * on host memory.  Every call into OpenBLAS or oneDNN goes through blas_gate.c. */
#include "core/backend.h"
#include "cpu/blas_gate.h"
#include "cpu/cpu_products.h"

/* 1 when the handle's INT8 and CRT products go through oneDNN: its int8 GEMM is exact on
 * this CPU (blas_gate.c's probe, run on first need) and OZBLAS_NO_DNNL is not set. */
static int dnnl_exact(ozblas_handle_t h)
{
#ifdef OZBLAS_HAVE_DNNL
    return !h->knobs.no_dnnl && ozb_gate_dnnl_exact();
#else
    (void)h;
    return 0;
#endif
}

static int format_engine(ozblas_handle_t h, ozblas_engine_t engine, ozb_format_engine *out)
{
    switch (engine) {
    case OZBLAS_ENGINE_FP64:
    case OZBLAS_ENGINE_FP16:     /* FP16 digits are small integers: DGEMM's products are exact */
        *out = (ozb_format_engine){ ozb_products_fp64, ozb_no_scratch };
        return 1;
#ifdef OZBLAS_HAVE_DNNL
    case OZBLAS_ENGINE_INT8:
        /* oneDNN where it is exact; else the same integers by DGEMM (exact: |d| <= 127,
         * kb <= 2^17, every sum below 2^31 < 2^53): the same bits either way */
        *out = dnnl_exact(h) ? (ozb_format_engine){ ozb_products_int8, ozb_scratch_int8 }
                             : (ozb_format_engine){ ozb_products_fp64, ozb_no_scratch };
        return 1;
#endif
    default:
        return 0;
    }
}

static const char *products_name(ozblas_handle_t h, ozblas_engine_t engine)
{
    (void)h;
    switch (engine) {
    case OZBLAS_ENGINE_FP64:
    case OZBLAS_ENGINE_FP16: return "OpenBLAS DGEMM";
#ifdef OZBLAS_HAVE_DNNL
    case OZBLAS_ENGINE_INT8:
    case OZBLAS_ENGINE_CRT_INT8:
        return dnnl_exact(h) ? "oneDNN int8 GEMM (exact on this CPU: VNNI)"
                             : "OpenBLAS DGEMM on the int8 integers (oneDNN's int8 GEMM is not exact without VNNI)";
#endif
    default: return NULL;
    }
}

static int crt_gemm(ozblas_handle_t h, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb,
                    int64_t nbb, int64_t kbb, int32_t *dst, int32_t mod, int nt)
{
    (void)mod;                   /* always exact on the CPU */
    return ozb_cpu_crt_gemm(RB, colB, RA, colA, mbb, nbb, kbb, dst, nt, dnnl_exact(h));
}

static int scale(ozblas_handle_t h, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    (void)h;
    if (beta == 1.0) return 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double *p = c + i * crs + j * ccs;
            *p = beta == 0.0 ? 0.0 : beta * *p;
        }
    return 0;
}

static const ozb_backend cpu_backend = {
    .id = OZBLAS_BACKEND_CPU,
    .name = "cpu",
    .format_engine = format_engine,
    .int8_fast = dnnl_exact,
    .products_name = products_name,
    .crt_gemm = crt_gemm,
    .crt_acc = NULL,
    .crt_recon = NULL,
    .scale = scale,
    .close = NULL,
};

ozblas_status_t ozblas_create(ozblas_handle_t *handle) { return ozb_handle_new(&cpu_backend, handle); }
