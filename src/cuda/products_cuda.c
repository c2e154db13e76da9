/* The slice formats' products on the CUDA device (dev.h): the same exact products as the
 * CPU engines (cpu/product_*.c), so every later step sees the same numbers and the
 * results are the CPU's bit for bit.
 *
 * Layout: a slice set is (s * rows) x kb row-major on the host, i.e. kb x (s * rows)
 * column-major, so P = A^T B is the "TN" GEMM (the layout the integer tensor cores take).
 * FP16 and INT8 digits are converted on the host into the device's number type with the
 * inner dimension padded to a multiple of 16 by zeros (tensor-core friendly leading
 * dimensions; zeros add nothing), sent, multiplied, and the float / int32 products are
 * widened to double on the host (exact: they are integers below 2^24 / 2^31). */
#include "cuda/products_cuda.h"
#include <stdlib.h>
#include "../../kernels/ozb_kernel_ops.h"

static int64_t pad16(int64_t k) { return (k + 15) & ~(int64_t)15; }

static size_t elem_bytes(ozb_dt t) { return t == OZB_DT_F64 ? 8 : t == OZB_DT_F16 ? 2 : 1; }

size_t ozb_scratch_cuda(int64_t ra, int64_t rb, int64_t kb, int ca, int cb)
{
    /* narrow copies of both sides (padded k; int32 for the INT32-packed skinny path) and
     * 4-byte products for every pair */
    return (size_t)4 * pad16(kb) * ((size_t)ca * ra + (size_t)cb * rb) + 4 * (size_t)ca * ra * cb * rb + 128;
}

/* host digits (doubles) -> the device type, rows of length kb into rows of length kp */
static void narrow(ozb_dt type, const double *src, int64_t rows, int64_t kb, int64_t kp, void *dst)
{
    for (int64_t r = 0; r < rows; r++) {
        const double *s = src + r * kb;
        if (type == OZB_DT_F16) {
            uint16_t *o = (uint16_t *)dst + r * kp;
            for (int64_t l = 0; l < kb; l++) o[l] = ozb_op_f16_of_int(s[l]);    /* |digit| <= 2^11 - 1: exact */
            for (int64_t l = kb; l < kp; l++) o[l] = 0;
        } else {
            int8_t *o = (int8_t *)dst + r * kp;
            for (int64_t l = 0; l < kb; l++) o[l] = (int8_t)s[l];                /* |digit| <= 127: exact */
            for (int64_t l = kb; l < kp; l++) o[l] = 0;
        }
    }
}

/* DOT and GEMV shapes with FP64 digits (op(B) has at most 16 slice columns): op(A)'s digits
 * INT32-packed (half the bytes of doubles to send and to read), the custom skinny kernel
 * (cuBLAS is slow at this shape, seed 001 §6).  All pairs are computed; the pipeline reads
 * the ones it asked for. */
static int skinny_i32(ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, double *P, int64_t ldp, void *scratch,
                      ozb_prod_stats *st)
{
    const int64_t kb = A->kb, M = A->rows * A->s, N = B->rows * B->s;
    int32_t *a32 = scratch;
    for (int64_t e = 0; e < M * kb; e++) a32[e] = (int32_t)A->slice[e];    /* |digit| <= 2^26 - 1: exact */
    int rc;
    int32_t *dA = ozb_dev_buf(dev, OZB_DBUF_A, 4 * (size_t)M * kb);
    double *dB = ozb_dev_buf(dev, OZB_DBUF_B, 8 * (size_t)N * kb), *dC = ozb_dev_buf(dev, OZB_DBUF_C, 8 * (size_t)M * N);
    if (!dA || !dB || !dC) return -2;
    if ((rc = ozb_dev_put(dev, dA, 4 * (size_t)kb, a32, 4 * (size_t)kb, 4 * (size_t)kb, (size_t)M))) return rc;
    if ((rc = ozb_dev_put(dev, dB, 8 * (size_t)kb, B->slice, 8 * (size_t)kb, 8 * (size_t)kb, (size_t)N))) return rc;
    if ((rc = ozb_dev_skinny_i32(dev, dA, dB, dC, M, N, kb, M))) return rc;
    if ((rc = ozb_dev_get(dev, P, 8 * (size_t)ldp, dC, 8 * (size_t)M, 8 * (size_t)M, (size_t)N))) return rc;
    st->calls += 1;
    st->pairs += (int64_t)A->s * B->s;
    st->flops += 2.0 * (double)M * (double)N * (double)kb;
    return 0;
}

