/* The CRT format's exact INT8 product (crt_gemm.h). */
#include "crt/crt_gemm.h"
#include "../../kernels/ozb_kernel_ops.h"

void ozb_crt_fold(int32_t *acc, const int32_t *dst, int64_t ne, int32_t m)
{
    for (int64_t e = 0; e < ne; e++) acc[e] = ozb_op_crt_fold(acc[e], dst[e], m);
}
