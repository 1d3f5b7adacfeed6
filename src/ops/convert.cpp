// convert_to (cv::Mat::convertTo): depth rules and the launch of kernels/convert.cl.
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "core/launch.hpp"
#include "ops/elementwise_common.hpp"
#include "plinth/arithm.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "convert_to";

constexpr std::initializer_list<Depth> kDepths = {Depth::u8, Depth::s8, Depth::u16, Depth::s16, Depth::s32, Depth::f32, Depth::f64};

// OpenCV computes in double when either side is f64 and for s32 -> s32 (whose values float
// would round); in float (one fused multiply-add) otherwise.
bool works_in_double(Depth src, Depth dst) {
  return src == Depth::f64 || dst == Depth::f64 || (src == Depth::s32 && dst == Depth::s32);
}

}  // namespace

Event convert_to(Queue& queue, const DeviceImage& src, DeviceImage& dst, Depth depth, const ConvertOptions& options) {
  detail::check_device(queue, src, kOp, "src");
  detail::check_depth(src.depth(), kDepths, kOp, "src");
  if (!dst.empty()) depth = dst.depth();
  detail::check_depth(depth, kDepths, kOp, "depth");
  if (!std::isfinite(options.alpha) || !std::isfinite(options.beta)) {
    throw Error(ErrorCode::invalid_argument, kOp, "alpha/beta", "must be finite numbers");
  }
  const bool in_double = works_in_double(src.depth(), depth);
  detail::check_fp64(queue, in_double, kOp);
  detail::prepare_output(queue, dst, src.size(), Format{depth, src.channels()}, kOp, "dst");
  const bool same_bytes = depth_size(src.depth()) == depth_size(depth);
  if (!(same_bytes && detail::same_view(src, dst))) detail::check_no_overlap(src, dst, kOp, "dst");

  // OpenCV's own test for "no scaling".
  const bool scale = !(std::fabs(options.alpha - 1.0) < DBL_EPSILON && std::fabs(options.beta) < DBL_EPSILON);
  if (!scale && depth == src.depth()) {
    if (detail::same_view(src, dst)) return Event();
    return queue.copy(src, dst);
  }

  const detail::ElementwisePolicy policy = detail::elementwise_policy();
  const int widest = static_cast<int>(std::max(depth_size(src.depth()), depth_size(depth)));
  const int vec = std::max(4, policy.vector_bytes / widest);
  const bool vector = options.method != ElementwiseMethod::plain;
  const bool aligned = vector && detail::rows_aligned(src, vec) && detail::rows_aligned(dst, vec);

  detail::BuildOptions build;
  build.define_depth("SRC", src.depth()).define_depth("DST", depth);
  build.define("WT", in_double ? "double" : "float");
  if (in_double) build.define("PLINTH_NEED_FP64");
  build.define("VEC", vec);
  const auto program = detail::get_program(queue, "convert.cl", build);

  const int elements = src.width() * src.channels();
  detail::Launch launch(queue, program, vector ? "convert_vector" : "convert_plain");
  launch.arg(scale ? 1 : 0);
  if (vector) launch.arg(aligned ? 1 : 0);
  launch.arg(elements).arg(src.height());
  if (in_double) {
    launch.arg(options.alpha).arg(options.beta);
  } else {
    launch.arg(static_cast<float>(options.alpha)).arg(static_cast<float>(options.beta));
  }
  launch.image(src).image(dst);
  const std::size_t items = vector ? static_cast<std::size_t>((elements + vec - 1) / vec) : static_cast<std::size_t>(elements);
  return Event(launch.run(detail::range(detail::round_up(items, policy.group_x),
                                        detail::round_up(static_cast<std::size_t>(src.height()), policy.group_y)),
                          detail::range(policy.group_x, policy.group_y)));
}

HostImage convert_to(Queue& queue, const HostImage& src, Depth depth, const ConvertOptions& options) {
  detail::check_host(src, kOp, "src");
  const DeviceImage d_src = queue.upload(src);
  DeviceImage dst;
  convert_to(queue, d_src, dst, depth, options);
  return queue.download(dst);
}

}  // namespace plinth
