/* The fused kernels with 512-bit vectors (built with -mavx512f -mavx512dq, run only where
 * ozb_fused_select finds them supported). */
#include <string.h>
#define OZB_FZ_W 8
#include "fused/fused_kern.inc"
