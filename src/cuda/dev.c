/* The device layer (dev.h): what the GPU and the emulated device share (buffers, locking,
 * argument checks, the kernels' side descriptors); the work itself goes through the
 * device's table of operations (dev_ops.h: dev_gpu.c, dev_emu.c). */
#include "cuda/dev_ops.h"
#include "core/tiles.h"
#include <stdlib.h>

ozblas_status_t ozb_dev_open(int device, const ozb_knobs *kn, ozb_dev **out, const char **why)
{
    static const char *none = "";
    *why = none;
    if (device < 0) { *why = "negative device number"; return OZBLAS_STATUS_INVALID_VALUE; }
    ozb_dev *d = calloc(1, sizeof *d);
    if (!d) return OZBLAS_STATUS_ALLOC_FAILED;
    pthread_mutex_init(&d->mu, NULL);
    d->ops = ozb_dev_emu_ops();
    d->device = device;
    /* OZBLAS_CUDA_EMULATE=1 (core/knobs.c): the emulated device; else the GPU */
    const ozblas_status_t st = kn->cuda_emulate ? ozb_dev_emu_open(d, (uint64_t)(uint32_t)kn->cuda_emu_order)
                                                : ozb_dev_gpu_open(d, device, why);
    if (st != OZBLAS_STATUS_SUCCESS) { ozb_dev_close(d); return st; }
    for (int f = 0; f < OZB_FAULTS; f++) d->fail_at[f] = kn->cuda_fail[f];
    *out = d;
    return OZBLAS_STATUS_SUCCESS;
}

ozblas_status_t ozb_dev_probe(int device, const ozb_knobs *kn, const char **why)
{
    static const char *none = "";
    *why = none;
    if (device < 0) { *why = "negative device number"; return OZBLAS_STATUS_INVALID_VALUE; }
    return kn->cuda_emulate ? OZBLAS_STATUS_SUCCESS : ozb_dev_gpu_probe(device, why);
}

