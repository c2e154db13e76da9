/* The CUDA kernels (kernels/ozb_kernels.cu) compiled as host C++ for the emulated device:
 * the same source, through the runtime shim kernels/ozb_cuda_host.h, launched by
 * emu_grid.cc with the real grid and block sizes.  The table is ozb_kl_host(). */
#define OZB_HOST_KERNELS 1
#define OZB_KL_TABLE ozb_kl_host
#include "../../kernels/ozb_kernels.cu"
