/* The one output tiler: tiles mb x nb of an m x n output whose workspace fits a limit. */
#ifndef OZB_TILES_H
#define OZB_TILES_H
#include <stddef.h>
#include <stdint.h>

/* Bytes a tile of mb x nb needs: a mb + b nb + elem mb nb + max max(mb, nb) + fixed. */
typedef struct { double a, b, elem, max, fixed; } ozb_tile_cost;

/* Starting from m x n, halves the larger side (mb when equal) until the tile's bytes fit
 * `limit` or the tile is 1 x 1.  Returns 1 when the tile fits, 0 when even 1 x 1 does not
 * (then *mb = *nb = 1).  Tiling never changes a bit: every output element is computed from
 * its row and column alone (CONTRACT §3). */
int ozb_tiles(size_t limit, int64_t m, int64_t n, ozb_tile_cost c, int64_t *mb, int64_t *nb);
#endif