void ozb_dev_close(ozb_dev *d)
{
    if (!d) return;
    const int tok = ozb_dev_enter(d);
    for (int i = 0; i < OZB_NDBUF; i++)
        if (d->buf[i]) d->ops->release(d, d->buf[i]);
    d->ops->close(d);
    ozb_dev_leave(d, tok);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

/* the implementation drains the old stream (d->stream) before the new one is recorded */
void  ozb_dev_set_stream(ozb_dev *d, void *stream) { d->ops->set_stream(d, stream); d->stream = stream; }
int   ozb_dev_enter(ozb_dev *d) { return d->ops->enter(d); }
void  ozb_dev_leave(ozb_dev *d, int token) { d->ops->leave(d, token); }
int   ozb_dev_lock(ozb_dev *d) { pthread_mutex_lock(&d->mu); return ozb_dev_enter(d); }
void  ozb_dev_unlock(ozb_dev *d, int token) { ozb_dev_leave(d, token); pthread_mutex_unlock(&d->mu); }

/* Fault injection (OZBLAS_CUDA_FAIL_*): 1 when this call of kind f is the one to fail */
static int injected(ozb_dev *d, int f) { return d->fail_at[f] > 0 && ++d->calls[f] == d->fail_at[f]; }

void *ozb_dev_buf(ozb_dev *d, int slot, size_t bytes)
{
    if (bytes == 0) bytes = 1;
    if (d->bytes[slot] >= bytes) return d->buf[slot];
    if (d->buf[slot]) {                                 /* the old one first: never both held */
        d->ops->release(d, d->buf[slot]);               /* stream-ordered: after the work queued on it */
        d->buf[slot] = NULL;
        d->bytes[slot] = 0;
        d->tag[slot] = 0;
    }
    /* exactly `bytes` (256-byte aligned): the workspace limit bounds what the buffers hold, and
     * the emulated device's buffers end where the caller's need ends, so that the sanitizer
     * build sees a kernel's overrun */
    void *p = injected(d, OZB_FAULT_ALLOC) ? NULL : d->ops->alloc(d, bytes);
    if (!p) return NULL;
    d->buf[slot] = p;
    d->bytes[slot] = bytes;
    d->tag[slot] = 0;
    return p;
}

/* cudaMemcpy2D fails where a pitch exceeds the device's memPitch (2^31 - 1 bytes on current
 * GPUs): one long row is copied as rows of at most OZB_COPY_ROW bytes */
#define OZB_COPY_ROW ((size_t)1 << 30)
static int copy(ozb_dev *d, int to_dev, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                size_t height)
{
    if (width == 0 || height == 0) return 0;
    if (injected(d, OZB_FAULT_COPY)) return 1;                  /* cudaErrorInvalidValue */
    if (to_dev < 2) {                                       /* host <-> device: a wait */
        d->moved[to_dev] += (uint64_t)width * height;
        d->waits++;
    }
    if (height > 1 || width <= OZB_COPY_ROW) return d->ops->copy2d(d, to_dev, dst, dpitch, src, spitch, width, height);
    const size_t rows = width / OZB_COPY_ROW, rest = width - rows * OZB_COPY_ROW;
    int rc = d->ops->copy2d(d, to_dev, dst, OZB_COPY_ROW, src, OZB_COPY_ROW, OZB_COPY_ROW, rows);
    if (!rc && rest)
        rc = d->ops->copy2d(d, to_dev, (char *)dst + rows * OZB_COPY_ROW, rest, (const char *)src + rows * OZB_COPY_ROW,
                            rest, rest, 1);
    return rc;
}

int ozb_dev_put(ozb_dev *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height)
{
    return copy(d, 1, dst, dpitch, src, spitch, width, height);
}

int ozb_dev_get(ozb_dev *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height)
{
    return copy(d, 0, dst, dpitch, src, spitch, width, height);
}

int ozb_dev_copy(ozb_dev *d, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height)
{
    return copy(d, 2, dst, dpitch, src, spitch, width, height);
}

static int sync_dev(ozb_dev *d)
{
    d->waits++;
    return d->ops->sync(d);
}

int ozb_dev_sync(ozb_dev *d) { return sync_dev(d); }

ozb_moves ozb_dev_moved(const ozb_dev *d) { return (ozb_moves){ d->moved[1], d->moved[0], d->waits }; }

size_t ozb_dev_limit(ozb_dev *d, size_t ws_limit, unsigned slots)
{
    size_t free_b = 0, held = 0;
    if (d->ops->mem_free(d, &free_b)) return ws_limit;
    for (int i = 0; i < OZB_NDBUF; i++)
        if (slots >> i & 1) held += d->bytes[i];
    const size_t cap = free_b / 2 + held;
    return ws_limit < cap ? ws_limit : cap;
}

ozblas_status_t ozb_dev_tiles(ozb_dev *d, size_t ws_limit, int64_t m, int64_t n, int64_t mbmax, int64_t nbmax,
                              const ozb_dev_tilebuf *bufs, int nbufs, int64_t *mb, int64_t *nb, void **ptr)
{
    unsigned slots = 0;
    ozb_tile_cost c = { 0.0, 0.0, 0.0, 0.0, 0.0 };
    for (int i = 0; i < nbufs; i++) {
        slots |= 1u << bufs[i].slot;
        c.a += bufs[i].a; c.b += bufs[i].b; c.elem += bufs[i].elem; c.fixed += bufs[i].fixed;
    }
    for (size_t limit = ozb_dev_limit(d, ws_limit, slots);; limit /= 2) {
        if (!ozb_tiles(limit, m < mbmax ? m : mbmax, n < nbmax ? n : nbmax, c, mb, nb)) return OZBLAS_STATUS_NOT_SUPPORTED;
        int ok = 1;
        for (int i = 0; i < nbufs && ok; i++) {
            const ozb_dev_tilebuf *t = &bufs[i];
            const double bytes = t->a * (double)*mb + t->b * (double)*nb + t->elem * (double)*mb * (double)*nb + t->fixed;
            ok = (ptr[i] = ozb_dev_buf(d, t->slot, (size_t)bytes)) != NULL;
        }
        if (ok) return OZBLAS_STATUS_SUCCESS;
        if (*mb == 1 && *nb == 1) return OZBLAS_STATUS_ALLOC_FAILED;
    }
}

int ozb_dev_zero(ozb_dev *d, void *p, size_t bytes) { return bytes == 0 ? 0 : d->ops->zero(d, p, bytes); }

/* the cuBLAS types of each operand type: FP64 in IEEE FP64 (the pedantic compute type: no
 * fixed-point emulation of FP64, whatever cuBLAS's math mode or environment says), binary16
 * on the tensor cores with FP32 accumulation (never 16F or TF32 compute), int8 with int32
 * accumulation */
static const struct { ozb_cu_type ab, c; ozb_cu_compute compute; } cu_types[] = {
    [OZB_DT_F64] = { OZB_CU_R_64F, OZB_CU_R_64F, OZB_CU_COMPUTE_64F_PEDANTIC },
    [OZB_DT_F16] = { OZB_CU_R_16F, OZB_CU_R_32F, OZB_CU_COMPUTE_32F },
    [OZB_DT_S8]  = { OZB_CU_R_8I, OZB_CU_R_32I, OZB_CU_COMPUTE_32I },
};

static int gemm_call(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                     int64_t sa, const void *B, int64_t ldb, int64_t sb, void *C, int64_t ldc, int64_t sc, int64_t batch)
{
    if (m <= 0 || n <= 0 || batch < 0) return 0;
    /* cuBLAS takes int sizes (the tiles stay far below) */
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || lda > INT32_MAX || ldb > INT32_MAX || ldc > INT32_MAX ||
        batch > INT32_MAX)
        return -1;
    const ozb_gemm_call g = { ta, tb, m, n, k, A, lda, sa, B, ldb, sb, C, ldc, sc, batch,
                              cu_types[type].ab, cu_types[type].c, cu_types[type].compute };
    return injected(d, OZB_FAULT_BLAS) ? 1000 + 13 : d->ops->gemm(d, &g);   /* CUBLAS_STATUS_EXECUTION_FAILED */
}

