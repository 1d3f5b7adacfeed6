/* pyrDown's 5-tap filter, shared by pyramid.cl and frame_pipeline.cl: the kernel [1 4 6 4 1] in
 * each direction around (2x, 2y), in OpenCV's order of additions, before rounding. The including
 * file defines SRC_T (element), WT and WPIX (accumulator and its pixel type), TO_W(p) (a loaded
 * pixel to WPIX), LOAD_PIX(row, x) and BORDER (common/border.h's code, never constant). */

/* [1 4 6 4 1] in OpenCV's order of additions. */
INLINE WPIX taps5(WPIX a, WPIX b, WPIX c, WPIX d, WPIX e) { return c * (WT)6 + (b + d) * (WT)4 + a + e; }

/* The source value at (x, y) mapped through the border. */
INLINE WPIX source_at(GLOBAL const SRC_T* src, int src_offset, int src_step, int x, int y, int width, int height) {
  const int xx = border_index(x, width, BORDER);
  const int yy = border_index(y, height, BORDER);
  return TO_W(LOAD_PIX(src + src_offset + yy * src_step, xx));
}

/* One pyrDown output at (x, y) straight from global memory, before rounding. */
INLINE WPIX down_sum(GLOBAL const SRC_T* src, int src_offset, int src_step, int x, int y, int width, int height) {
  WPIX rows[5];
  UNROLL
  for (int j = 0; j < 5; ++j) {
    const int sy = 2 * y - 2 + j;
    rows[j] = taps5(source_at(src, src_offset, src_step, 2 * x - 2, sy, width, height),
                    source_at(src, src_offset, src_step, 2 * x - 1, sy, width, height),
                    source_at(src, src_offset, src_step, 2 * x, sy, width, height),
                    source_at(src, src_offset, src_step, 2 * x + 1, sy, width, height),
                    source_at(src, src_offset, src_step, 2 * x + 2, sy, width, height));
  }
  return taps5(rows[0], rows[1], rows[2], rows[3], rows[4]);
}