static int products(ozb_dev *dev, ozb_dt type, const ozb_slices *A, const ozb_slices *B, int dmax, double *P,
                    int64_t ldp, void *scratch, ozb_prod_stats *st)
{
    const int64_t mr = A->rows, nr = B->rows, kb = A->kb;
    const int sa = A->s, sb = B->s;
    if (sa == 0 || sb == 0) return 0;
    const int all_pairs = dmax <= 0 || dmax >= sa + sb - 1;
    const int64_t M = mr * sa, N = nr * sb;
    const int64_t kp = type == OZB_DT_F64 ? kb : pad16(kb);
    const size_t eb = elem_bytes(type), ob = type == OZB_DT_F64 ? 8 : 4;
    int rc = 0;
    const int tok = ozb_dev_lock(dev);
    if (type == OZB_DT_F64 && N <= OZB_SKINNY_MAX_N && scratch) {
        rc = skinny_i32(dev, A, B, P, ldp, scratch, st);
        goto out;
    }
    void *dA = ozb_dev_buf(dev, OZB_DBUF_A, eb * (size_t)M * kp);
    void *dB = ozb_dev_buf(dev, OZB_DBUF_B, eb * (size_t)N * kp);
    void *dC = ozb_dev_buf(dev, OZB_DBUF_C, ob * (size_t)M * N);
    if (!dA || !dB || !dC) { rc = -2; goto out; }
    const void *hA = A->slice, *hB = B->slice;
    void *hC = P;                                    /* FP64: products land in P directly */
    if (type != OZB_DT_F64) {
        char *a8 = scratch, *b8 = a8 + eb * (size_t)M * kp;
        hC = b8 + eb * (size_t)N * kp;
        hC = (void *)(((uintptr_t)hC + 63) & ~(uintptr_t)63);
        narrow(type, A->slice, M, kb, kp, a8);
        narrow(type, B->slice, N, kb, kp, b8);
        hA = a8; hB = b8;
    }
    if ((rc = ozb_dev_put(dev, dA, eb * kp, hA, eb * kp, eb * kp, (size_t)M))) goto out;
    if ((rc = ozb_dev_put(dev, dB, eb * kp, hB, eb * kp, eb * kp, (size_t)N))) goto out;
    /* the pairs to multiply: all, or per slice t of A those with u <= dmax - 1 - t (fast mode) */
    int64_t ncols[1024];
    const int tmax = sa < 1024 ? sa : 1024;
    if (all_pairs) {
        if ((rc = ozb_dev_gemm(dev, type, 1, 0, M, N, kp, dA, kp, dB, kp, dC, M))) goto out;
        st->calls += 1; st->pairs += (int64_t)sa * sb;
        st->flops += 2.0 * (double)M * (double)N * (double)kb;
    } else {
        for (int t = 0; t < tmax; t++) {
            int qn = dmax - t;
            if (qn > sb) qn = sb;
            ncols[t] = qn > 0 ? nr * qn : 0;
            if (qn <= 0) continue;
            if ((rc = ozb_dev_gemm(dev, type, 1, 0, mr, ncols[t], kp, (const char *)dA + eb * (size_t)t * mr * kp, kp,
                                   dB, kp, (char *)dC + ob * (size_t)t * mr, M))) goto out;
            st->calls += 1; st->pairs += qn;
            st->flops += 2.0 * (double)mr * (double)ncols[t] * (double)kb;
        }
    }
    /* back to the host, laid out like P (leading dimension ldp for FP64, M for the rest) */
    const size_t hld = type == OZB_DT_F64 ? (size_t)ldp : (size_t)M;
    if (all_pairs) {
        if ((rc = ozb_dev_get(dev, hC, ob * hld, dC, ob * (size_t)M, ob * (size_t)M, (size_t)N))) goto out;
    } else {
        for (int t = 0; t < tmax; t++)
            if (ncols[t] && (rc = ozb_dev_get(dev, (char *)hC + ob * (size_t)t * mr, ob * hld, (const char *)dC + ob * (size_t)t * mr,
                                              ob * (size_t)M, ob * (size_t)mr, (size_t)ncols[t]))) goto out;
    }
    if (type != OZB_DT_F64) {
        for (int t = 0; t < sa; t++) {
            const int64_t cols = all_pairs ? N : (t < tmax ? ncols[t] : 0);
            for (int64_t j = 0; j < cols; j++)
                for (int64_t i = t * mr; i < (t + 1) * mr; i++)
                    P[i + j * ldp] = type == OZB_DT_F16 ? (double)((const float *)hC)[i + j * M]
                                                        : (double)((const int32_t *)hC)[i + j * M];
        }
    }
out:
    ozb_dev_unlock(dev, tok);
    return rc;
}