int ozb_dev_gemm(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k,
                 const void *A, int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc)
{
    return gemm_call(d, type, ta, tb, m, n, k, A, lda, 0, B, ldb, 0, C, ldc, 0, 0);
}

int ozb_dev_gemm_batched(ozb_dev *d, ozb_dt type, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *A,
                         int64_t lda, int64_t sa, const void *B, int64_t ldb, int64_t sb, void *C, int64_t ldc,
                         int64_t sc, int64_t batch)
{
    return batch <= 0 ? 0 : gemm_call(d, type, ta, tb, m, n, k, A, lda, sa, B, ldb, sb, C, ldc, sc, batch);
}

/* ---- the kernels: the device current, the launch on the kernels' stream ---- */
#define KL(name, ...) (injected(d, OZB_FAULT_LAUNCH) ? 719 /* cudaErrorLaunchFailure */ \
                                                   : (d->ops->current(d), d->kl->name(__VA_ARGS__, d->kstream)))
int ozb_dev_u8_to_s8_mod(ozb_dev *d, const uint8_t *src, int8_t *dst, int64_t n, int32_t m)
{ return KL(u8_to_s8_mod, src, dst, n, m); }
int ozb_dev_u8_nibbles(ozb_dev *d, const uint8_t *src, int8_t *hi, int8_t *lo, int64_t n)
{ return KL(u8_nibbles, src, hi, lo, n); }
int ozb_dev_hi_lo(ozb_dev *d, const int32_t *hi, const int32_t *lo, int32_t *dst, int64_t n)
{ return KL(hi_lo, hi, lo, dst, n); }
int ozb_dev_skinny_i32(ozb_dev *d, const int32_t *A, const double *X, double *P, int64_t M, int64_t N, int64_t kb, int64_t ldp)
{ return N > OZB_SKINNY_MAX_N ? -1 : KL(skinny_i32, A, X, P, M, N, kb, ldp); }
int ozb_dev_crt_fold(ozb_dev *d, int32_t *acc, const int32_t *src, int64_t ne, int32_t m)
{ return KL(crt_fold, acc, src, ne, m); }
int ozb_dev_crt_recon(ozb_dev *d, const int32_t *C, int64_t ne, const void *consts, double *out)
{ return KL(crt_recon, C, ne, consts, out); }
int ozb_dev_scale(ozb_dev *d, double *c, int64_t crs, int64_t ccs, int64_t m, int64_t n, double beta)
{
    const int e = KL(scale, c, crs, ccs, m, n, beta);
    return e ? e : sync_dev(d);
}

