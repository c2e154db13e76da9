/* The emulated device's launch context (dev_emu.c, emu_grid.cc): the host-compiled kernels
 * (kernels/ozb_cuda_host.h) receive it as their stream. */
#ifndef OZB_EMU_GRID_H
#define OZB_EMU_GRID_H
#include <stdint.h>

typedef struct ozb_emu_stream {
    uint64_t rng;         /* state of the shuffled order of blocks and threads; 0: in order */
} ozb_emu_stream;
#endif
