// corner_min_eigen_val / corner_harris (cv::cornerMinEigenVal, cv::cornerHarris): argument checks
// and the launches of kernels/corners.cl (derivatives in tiles, row sums, column sums + response; the
// running sums as speculative segments and their check).
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
  const auto rows_of = [](int count) { return static_cast<std::size_t>(std::max(count, 1)); };
  const Buffer& dx = *scratch(queue, "corners.dx", uw * uh * sizeof(float)).buffer;
  const Buffer& dy = *scratch(queue, "corners.dy", uw * uh * sizeof(float)).buffer;
  const Buffer& sums = *scratch(queue, "corners.sums", 3 * uw * uh * sizeof(double)).buffer;
  const auto plane = [](Launch& launch, const Buffer& buffer, int step) -> Launch& { return launch.buffer(buffer).arg(0).arg(step); };

  Launch sobel(queue, program, "corners_sobel");
  sobel.arg(w).arg(h).arg(border).arg(r.ksize).arg(static_cast<float>(scale)).image(src);
  plane(plane(sobel, dx, w), dy, w);
  const auto first = sobel.run(range(round_up(uw, corners_sobel_tile_w), round_up(uh, corners_sobel_tile_h)),
                               range(corners_sobel_tile_w, corners_sobel_tile_h));

  // The running sums run as speculative segments and a check (kernels/corners.cl).
  const int seg = std::max(1, corners_tuning().chain_segment);
  const int warm = std::max(0, corners_tuning().chain_warm);
  const auto segments = [](int length, int step) { return static_cast<std::size_t>((length + step - 1) / step); };
  if (r.block_size == 3 || r.block_size == 5) {
    Launch rows(queue, program, "corners_row_sums_direct");
    rows.arg(w).arg(h).arg(border).arg(r.block_size);
    plane(plane(plane(rows, dx, w), dy, w), sums, 3 * w);
    rows.run(range(round_up(uw, 32), round_up(uh, 4), 3), range(32, 4, 1));
  } else {
    const std::size_t row_segments = segments(w, seg);
    const Buffer& guesses = *scratch(queue, "corners.row_guesses", row_segments * rows_of(h) * 3 * sizeof(double)).buffer;
    Launch spec(queue, program, "corners_row_sums_spec");
    spec.arg(w).arg(h).arg(border).arg(r.block_size).arg(seg).arg(warm);
    plane(plane(plane(spec, dx, w), dy, w), sums, 3 * w).buffer(guesses).arg(0);
    spec.run(range(row_segments, round_up(uh, 64), 3), range(1, 64, 1));
    Launch fixup(queue, program, "corners_row_sums_fixup");
    fixup.arg(w).arg(h).arg(border).arg(r.block_size).arg(seg);
    plane(plane(plane(fixup, dx, w), dy, w), sums, 3 * w).buffer(guesses).arg(0);
    fixup.run(range(round_up(uh, 64), 3), range(64, 1));
  }

  // OpenCV walks the response as one line of w * h pixels: 8 at a time (AVX), then one group of 4
  // (SSE), then the rest one by one in double (calcHarris).
  const long long n = static_cast<long long>(w) * h;
  const long long avx_end = n / 8 * 8;
  const long long sse_end = avx_end + (n - avx_end >= 4 ? 4 : 0);
  const std::size_t column_segments = segments(h, seg);
  const Buffer& states = *scratch(queue, "corners.column_states", column_segments * rows_of(w) * 6 * sizeof(double)).buffer;
  Launch columns(queue, program, "corners_column_spec");
  columns.arg(w).arg(h).arg(border).arg(r.block_size).arg(r.harris ? 1 : 0).arg(static_cast<int>(avx_end)).arg(static_cast<int>(sse_end));
  columns.arg(static_cast<float>(r.k)).arg(r.k).arg(seg).arg(warm);
  plane(columns, sums, 3 * w).image(dst).buffer(states).arg(0);
  columns.run(range(round_up(uw, 64), column_segments), range(64, 1));
  Launch fixup(queue, program, "corners_column_fixup");
  fixup.arg(w).arg(h).arg(border).arg(r.block_size).arg(r.harris ? 1 : 0).arg(static_cast<int>(avx_end)).arg(static_cast<int>(sse_end));
  fixup.arg(static_cast<float>(r.k)).arg(r.k).arg(seg);
  plane(fixup, sums, 3 * w).image(dst).buffer(states).arg(0);
  const auto last = fixup.run(range(round_up(uw, 64)), range(64));
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
