// FramePipeline: grey -> pyramid -> integral of one level on one queue, no host round trip.
// The fused method's first launch is kernels/frame_pipeline.cl (grey copy + levels 1 and 2 from one
// read of the frame); the levels after it are build_pyramid's, the integral is integral()'s.
// docs/frame_pipeline.md explains what is fused and why.
#include <string>

#include "core/launch.hpp"
#include "ops/elementwise_common.hpp"
#include "plinth/color.hpp"
#include "plinth/frame_pipeline.hpp"
#include "plinth/integral.hpp"
#include "plinth/pyramid.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "frame_pipeline";
constexpr int kMaxLevels = 32;

// Work-group shapes: grey_down tiles GX x 2GY level-1 outputs (pyramid.cl's pyr_down shape),
// grey_down2 GX x GY level-2 outputs (pyr_down2's).
struct FramePipelinePolicy {
  int down_gx = 32, down_gy = 8;
  int down2_gx = 16, down2_gy = 8;
};

Size down_size(Size s) { return Size{(s.width + 1) / 2, (s.height + 1) / 2}; }

void check_options(const FramePipelineOptions& o) {
  if (o.levels < 1 || o.levels > kMaxLevels) {
    throw Error(ErrorCode::out_of_range, kOp, "levels", std::to_string(o.levels) + " is outside 1..32");
  }
  if (o.integral_level < 0 || o.integral_level >= o.levels) {
    throw Error(ErrorCode::out_of_range, kOp, "integral_level",
                std::to_string(o.integral_level) + " is not one of the " + std::to_string(o.levels) + " levels (0.." +
                    std::to_string(o.levels - 1) + ")");
  }
  if (o.border == BorderMode::constant) {
    throw Error(ErrorCode::invalid_argument, kOp, "border", "cv::pyrDown does not support the constant border");
  }
}

detail::BuildOptions kernel_options(BorderMode border, int gx, int gy) {
  detail::BuildOptions build;
  build.define("BORDER", static_cast<long long>(border)).define("GX", gx).define("GY", gy);
  return build;
}

Event join(const Event& first, const Event& last) {
  if (!first.valid()) return last;
  if (!last.valid()) return first;
  return Event(first.first(), last.last());
}

// grey (level 0) and level 1 from one read of src.
Event launch_grey_down(Queue& queue, const DeviceImage& src, DeviceImage& grey, DeviceImage& level1, BorderMode border) {
  const FramePipelinePolicy p;
  const auto program = detail::get_program(queue, "frame_pipeline.cl", kernel_options(border, p.down_gx, p.down_gy));
  detail::Launch launch(queue, program, "grey_down");
  launch.arg(src.width()).arg(src.height()).arg(level1.width()).arg(level1.height()).image(src).image(grey).image(level1);
  const auto gx = static_cast<std::size_t>(p.down_gx), gy = static_cast<std::size_t>(p.down_gy);
  const std::size_t groups_y = (static_cast<std::size_t>(level1.height()) + 2 * gy - 1) / (2 * gy);
  return Event(launch.run(detail::range(detail::round_up(static_cast<std::size_t>(level1.width()), gx), groups_y * gy),
                          detail::range(gx, gy)));
}

// grey (level 0), level 1 and level 2 from one read of src.
Event launch_grey_down2(Queue& queue, const DeviceImage& src, DeviceImage& grey, DeviceImage& level1, DeviceImage& level2,
                        BorderMode border) {
  const FramePipelinePolicy p;
  const auto program = detail::get_program(queue, "frame_pipeline.cl", kernel_options(border, p.down2_gx, p.down2_gy));
  detail::Launch launch(queue, program, "grey_down2");
  launch.arg(src.width()).arg(src.height()).arg(level1.width()).arg(level1.height()).arg(level2.width()).arg(level2.height());
  launch.image(src).image(grey).image(level1).image(level2);
  const auto gx = static_cast<std::size_t>(p.down2_gx), gy = static_cast<std::size_t>(p.down2_gy);
  return Event(launch.run(detail::range(detail::round_up(static_cast<std::size_t>(level2.width()), gx),
                                        detail::round_up(static_cast<std::size_t>(level2.height()), gy)),
                          detail::range(gx, gy)));
}

}  // namespace

std::string_view to_string(FramePipelineMethod method) noexcept {
  switch (method) {
    case FramePipelineMethod::automatic: return "auto";
    case FramePipelineMethod::fused: return "fused";
    case FramePipelineMethod::separate: return "separate";
  }
  return "?";
}