int ozb_products_cuda_fp64(ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                           void *scratch, int threads, ozb_prod_stats *st)
{
    (void)threads;
    return products(dev, OZB_DT_F64, A, B, dmax, P, ldp, scratch, st);
}

int ozb_products_cuda_fp16(ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                           void *scratch, int threads, ozb_prod_stats *st)
{
    (void)threads;
    return products(dev, OZB_DT_F16, A, B, dmax, P, ldp, scratch, st);
}

int ozb_products_cuda_int8(ozb_dev *dev, const ozb_slices *A, const ozb_slices *B, int dmax, double *P, int64_t ldp,
                           void *scratch, int threads, ozb_prod_stats *st)
{
    (void)threads;
    return products(dev, OZB_DT_S8, A, B, dmax, P, ldp, scratch, st);
}

/* The CRT format's product on the device, into device memory dst (mbb x nbb, leading
 * dimension mbb): dst(i, j) = sum_l RA(i, l) RB(j, l).  RB's uint8 residues become int8 of the
 * same class modulo m (kernels/ozb_kernel_ops.h); m == 0 asks for the exact integer (values of
 * RB up to 255), by the two-nibble split, whose partial products use OZB_DBUF_C.  The caller
 * holds the device lock; dst is not in OZB_DBUF_A, B, B2 or C.
 *
 * cuBLAS's INT8 GEMM (CUBLAS_COMPUTE_32I) is called only in the one layout an H100 with
 * cuBLAS 13.1 ran for every shape probed: transa = T, transb = N, with k, lda and ldb
 * multiples of 4 and A, B on 256-byte boundaries (of 27,436 shapes probed per ldc
 * choice -- m, n, k in {1..9, 12, 13, 16, 17, 32, 33, 40, 65, 77, 301}, the four transposes
 * -- NN, NT and TT were refused for 30-97 % of them, some with every size a multiple of 4,
 * and TN for k = 1 or 301 whenever n >= 17; TN with k a multiple of 4 never was).  So both
 * sides go up with k contiguous, k padded to a multiple of 4 by zeros (which add nothing):
 * a side whose host residues are column-major (k strided) is transposed on the host first. */
static int64_t pad4(int64_t x) { return (x + 3) & ~(int64_t)3; }
static size_t al256(size_t b) { return (b + 255) & ~(size_t)255; }

/* rows x kb column-major bytes (element (r, l) at r + l rows) -> row-major (r * kb + l) */
static void *k_rows(const void *src, int col, int64_t rows, int64_t kb, void **owned)
{
    *owned = NULL;
    if (!col || rows == 1) return (void *)src;           /* one row: the same bytes either way */
    uint8_t *t = malloc((size_t)rows * (size_t)kb);
    if (!t) return NULL;
    const uint8_t *s = src;
    for (int64_t l = 0; l < kb; l++)
        for (int64_t r = 0; r < rows; r++) t[r * kb + l] = s[r + l * rows];
    return *owned = t;
}

