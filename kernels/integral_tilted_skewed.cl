/* Tilted (45 degree) integrals, method `skewed`, for order-free requests (integer sums, or float
 * sums that hold every partial sum exactly). Host side: src/ops/integral_tilted.cpp; the method
 * is written up in docs/integral.md.
 *
 * With OpenCV's definition, tilted(X, Y) = sum of src(x, y) over y < Y, |x - X + 1| <= Y - 1 - y,
 * the pixels of a row y are those with X - Y + y <= x <= X + Y - 2 - y. So
 *   tilted(X, Y) = A(Y, X + Y - 1) - B(Y, X - Y + H - 1)
 * where A is the plain integral of the image skewed one way, SA(y, u) = src(u - y, y), and B that
 * of the image skewed the other way, SB(y, v) = src(v - (H - 1) + y, y), both H rows of W + H - 1
 * columns (zero where no source pixel lands), and the column indices clamp to [0, W + H - 1]:
 * A(Y, U) sums the pixels with y < Y and x + y < U, B(Y, V) those with y < Y and x - y < V - (H - 1),
 * and the second set lies inside the first.
 *
 * Options: SRC_T/SRC_DEPTH (source), TILTED_T/TILTED_DEPTH (output and A, B), TACC (the
 * difference's type: uint for 32-bit integers, which wrap as the sums do). */
#include "common/dialect.h"
#include "common/types.h"

/* Writes the skewed images of every plane: image 2 b is SA and 2 b + 1 is SB of batch image b,
 * each `height` rows of width + height - 1 pixels of `channels`. A work-group per row (a launch
 * of a work-item per element started so many work-groups that starting them took most of the
 * time on the H100). */
KERNEL void integral_tilted_skew(int width, int height, int channels, int batch, CONST_IMAGE_PARAM(SRC_T, src),
                                 IMAGE_PARAM(SRC_T, skew)) {
  const int r = GROUP_ID(1), n = (width + height - 1) * channels;
  const int k = r / height, y = r % height, b = k / 2;
  /* The source column of skewed column u is u - shift. */
  const int shift = k % 2 == 0 ? y : height - 1 - y;
  for (int e = LOCAL_ID(0); e < n; e += LOCAL_SIZE(0)) {
    const int x = e / channels - shift, c = e % channels;
    SRC_T v = (SRC_T)0;
    if (x >= 0 && x < width) v = IMAGE_AT(src, x * channels + c, b * height + y);
    IMAGE_AT(skew, e, r) = v;
  }
}

#include "integral_tilted.h"

/* tilted(X, Y) = A(Y, X + Y - 1) - B(Y, X - Y + H - 1) from `sums`, the integrals of the skewed
 * images (image 2 b: A, 2 b + 1: B, each height + 1 rows of width + height columns). A
 * work-group per output row. */
KERNEL void integral_tilted_combine(int width, int height, int channels, int batch, CONST_IMAGE_PARAM(TILTED_T, sums),
                                    IMAGE_PARAM(TILTED_T, tilted)) {
  const int r = GROUP_ID(1), n = (width + 1) * channels;
  const int b = r / (height + 1), y = r % (height + 1), last = width + height - 1;
  for (int e = LOCAL_ID(0); e < n; e += LOCAL_SIZE(0)) {
    const int x = e / channels, c = e % channels;
    const int ua = clamp(x + y - 1, 0, last), ub = clamp(x - y + height - 1, 0, last);
    const TACC a = T_LOAD(IMAGE_AT(sums, ua * channels + c, 2 * b * (height + 1) + y));
    const TACC d = T_LOAD(IMAGE_AT(sums, ub * channels + c, (2 * b + 1) * (height + 1) + y));
    IMAGE_AT(tilted, e, r) = T_STORE(a - d);
  }
}
