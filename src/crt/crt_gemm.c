/* The CRT format's exact INT8 product (crt_gemm.h). */
#include "crt/crt_gemm.h"
#include "../../kernels/ozb_kernel_ops.h"

void ozb_crt_tiles(size_t limit, int64_t m, int64_t n, double per_side, double per_elem, double per_max, double fixed,
                   int64_t *mbp, int64_t *nbp)
{
    int64_t mb = m, nb = n;
    for (;;) {
        const double bytes = per_side * (double)(mb + nb) + per_elem * (double)mb * (double)nb
                           + per_max * (double)(mb > nb ? mb : nb) + fixed;
        if (bytes <= (double)limit || (mb == 1 && nb == 1)) break;
        if (mb >= nb) mb = (mb + 1) / 2; else nb = (nb + 1) / 2;
    }
    *mbp = mb;
    *nbp = nb;
}

void ozb_crt_fold(int32_t *acc, const int32_t *dst, int64_t ne, int32_t m)
{
    for (int64_t e = 0; e < ne; e++) acc[e] = ozb_op_crt_fold(acc[e], dst[e], m);
}