int ozb_dev_shape(ozb_dev *d, const ozb_op_shape *s)
{
    const int e = KL(shape, s);
    return e ? e : sync_dev(d);
}

int ozb_dev_subst(ozb_dev *d, const ozb_op_subst *g, int *left)
{
    ozb_op_subst a = *g;
    a.bad = ozb_dev_buf(d, OZB_DBUF_FLAGS, sizeof(int));
    a.out = ozb_dev_buf(d, OZB_DBUF_ALT, sizeof(double) * (size_t)g->bs * (size_t)g->nrhs);
    if (!a.bad || !a.out) {   /* no scratch: the block by the exact rows */
        *left = 1;
        return 0;
    }
    /* the solved rows copied over X unless a row was declined (the copy reads the flag on the
     * device), then the flag read back: one wait, after both launches */
    const ozb_op_shape cp = { .kind = OZB_SHAPE_COPY, .m = g->bs, .n = g->nrhs, .src = a.out, .srs = 1, .scs = g->bs,
                              .dst = (double *)g->x, .drs = g->xrs, .dcs = g->xcs, .skip = a.bad };
    int e = ozb_dev_zero(d, a.bad, sizeof(int));
    if (!e) e = KL(subst, &a);
    if (!e) e = KL(shape, &cp);
    if (e) sync_dev(d);                    /* what was queued is done with T and X on return */
    return e ? e : ozb_dev_get(d, left, sizeof(int), a.bad, sizeof(int), sizeof(int), 1);
}

int ozb_dev_nonfinite(ozb_dev *d, const double *x, int64_t rs, int64_t cs, int64_t m, int64_t n, int64_t *range,
                      int *any)
{
    ozb_op_nonfinite g = { x, rs, cs, m, n, ozb_dev_buf(d, OZB_DBUF_FLAGS, sizeof(int)), NULL };
    *any = 0;
    if (m <= 0 || n <= 0) return 0;
    if (!g.any) return -1;
    /* the flag of the window read along its contiguous dimension (coalesced): any element
     * counts, whichever is the vectors' direction */
    ozb_op_nonfinite g1 = g;
    if (rs > cs) { g1.rs = cs; g1.cs = rs; g1.m = n; g1.n = m; }
    int e = ozb_dev_zero(d, g.any, sizeof(int));
    if (!e) e = KL(nonfinite_any, &g1);
    if (!e) e = ozb_dev_get(d, any, sizeof(int), g.any, sizeof(int), sizeof(int), 1);
    if (e || !*any) return e;
    const size_t bytes = sizeof(int64_t) * 2 * (size_t)n;
    g.range = ozb_dev_buf(d, OZB_DBUF_ALT, bytes);
    if (!g.range) return -1;
    e = KL(nonfinite_cols, &g);
    return e ? e : ozb_dev_get(d, range, bytes, g.range, bytes, bytes, 1);
}

