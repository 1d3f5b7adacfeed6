// build_optical_flow_pyramid: cv::buildOpticalFlowPyramid for u8 one-channel images. Each level
// lives inside an allocation padded by win_size (BORDER_REFLECT_101), its Scharr derivatives inside
// one padded with zeros. Method fused: kernels/optical_flow_pyramid.cl's flow_pyramid_fused, one
// launch for levels 0 and 1 and one per further level; per_level: pad_reflect, pyr_down and
// scharr_deriv, a launch per step (4 levels with derivatives: 3 launches against 11).
#include <functional>
#include <memory>
#include <string>

#include "../../kernels/optical_flow_pyramid_shape.h"
#include "core/launch.hpp"
#include "ops/elementwise_common.hpp"
#include "plinth/klt.hpp"
#include "plinth/pyramid.hpp"

namespace plinth {
namespace {

constexpr std::size_t kGroupX = 32, kGroupY = 8;

detail::NDRange padded_range(Size size, Size pad) {
  return detail::range(detail::round_up(static_cast<std::size_t>(size.width + 2 * pad.width), kGroupX),
                       detail::round_up(static_cast<std::size_t>(size.height + 2 * pad.height), kGroupY));
}

// A fresh (size + 2 pad) allocation and the view of its interior.
DeviceImage padded_view(Queue& queue, Size size, Size pad, Format format) {
  const DeviceImage all(queue.context(), size.width + 2 * pad.width, size.height + 2 * pad.height, format);
  return all.view(Rect{pad.width, pad.height, size.width, size.height});
}

bool reusable(const std::vector<DeviceImage>& images, std::size_t i, Size size, Format format) {
  return i < images.size() && !images[i].empty() && images[i].size() == size && images[i].format() == format;
}

// The per_level method's launches (level 0's padding; per level pyr_down and its padding; the
// derivatives per level).
void build_per_level(Queue& queue, const DeviceImage& image, const std::vector<DeviceImage>& levels,
                     const std::vector<DeviceImage>& derivs, Size win_size, const std::shared_ptr<detail::Program>& program,
                     const std::function<void(const std::shared_ptr<detail::EventImpl>&)>& note) {
  auto pad = [&](const DeviceImage& src, const DeviceImage& level, int interior_done) {
    detail::Launch launch(queue, program, "pad_reflect");
    launch.arg(level.width()).arg(level.height()).arg(win_size.width).arg(win_size.height).arg(interior_done);
    launch.image(src).image(level);
    note(launch.run(padded_range(level.size(), win_size), detail::range(kGroupX, kGroupY)));
  };
  pad(image, levels[0], 0);
  for (std::size_t i = 1; i < levels.size(); ++i) {
    DeviceImage level = levels[i];
    note(pyr_down(queue, levels[i - 1], level).last());
    pad(levels[i], levels[i], 1);
  }
  for (std::size_t i = 0; i < derivs.size(); ++i) {
    detail::Launch launch(queue, program, "scharr_deriv");
    launch.arg(levels[i].width()).arg(levels[i].height()).arg(win_size.width).arg(win_size.height);
    launch.image(levels[i]).image(derivs[i]);
    note(launch.run(padded_range(levels[i].size(), win_size), detail::range(kGroupX, kGroupY)));
  }
}

// The fused method's launches: the copy job (level 0 with its derivatives) and the down job of
// level 1 read only the source, so they share the first launch; each further level is one launch
// of the down job from the level before (kernels/optical_flow_pyramid.cl says how a work-group
// makes its tile, frame, padding and derivatives).
void build_fused(Queue& queue, const DeviceImage& image, const std::vector<DeviceImage>& levels,
                 const std::vector<DeviceImage>& derivs, Size win_size, const std::shared_ptr<detail::Program>& program,
                 const std::function<void(const std::shared_ptr<detail::EventImpl>&)>& note) {
  const bool with_deriv = !derivs.empty();
  const auto groups = [](int extent, int group) { return static_cast<std::size_t>((extent + group - 1) / group); };
  // One launch: with `copy` the copy job (level 0 from the image), with d > 0 the down job making
  // level d from src.
  const auto run = [&](const DeviceImage& src, bool copy, std::size_t d) {
    const DeviceImage& out = levels[d];  // d == 0: no down job, never written
    if (d > 0 && (out.width() <= win_size.width || out.height() <= win_size.height)) {
      throw Error(ErrorCode::internal, "build_optical_flow_pyramid", "levels", "a level after the first is not larger than the padding");
    }
    const std::size_t copy_groups =
        copy ? groups(src.width() + 2 * win_size.width, OFP_GX) * groups(src.height() + 2 * win_size.height, OFP_GY) : 0;
    const std::size_t down_groups = d > 0 ? groups(out.width(), OFP_GX) * groups(out.height(), OFP_GY) : 0;
    detail::Launch launch(queue, program, "flow_pyramid_fused");
    launch.arg(static_cast<int>(copy_groups)).arg(src.width()).arg(src.height()).arg(out.width()).arg(out.height());
    launch.arg(win_size.width).arg(win_size.height).arg(static_cast<int>(with_deriv));
    // Without derivatives the derivative arguments are never written; a level stands in.
    launch.image(src).image(levels[0]).image(with_deriv ? derivs[0] : levels[0]);
    launch.image(out).image(with_deriv ? derivs[d] : out);
    note(launch.run(detail::range((copy_groups + down_groups) * OFP_GX, OFP_GY), detail::range(OFP_GX, OFP_GY)));
  };
  run(image, true, levels.size() > 1 ? 1 : 0);
  for (std::size_t d = 2; d < levels.size(); ++d) run(levels[d - 1], false, d);
}

}  // namespace

std::string_view to_string(OpticalFlowPyramidMethod method) noexcept {
  switch (method) {
    case OpticalFlowPyramidMethod::automatic: return "auto";
    case OpticalFlowPyramidMethod::fused: return "fused";
    case OpticalFlowPyramidMethod::per_level: return "per_level";
  }
  return "?";
}

int build_optical_flow_pyramid(Queue& queue, const DeviceImage& image, OpticalFlowPyramid& pyramid, Size win_size,
                               int max_level, bool with_derivatives, OpticalFlowPyramidMethod method) {
  const char* op = "build_optical_flow_pyramid";
  detail::check_device(queue, image, op, "image");
  detail::check_depth(image.depth(), {Depth::u8}, op, "image");
  detail::check_channels(image.channels(), {1}, op, "image");
  if (win_size.width < 3 || win_size.height < 3 || win_size.width > 1024 || win_size.height > 1024) {
    throw Error(ErrorCode::out_of_range, op, "win_size",
                std::to_string(win_size.width) + "x" + std::to_string(win_size.height) +
                    " is outside 3..1024 (OpenCV needs each side > 2)");
  }
  if (max_level < 0 || max_level > 30) {
    throw Error(ErrorCode::out_of_range, op, "max_level", std::to_string(max_level) + " is outside 0..30");
  }
  // OpenCV's stop rule: level L + 1 is made only while its size stays above win_size.
  std::vector<Size> sizes{image.size()};
  for (Size s = image.size(); static_cast<int>(sizes.size()) <= max_level;) {
    s = Size{(s.width + 1) / 2, (s.height + 1) / 2};
    if (s.width <= win_size.width || s.height <= win_size.height) break;
    sizes.push_back(s);
  }
  const Format u8{Depth::u8, 1}, deriv{Depth::s16, 2};
  if (pyramid.win_size != win_size) {
    pyramid.levels.clear();
    pyramid.derivatives.clear();
  }
  pyramid.win_size = win_size;
  std::vector<DeviceImage> levels(sizes.size()), derivs(with_derivatives ? sizes.size() : 0);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    levels[i] = reusable(pyramid.levels, i, sizes[i], u8) ? pyramid.levels[i] : padded_view(queue, sizes[i], win_size, u8);
    if (with_derivatives) {
      derivs[i] = reusable(pyramid.derivatives, i, sizes[i], deriv) ? pyramid.derivatives[i]
                                                                     : padded_view(queue, sizes[i], win_size, deriv);
    }
  }
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].overlaps(image) || (with_derivatives && derivs[i].overlaps(image))) {
      throw Error(ErrorCode::invalid_argument, op, "image", "shares memory with the pyramid's level " + std::to_string(i));
    }
  }
  const auto program = detail::get_program(queue, "optical_flow_pyramid.cl", detail::BuildOptions{});
  std::shared_ptr<detail::EventImpl> first, last;
  auto note = [&](const std::shared_ptr<detail::EventImpl>& e) {
    if (!first) first = e;
    last = e;
  };
  if (method == OpticalFlowPyramidMethod::per_level) {
    build_per_level(queue, image, levels, derivs, win_size, program, note);
  } else {
    build_fused(queue, image, levels, derivs, win_size, program, note);
  }
  pyramid.levels = std::move(levels);
  pyramid.derivatives = std::move(derivs);
  pyramid.ready = Event(first, last);
  return static_cast<int>(sizes.size()) - 1;
}

}  // namespace plinth
