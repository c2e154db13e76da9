/* The slice formats and their bit budgets (CONTRACT §3). */
#include "core/format.h"
#include "core/backend.h"

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

size_t ozb_no_scratch(int64_t ra, int64_t rb, int64_t kb, int ca, int cb)
{ (void)ra; (void)rb; (void)kb; (void)ca; (void)cb; return 0; }

/* The one format table: the same bits and blocks on every backend, so the same slices and
 * the same results; the products engine comes from the handle's backend. */
static const ozb_format formats[] = {
    { OZBLAS_ENGINE_FP64, "fp64", (int64_t)1 << 20, 0, bits_fp64, NULL, NULL },
    /* FP16 keeps 7 bits per slice with blocks of 2^9 (the block depends on k and format only) */
    { OZBLAS_ENGINE_FP16, "fp16", (int64_t)1 << 9, 1, bits_fp16, NULL, NULL },
    { OZBLAS_ENGINE_INT8, "int8", (int64_t)1 << 17, 1, bits_int8, NULL, NULL },
};

int ozb_format_for(ozblas_handle_t h, ozblas_engine_t engine, ozb_format *out)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (formats[i].id != engine) continue;
        ozb_format_engine eng;
        if (!h->be->format_engine(h, engine, &eng)) return 0;
        if (out) {
            *out = formats[i];
            out->products = eng.products;
            out->scratch_bytes = eng.scratch_bytes;
        }
        return 1;
    }
    return 0;
}

int ozb_int8_fast(ozblas_handle_t h) { return h->be->int8_fast(h); }
