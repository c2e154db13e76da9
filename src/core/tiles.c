/* The one output tiler (tiles.h), used by Scheme I, the CRT and the device engine. */
#include "core/tiles.h"

static double bytes_of(ozb_tile_cost c, int64_t mb, int64_t nb)
{
    return c.a * (double)mb + c.b * (double)nb + c.elem * (double)mb * (double)nb + c.max * (double)(mb > nb ? mb : nb)
           + c.fixed;
}

int ozb_tiles(size_t limit, int64_t m, int64_t n, ozb_tile_cost c, int64_t *mbp, int64_t *nbp)
{
    int64_t mb = m, nb = n;
    int fits;
    for (;;) {
        fits = bytes_of(c, mb, nb) <= (double)limit;
        if (fits || (mb == 1 && nb == 1)) break;
        if (mb >= nb) mb = (mb + 1) / 2; else nb = (nb + 1) / 2;
    }
    *mbp = mb;
    *nbp = nb;
    return fits;
}
