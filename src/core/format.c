/* The slice formats and their bit budgets (CONTRACT §3). */
#include "core/format.h"
#include "cpu/blas_gate.h"
#include "cuda/products_cuda.h"

static int ceil_log2(int64_t k) { int lg = 0; while (((int64_t)1 << lg) < k) lg++; return lg; }

/* FP64: |d| <= 2^b - 1, so a k-term dot product of digits is an integer below
 * k * 2^(2b) <= 2^(2b + ceil(log2 k)) <= 2^53: exact in binary64, in any order. */
static int bits_fp64(int64_t kb) { int b = (53 - ceil_log2(kb)) / 2; return b < 1 ? 1 : b; }

/* FP16 (tensor cores, FP32 accumulation, seed 000 Algorithm 1 with rho for FP32 and
 * seed 003's accumulation model): digits are binary16 integers (b <= 11) and every
 * partial sum stays below 2^(2b + ceil(log2 k)) <= 2^23, one guard bit under FP32's 24,
 * so the tensor core's accumulation is exact whatever its internal order.  On the CPU the
 * same exact integers come from DGEMM, bit for bit what the GPU computes. */
static int bits_fp16(int64_t kb) { int b = (23 - ceil_log2(kb)) / 2; if (b > 11) b = 11; return b < 1 ? 1 : b; }

/* INT8 (seed 004): |d| <= 2^b - 1 <= 127 fits int8, products < 2^(2b) and a k-term sum
 * below 2^(2b + ceil(log2 k)) <= 2^31: exact in int32.  b = 7 up to k = 2^17. */
static int bits_int8(int64_t kb) { int b = (31 - ceil_log2(kb)) / 2; if (b > 7) b = 7; return b < 1 ? 1 : b; }

static size_t no_scratch(int64_t ra, int64_t rb, int64_t kb, int ca, int cb)
{ (void)ra; (void)rb; (void)kb; (void)ca; (void)cb; return 0; }

static const ozb_format formats[] = {
    { OZBLAS_ENGINE_FP64, "fp64", (int64_t)1 << 20, 0, bits_fp64, no_scratch, ozb_products_fp64 },
    /* FP16 keeps 7 bits per slice with blocks of 2^9 (the block depends on k and format only) */
    { OZBLAS_ENGINE_FP16, "fp16", (int64_t)1 << 9, 1, bits_fp16, no_scratch, ozb_products_fp64 },
#ifdef OZBLAS_HAVE_DNNL
    { OZBLAS_ENGINE_INT8, "int8", (int64_t)1 << 17, 1, bits_int8, ozb_scratch_int8, ozb_products_int8 },
#endif
};

/* INT8 where oneDNN is not exact (or not allowed): the same digits and blocks, the same
 * integer products by DGEMM (exact: |d| <= 127, kb <= 2^17, every sum below 2^31 < 2^53). */
static const ozb_format int8_by_dgemm = { OZBLAS_ENGINE_INT8, "int8", (int64_t)1 << 17, 1, bits_int8, no_scratch,
                                          ozb_products_fp64 };

/* The same formats on the CUDA device: same bit budgets and blocks (so the same slices and
 * the same results), products by cuBLAS (src/cuda/products_cuda.c). */
static const ozb_format cuda_formats[] = {
    { OZBLAS_ENGINE_FP64, "fp64", (int64_t)1 << 20, 0, bits_fp64, ozb_scratch_cuda, ozb_products_cuda_fp64 },
    { OZBLAS_ENGINE_FP16, "fp16", (int64_t)1 << 9, 1, bits_fp16, ozb_scratch_cuda, ozb_products_cuda_fp16 },
    { OZBLAS_ENGINE_INT8, "int8", (int64_t)1 << 17, 1, bits_int8, ozb_scratch_cuda, ozb_products_cuda_int8 },
};

static const ozb_format *find(const ozb_format *t, size_t n, ozblas_engine_t engine)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].id == engine) return &t[i];
    return NULL;
}

const ozb_format *ozb_format_of(ozblas_engine_t engine, int dnnl)
{
#ifdef OZBLAS_HAVE_DNNL
    if (engine == OZBLAS_ENGINE_INT8 && !dnnl) return &int8_by_dgemm;
#else
    (void)dnnl;
#endif
    return find(formats, sizeof formats / sizeof formats[0], engine);
}

int ozb_int8_exact_cpu(ozblas_handle_t h)
{
#ifdef OZBLAS_HAVE_DNNL
    return ozb_gate_dnnl_exact() && !h->knobs.no_dnnl;
#else
    (void)h;
    return 0;
#endif
}

const ozb_format *ozb_format_for(ozblas_handle_t h, ozblas_engine_t engine)
{
    if (h->dev) return find(cuda_formats, sizeof cuda_formats / sizeof cuda_formats[0], engine);
    /* only INT8 has a oneDNN route: other lookups never trigger the probe */
    return ozb_format_of(engine, engine == OZBLAS_ENGINE_INT8 && ozb_int8_exact_cpu(h));
}

int ozb_int8_fast(ozblas_handle_t h)
{
    if (h->dev) return 1;                         /* cuBLAS's INT8 GEMM on the tensor cores */
    return ozb_int8_exact_cpu(h);
}
