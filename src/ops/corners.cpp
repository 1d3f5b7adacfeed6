// corner_min_eigen_val / corner_harris (cv::cornerMinEigenVal, cv::cornerHarris): argument checks
// and the launches of kernels/corners.cl (derivatives in tiles, row sums, column sums + response).
// docs/tracking.md ("Corners") explains why each stage is ordered as it is.
#include <algorithm>
#include <string>

#include "core/launch.hpp"
#include "ops/corners_internal.hpp"
#include "ops/elementwise_common.hpp"
#include "plinth/corners.hpp"

namespace plinth {
namespace detail {

CornersTuning& corners_tuning() {
  static CornersTuning tuning;
  return tuning;
}

std::shared_ptr<Program> corners_program(Queue& queue) {
  BuildOptions build;
  build.define("GROUP", corners_group);
  build.define("SOBEL_TW", corners_sobel_tile_w);
  build.define("SOBEL_TH", corners_sobel_tile_h);
  build.define("MAX_BLOCK", corners_max_block_size);
  build.define("WALK_THREADS", corners_walk_threads);
  build.define("WALK_COLS", corners_walk_cols);
  build.define("ROW_STRIP", corners_row_strip);
  return get_program(queue, "corners.cl", build);
}

void check_corner_args(Queue& queue, const DeviceImage& src, int block_size, int ksize, BorderMode border,
                       std::string_view op) {
  check_device(queue, src, op, "src");
  if (src.depth() != Depth::u8 || src.channels() != 1) {
    throw Error(ErrorCode::unsupported_type, std::string(op), "src",
                "must be a one-channel u8 image, not " + std::string(to_string(src.depth())) + "C" +
                    std::to_string(src.channels()));
  }
  if (block_size < 1 || block_size > corners_max_block_size) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "block_size",
                std::to_string(block_size) + " is outside 1.." + std::to_string(corners_max_block_size));
  }
  if (ksize != 1 && ksize != 3 && ksize != 5 && ksize != 7 && ksize != -1) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "ksize",
                std::to_string(ksize) + " is not a Sobel aperture (1, 3, 5, 7) or -1 (Scharr)");
  }
  if (border == BorderMode::wrap) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "border", "wrap is not supported (as in OpenCV's corner functions)");
  }
  check_fp64(queue, true, op);
}

Event corner_response(Queue& queue, const DeviceImage& src, DeviceImage& dst, const CornerResponse& r) {
  const std::string_view op = r.harris ? "corner_harris" : "corner_min_eigen_val";
  check_corner_args(queue, src, r.block_size, r.ksize, r.border, op);
  prepare_output(queue, dst, src.size(), Format{Depth::f32, 1}, op, "dst");
  check_no_overlap(src, dst, op, "dst");

  // OpenCV's scale: 1 / (2^(aperture-1) * block * 255), Scharr counting as aperture 3 and twice.
  double scale = static_cast<double>(1 << ((r.ksize > 0 ? r.ksize : 3) - 1)) * r.block_size;
  if (r.ksize < 0) scale *= 2.0;
  scale = 1.0 / (scale * 255.0);

  const auto program = corners_program(queue);
  const int border = static_cast<int>(r.border);

  const int w = src.width();
  const int h = src.height();
  const auto uw = static_cast<std::size_t>(w);
  const auto uh = static_cast<std::size_t>(h);
  // The intermediates live in the queue's scratch memory, kept between calls (allocating and
  // freeing device memory per call would cost more than the kernels; the queue runs in order).
  // Each goes to the kernels as an IMAGE_PARAM / ARRAY_PARAM: buffer, offset 0, row step.
  const Buffer& dx = *scratch(queue, "corners.dx", uw * uh * sizeof(float)).buffer;
  const Buffer& dy = *scratch(queue, "corners.dy", uw * uh * sizeof(float)).buffer;
  const bool running_rows = r.block_size != 3 && r.block_size != 5;
  // Row sums in global memory only for the running ones (the direct ones never leave the column
  // pass; it gets dx there as a placeholder it does not read).
  const Buffer& sums = running_rows ? *scratch(queue, "corners.sums", 3 * uw * uh * sizeof(double)).buffer : dx;
  const auto plane = [](Launch& launch, const Buffer& buffer, int step) -> Launch& { return launch.buffer(buffer).arg(0).arg(step); };

  Launch sobel(queue, program, "corners_sobel");
  sobel.arg(w).arg(h).arg(border).arg(r.ksize).arg(static_cast<float>(scale)).image(src);
  plane(plane(sobel, dx, w), dy, w);
  const auto first = sobel.run(range(round_up(uw, corners_sobel_tile_w), round_up(uh, corners_sobel_tile_h)),
                               range(corners_sobel_tile_w, corners_sobel_tile_h));

  // Windows 3 and 5 sum each row directly: the column pass forms those sums itself. Other windows
  // run OpenCV's running sums along the rows first: a work-group per strip of corners_row_strip rows.
  if (running_rows) {
    Launch rows(queue, program, "corners_row_sums_running");
    rows.arg(w).arg(h).arg(border).arg(r.block_size);
    plane(plane(plane(rows, dx, w), dy, w), sums, 3 * w);
    rows.run(range((uh + corners_row_strip - 1) / corners_row_strip * corners_walk_threads), range(corners_walk_threads));
  }

  // OpenCV walks the response as one line of w * h pixels: 8 at a time (AVX), then one group of 4
  // (SSE), then the rest one by one in double (calcHarris).
  const long long n = static_cast<long long>(w) * h;
  const long long avx_end = n / 8 * 8;
  const long long sse_end = avx_end + (n - avx_end >= 4 ? 4 : 0);
  Launch columns(queue, program, "corners_column_response");
  columns.arg(w).arg(h).arg(border).arg(r.block_size).arg(r.harris ? 1 : 0).arg(static_cast<int>(avx_end)).arg(static_cast<int>(sse_end));
  columns.arg(static_cast<float>(r.k)).arg(r.k).arg(running_rows ? 0 : 1);
  plane(plane(plane(columns, dx, w), dy, w), sums, 3 * w).image(dst);
  const auto last = columns.run(range((uw + corners_walk_cols - 1) / corners_walk_cols * corners_walk_threads), range(corners_walk_threads));
  return Event(first, last);
}

}  // namespace detail

Event corner_min_eigen_val(Queue& queue, const DeviceImage& src, DeviceImage& dst, int block_size, int ksize,
                           BorderMode border) {
  return detail::corner_response(queue, src, dst, {block_size, ksize, border, false, 0.0});
}

Event corner_harris(Queue& queue, const DeviceImage& src, DeviceImage& dst, int block_size, int ksize, double k,
                    BorderMode border) {
  return detail::corner_response(queue, src, dst, {block_size, ksize, border, true, k});
}

}  // namespace plinth