/* ---- the device-resident engine ---- */
static ozb_op_side side_of(const ozb_view *v, int64_t r0, int64_t rows, int64_t R, int64_t k, int64_t kb)
{
    const int64_t nkb = (k + kb - 1) / kb;
    ozb_op_side sd = { v->p, v->rs, v->cs, r0, rows, R, k, kb, nkb, ozb_op_nch(v->rs, kb) };
    return sd;
}

int ozb_dev_meta(ozb_dev *d, const ozb_view *v, int64_t rows, int64_t k, int64_t kb, int beta, int limit, uint64_t *mx,
                 int32_t *low, int32_t *e, int32_t *ns)
{
    const ozb_op_side sd = side_of(v, 0, rows, rows, k, kb);
    return KL(meta, &sd, beta, limit, mx, low, e, ns);
}

int ozb_dev_split(ozb_dev *d, ozb_dt type, const ozb_view *v, int64_t r0, int64_t rows, int64_t R, int64_t k,
                  int64_t kb, int beta, const int32_t *e, const int32_t *ns, int s, int64_t kbp, int rowfast, void *S)
{
    const ozb_op_side sd = side_of(v, r0, rows, R, k, kb);
    return KL(split, &sd, (int)type, beta, e, ns, s, kbp, rowfast, S, sd.nkb * rows * kbp);
}

int ozb_dev_fused(ozb_dev *d, const ozb_view *a, int64_t r0, int64_t rows, int64_t R, int64_t k, int64_t kb, int beta,
                  const int32_t *eA, const int32_t *nsA, int sa, const double *SX, int sb, int64_t kbp, double *P)
{
    if (sa > OZB_OP_FUSED_MAXS || sb > OZB_OP_FUSED_MAXS) return -1;
    const ozb_op_side sd = side_of(a, r0, rows, R, k, kb);
    return KL(fused, &sd, beta, eA, nsA, sa, SX, sb, kbp, P);
}

int ozb_dev_fused_dot(ozb_dev *d, const ozb_view *a, const ozb_view *b, int64_t k, int64_t kb, int beta, const int32_t *eA,
                      const int32_t *nsA, int sa, const int32_t *eB, const int32_t *nsB, int sb, double *P)
{
    if (sa > OZB_OP_FUSED_MAXS || sb > OZB_OP_FUSED_MAXS) return -1;
    const ozb_op_side sd = side_of(a, 0, 1, 1, k, kb), sy = side_of(b, 0, 1, 1, k, kb);
    return KL(fused_dot, &sd, &sy, beta, eA, nsA, sa, eB, nsB, sb, P);
}

int ozb_dev_sum(ozb_dev *d, const ozb_op_sum_args *g)
{
    void *la = NULL;
    if (g->exact && g->mb > 0 && g->nb > 0) {   /* the exact sum's accumulators (kernels/ozb_kernels.h) */
        la = ozb_dev_buf(d, OZB_DBUF_LA, sizeof(ozb_longacc) * (size_t)ozb_kl_sum_accumulators(g->mb * g->nb, g->nkb, 1));
        if (!la) return -2;
    }
    return KL(sum, g, la);
}

/* ---- the CRT format ---- */
int ozb_dev_crt_rows(ozb_dev *d, const ozb_view *v, int64_t rows, int64_t k, ozb_op_crt_row *out)
{
    const ozb_op_side sd = side_of(v, 0, rows, rows, k, k);
    return KL(crt_rows, &sd, out);
}

/* rows r0..r0+rows-1 over l0..l0+kbb-1: a side of its own */
static ozb_op_side block_of(const ozb_view *v, int64_t r0, int64_t rows, int64_t l0, int64_t kbb)
{
    const ozb_view vb = { v->p + l0 * v->cs, v->rs, v->cs };
    return side_of(&vb, r0, rows, r0 + rows, kbb, kbb);
}