FramePipelineMethod parse_frame_pipeline_method(std::string_view text) {
  for (FramePipelineMethod m : {FramePipelineMethod::automatic, FramePipelineMethod::fused, FramePipelineMethod::separate}) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, kOp, "method", "unknown method '" + std::string(text) + "' (expected auto, fused or separate)");
}

FramePipeline::FramePipeline(const FramePipelineOptions& options) : options_(options) {
  check_options(options_);
  levels_.resize(1);
}

Event FramePipeline::run(Queue& queue, const DeviceNv12Frame& frame) {
  check_nv12_frame(frame, kOp, "frame");
  detail::check_device(queue, frame.y, kOp, "frame.y");
  if (options_.method == FramePipelineMethod::separate) {
    // The separate calls as a user would make them: OpenCV's NV12 -> grey (a copy of Y) first.
    if (!levels_[0].empty() && levels_[0].size() != frame.size()) *this = FramePipeline(options_);
    const Event grey = cvt_color(queue, frame, levels_[0], ColorConversion::nv12_to_gray);
    return join(grey, run(queue, levels_[0]));
  }
  return run(queue, frame.y);
}

Event FramePipeline::run(Queue& queue, const DeviceImage& source) {
  const DeviceImage src = source;  // a handle: `source` may be levels_[0], which resizing levels_ moves
  detail::check_device(queue, src, kOp, "src");
  if (src.format() != Format{Depth::u8, 1}) {
    throw Error(ErrorCode::unsupported_type, kOp, "src",
                "is " + std::string(to_string(src.depth())) + "C" + std::to_string(src.channels()) +
                    "; the frame pipeline takes a grey u8 plane of one channel (or an NV12 frame)");
  }
  const FramePipelineOptions& o = options_;
  // A new frame size: new outputs (the old ones may still be read by the caller).
  if (!levels_[0].empty() && levels_[0].size() != src.size() && !src.overlaps(levels_[0])) *this = FramePipeline(o);
  const bool separate = o.method == FramePipelineMethod::separate;
  // The separate NV12 path has already copied Y into levels_[0] and passes it as src.
  const bool src_is_grey = separate && detail::same_view(src, levels_[0]);
  if (!src_is_grey) {
    detail::prepare_output(queue, levels_[0], src.size(), src.format(), kOp, "grey");
    detail::check_no_overlap(src, levels_[0], kOp, "grey");
  }

  Event first, last;
  const auto add = [&](const Event& e) {
    if (!first.valid()) first = e;
    last = e;
  };
  if (separate) {
    if (!src_is_grey) add(queue.copy(src, levels_[0]));
    const DeviceImage grey = levels_[0];
    add(build_pyramid(queue, grey, levels_, PyramidOptions{o.levels, o.border, PyramidMethod::automatic}));
  } else {
    levels_.resize(static_cast<std::size_t>(o.levels));
    Size size = src.size();
    for (std::size_t i = 1; i < levels_.size() && i <= 2; ++i) {
      size = down_size(size);
      detail::prepare_output(queue, levels_[i], size, src.format(), kOp, "levels");
      detail::check_no_overlap(src, levels_[i], kOp, "levels");
    }
    if (o.levels == 1) {
      add(queue.copy(src, levels_[0]));
    } else if (o.levels == 2) {
      add(launch_grey_down(queue, src, levels_[0], levels_[1], o.border));
    } else {
      add(launch_grey_down2(queue, src, levels_[0], levels_[1], levels_[2], o.border));
    }
    if (o.levels > 3) {
      // Levels 3.. from level 2 by build_pyramid (two levels a launch where it pays); rest_ keeps
      // their images between frames.
      add(build_pyramid(queue, levels_[2], rest_, PyramidOptions{o.levels - 2, o.border, PyramidMethod::automatic}));
      for (std::size_t i = 1; i < rest_.size(); ++i) levels_[i + 2] = rest_[i];
    }
  }
  add(plinth::integral(queue, levels_[static_cast<std::size_t>(o.integral_level)], integral_));
  return Event(first.first(), last.last());
}

FramePipelineImages frame_pipeline(Queue& queue, const Nv12Frame& frame, const FramePipelineOptions& options) {
  FramePipeline pipeline(options);
  const DeviceNv12Frame d_frame = upload_nv12(queue, frame);
  pipeline.run(queue, d_frame);
  FramePipelineImages out;
  for (const DeviceImage& level : pipeline.levels()) out.levels.push_back(queue.download(level));
  out.integral = queue.download(pipeline.integral());
  return out;
}

}  // namespace plinth
