/* The emulated device (dev_ops.h): host memory, the device layer's calls with the same
 * arguments, GEMMs by plain loops in the device's number types, and the real kernels
 * (kernels/ozb_kernels.cu) compiled for the host and launched with their grid and block
 * sizes in a shuffled order (emu_grid.cc).  OZBLAS_CUDA_EMULATE=1 when a CUDA handle is
 * created picks it, so that the host test suite runs every line of the CUDA backend except
 * the CUDA calls themselves. */
#define _POSIX_C_SOURCE 200112L   /* posix_memalign */
#include "cuda/dev_ops.h"
#include "cuda/emu_grid.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int  enter(ozb_dev *d) { (void)d; return -1; }
static void leave(ozb_dev *d, int token) { (void)d; (void)token; }
static void close_emu(ozb_dev *d) { free(d->impl); d->impl = NULL; }
static void current(ozb_dev *d) { (void)d; }
static void set_stream(ozb_dev *d, void *stream) { (void)d; (void)stream; }
static void *alloc(ozb_dev *d, size_t bytes)
{
    (void)d;
    void *p = NULL;
    return posix_memalign(&p, 256, bytes) ? NULL : p;   /* cudaMalloc's alignment, no slack */
}
static void release(ozb_dev *d, void *p) { (void)d; free(p); }
static int  sync_emu(ozb_dev *d) { (void)d; return 0; }
static int  mem_free(ozb_dev *d, size_t *free_bytes) { (void)d; (void)free_bytes; return -1; }   /* no device limit */
static int  zero(ozb_dev *d, void *p, size_t bytes) { (void)d; memset(p, 0, bytes); return 0; }

/* cudaMemcpy2D's documented rules: "width must not exceed either dpitch or spitch", and an
 * error "if dpitch or spitch exceeds the maximum allowed" (cudaDeviceProp::memPitch,
 * 2^31 - 1 bytes on current GPUs) */
static int copy2d(ozb_dev *d, int to_dev, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  size_t height)
{
    (void)d; (void)to_dev;
    if (width > dpitch || width > spitch || dpitch > INT32_MAX || spitch > INT32_MAX) {
        fprintf(stderr, "ozblas emulated device: cudaMemcpy2D with width %zu, dpitch %zu, spitch %zu: width must not "
                        "exceed either pitch, and a pitch must not exceed memPitch (2^31 - 1)\n", width, dpitch, spitch);
        return 1;   /* cudaErrorInvalidValue */
    }
    for (size_t r = 0; r < height; r++) memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return 0;
}

static int gemm(ozb_dev *d, const ozb_gemm_call *g) { (void)d; return ozb_emu_gemm(g); }

static const ozb_dev_ops emu_ops = {
    .name = "emulated", .enter = enter, .leave = leave, .close = close_emu, .set_stream = set_stream,
    .alloc = alloc, .release = release, .copy2d = copy2d, .sync = sync_emu, .mem_free = mem_free,
    .zero = zero, .current = current, .gemm = gemm,
};

const ozb_dev_ops *ozb_dev_emu_ops(void) { return &emu_ops; }

ozblas_status_t ozb_dev_emu_open(ozb_dev *d, uint64_t order)
{
    ozb_emu_stream *es = calloc(1, sizeof *es);
    if (!es) return OZBLAS_STATUS_ALLOC_FAILED;
    es->rng = order;
    d->ops = &emu_ops;
    d->impl = es;
    d->kl = ozb_kl_host();
    d->kstream = es;
    return OZBLAS_STATUS_SUCCESS;
}