int ozb_dev_crt_residues(ozb_dev *d, const ozb_view *v, int64_t r0, int64_t rows, int64_t l0, int64_t kbb,
                         const double *f1, const double *f2, const ozb_op_crt_res *rc, int64_t kbp, int8_t *out)
{
    const ozb_op_side sd = block_of(v, r0, rows, l0, kbb);
    return KL(crt_residues, &sd, f1, f2, rc, kbp, out, rows * kbp);
}

int ozb_dev_crt_out(ozb_dev *d, const ozb_op_crt_out_args *g) { return KL(crt_out, g); }

int ozb_dev_crt_hats(ozb_dev *d, const ozb_view *v, int64_t r0, int64_t rows, int64_t l0, int64_t kbb, const int32_t *e,
                     const int32_t *hs, int64_t kbp, int8_t *out)
{
    const ozb_op_side sd = block_of(v, r0, rows, l0, kbb);
    return KL(crt_hats, &sd, e, hs, kbp, out, rows * kbp);
}

int ozb_dev_crt_cert(ozb_dev *d, const ozb_op_crt_cert_args *g, double *count) { return KL(crt_cert, g, count); }

int ozb_dev_crt_flagged(ozb_dev *d, const uint8_t *flags, int64_t ne, int64_t cap, double *count, int64_t *pos)
{ return KL(crt_flagged, flags, ne, cap, count, pos); }

int ozb_dev_crt_window(ozb_dev *d, const uint8_t *flags, int64_t m, int64_t ne, uint64_t *win)
{ return KL(crt_window, flags, m, ne, (unsigned long long *)win); }

int ozb_dev_crt_quant(ozb_dev *d, const ozb_view *v, int64_t r0, int64_t rows, int64_t l0, int64_t kbb, const int32_t *e,
                      int bits, int64_t kbp, int8_t *lo, int8_t *hi)
{
    const ozb_op_side sd = block_of(v, r0, rows, l0, kbb);
    return KL(crt_quant, &sd, e, bits, kbp, lo, hi, rows * kbp);
}

int ozb_dev_crt_bound_acc(ozb_dev *d, const int32_t *Ulo, const int32_t *Uhi, double *Ud, int first, int64_t ne)
{ return KL(crt_bound_acc, Ulo, Uhi, Ud, first, ne); }

int ozb_dev_crt_zmax(ozb_dev *d, const double *Ud, int64_t mbb, int64_t nbb, int64_t i0, int64_t j0, const int32_t *eB,
                     const int32_t *cB, uint64_t *Z)
{ return KL(crt_zmax, Ud, mbb, nbb, i0, j0, eB, cB, Z); }

int ozb_dev_eft_dot(ozb_dev *d, const ozb_op_eft_args *g, void *part, double *res, int *bad)
{
    return KL(eft_dot, g, part, res, bad);
}

int ozb_dev_eft_put(ozb_dev *d, const double *res, int64_t m, double *c, int64_t crs, const int *skip)
{
    return KL(eft_put, res, m, c, crs, skip);
}

int ozb_dev_eft_keep(ozb_dev *d, double *keep, int64_t m, const double *c, int64_t crs)
{
    const ozb_op_shape cp = { .kind = OZB_SHAPE_COPY, .m = m, .n = 1, .src = c, .srs = crs, .dst = keep, .drs = 1 };
    return m > 0 ? KL(shape, &cp) : 0;
}

int ozb_dev_crcr_recon(ozb_dev *d, const ozb_op_crcr_args *g) { return KL(crcr_recon, g); }

int *ozb_dev_buf_tag(ozb_dev *d, int slot) { return &d->tag[slot]; }

int ozb_dev_crcr_ka(ozb_dev *d, const uint64_t *mx, const int32_t *low, int32_t *ka, int *ok, int64_t rows)
{
    return KL(crcr_ka, mx, low, ka, ok, rows);
}