static int crt_product(ozb_dev *dev, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb, int64_t nbb,
                       int64_t kbb, int32_t m, int32_t *dst)
{
    const int64_t k4 = pad4(kbb);
    const size_t na = (size_t)(k4 * mbb), nb = (size_t)(k4 * nbb), ne = (size_t)mbb * nbb;
    int rc = -2;
    void *ownA, *ownB;
    const int8_t *hA = k_rows(RA, colA, mbb, kbb, &ownA);
    const uint8_t *hB = k_rows(RB, colB, nbb, kbb, &ownB);
    int8_t  *dA = ozb_dev_buf(dev, OZB_DBUF_A, na);
    uint8_t *dU = ozb_dev_buf(dev, OZB_DBUF_B2, nb);
    int8_t  *dB = ozb_dev_buf(dev, OZB_DBUF_B, m ? nb : al256(nb) + nb);
    int32_t *dC = m ? NULL : ozb_dev_buf(dev, OZB_DBUF_C, 4 * 2 * ne);
    if (!hA || !hB || !dA || !dU || !dB || (!m && !dC)) goto out;
    if (k4 != kbb && ((rc = ozb_dev_zero(dev, dA, na)) || (rc = ozb_dev_zero(dev, dU, nb)))) goto out;
    if ((rc = ozb_dev_put(dev, dA, (size_t)k4, hA, (size_t)kbb, (size_t)kbb, (size_t)mbb))) goto out;
    if ((rc = ozb_dev_put(dev, dU, (size_t)k4, hB, (size_t)kbb, (size_t)kbb, (size_t)nbb))) goto out;
    if (m) {
        if ((rc = ozb_dev_u8_to_s8_mod(dev, dU, dB, (int64_t)nb, m))) goto out;   /* 0 -> 0: the padding stays zero */
        rc = ozb_dev_gemm(dev, OZB_DT_S8, 1, 0, mbb, nbb, k4, dA, k4, dB, k4, dst, mbb);
    } else {
        int8_t *hi = dB, *lo = dB + al256(nb);
        int32_t *chi = dC, *clo = dC + ne;
        if ((rc = ozb_dev_u8_nibbles(dev, dU, hi, lo, (int64_t)nb))) goto out;
        if ((rc = ozb_dev_gemm(dev, OZB_DT_S8, 1, 0, mbb, nbb, k4, dA, k4, hi, k4, chi, mbb))) goto out;
        if ((rc = ozb_dev_gemm(dev, OZB_DT_S8, 1, 0, mbb, nbb, k4, dA, k4, lo, k4, clo, mbb))) goto out;
        rc = ozb_dev_hi_lo(dev, chi, clo, dst, (int64_t)ne);
    }
out:
    free(ownA);
    free(ownB);
    return rc;
}

/* crt/crt_gemm.h's product on the device, the result brought back to the host (dst) */
int ozb_crt_gemm_cuda(ozb_dev *dev, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb, int64_t nbb,
                      int64_t kbb, int32_t *dst, int32_t m)
{
    const size_t ne = (size_t)mbb * nbb;
    const int tok = ozb_dev_lock(dev);
    int32_t *dR = ozb_dev_buf(dev, OZB_DBUF_C2, 4 * ne);
    int rc = dR ? crt_product(dev, RB, colB, RA, colA, mbb, nbb, kbb, m, dR) : -2;
    if (!rc) rc = ozb_dev_get(dev, dst, 4 * ne, dR, 4 * ne, 4 * ne, 1);
    ozb_dev_unlock(dev, tok);
    return rc;
}

int ozb_crt_gemm_cuda_acc(ozb_dev *dev, const uint8_t *RB, int colB, const int8_t *RA, int colA, int64_t mbb, int64_t nbb,
                          int64_t kbb, int s, int t, int fold, int32_t m)
{
    const size_t ne = (size_t)mbb * nbb;
    const int tok = ozb_dev_lock(dev);
    int32_t *acc = ozb_dev_buf(dev, OZB_DBUF_C2, 4 * ((size_t)s + 1) * ne);   /* the same size for every t: kept */
    int rc = -2;
    if (acc) {
        int32_t *dst = acc + (fold ? (size_t)s : (size_t)t) * ne;
        rc = crt_product(dev, RB, colB, RA, colA, mbb, nbb, kbb, m, dst);
        if (!rc && fold) rc = ozb_dev_crt_fold(dev, acc + (size_t)t * ne, dst, (int64_t)ne, m);
    }
    ozb_dev_unlock(dev, tok);
    return rc;
}

int ozb_crt_recon_cuda(ozb_dev *dev, const ozb_op_crt_consts *k, int64_t ne, double *val)
{
    int rc = 0;
    const int tok = ozb_dev_lock(dev);
    int32_t *acc = ozb_dev_buf(dev, OZB_DBUF_C2, 4 * ((size_t)k->s + 1) * (size_t)ne);
    double *dval = ozb_dev_buf(dev, OZB_DBUF_STAGE, 8 * (size_t)ne);
    if (!acc || !dval) { rc = -2; goto out; }
    if ((rc = ozb_dev_crt_recon(dev, acc, ne, k, dval))) goto out;
    rc = ozb_dev_get(dev, val, 8 * (size_t)ne, dval, 8 * (size_t)ne, 8 * (size_t)ne, 1);
out:
    ozb_dev_unlock(dev, tok);
    return rc;
}
