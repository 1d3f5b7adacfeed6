/* Loading a border-extended source region into local memory, for the tiled linear filters
 * (sep_filter.cl, filter2d.cl). The including file defines SRC_T and CN. */
#ifndef PLINTH_FILTER_TILE_H
#define PLINTH_FILTER_TILE_H

#include "common/border.h"

/* tile[ty * pitch + tx * CN + c] = source pixel (gx0 + tx, gy0 + ty), channel c, for tx < tw_px and
 * ty < th, mapped through the border (0 outside for BORDER_CONSTANT). The work-group's items
 * (lx, ly) of (gx, gy) stride over the tile so that neighbouring items read neighbouring elements. */
INLINE void load_tile(LOCAL SRC_T* tile, int pitch, int tw_px, int th, int gx0, int gy0, int width, int height,
                      int border, GLOBAL const SRC_T* src, int src_offset, int src_step, int lx, int ly, int gx,
                      int gy) {
  const int tw = tw_px * CN;
  for (int ty = ly; ty < th; ty += gy) {
    const int yi = border_index(gy0 + ty, height, border);
    LOCAL SRC_T* out = tile + ty * pitch;
    if (yi < 0) {
      for (int e = lx; e < tw; e += gx) out[e] = (SRC_T)0;
      continue;
    }
    GLOBAL const SRC_T* row = src + src_offset + yi * src_step;
    for (int e = lx; e < tw; e += gx) {
      const int tx = e / CN;
      const int xi = border_index(gx0 + tx, width, border);
      out[e] = xi < 0 ? (SRC_T)0 : row[xi * CN + (e - tx * CN)];
    }
  }
}

#endif
