// build_optical_flow_pyramid: cv::buildOpticalFlowPyramid for u8 one-channel images. Each level
// lives inside an allocation padded by win_size (BORDER_REFLECT_101), its Scharr derivatives inside
// one padded with zeros; kernels/optical_flow_pyramid.cl (pad_reflect, scharr_deriv) and pyr_down
// fill them.
#include <string>

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

}  // namespace

int build_optical_flow_pyramid(Queue& queue, const DeviceImage& image, OpticalFlowPyramid& pyramid, Size win_size,
                               int max_level, bool with_derivatives) {
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
  if (levels[0].overlaps(image)) {
    throw Error(ErrorCode::invalid_argument, op, "image", "is the pyramid's own level 0");
  }
  const auto program = detail::get_program(queue, "optical_flow_pyramid.cl", detail::BuildOptions{});
  std::shared_ptr<detail::EventImpl> first, last;
  auto note = [&](const std::shared_ptr<detail::EventImpl>& e) {
    if (!first) first = e;
    last = e;
  };
  auto pad = [&](const DeviceImage& src, const DeviceImage& level, int interior_done) {
    detail::Launch launch(queue, program, "pad_reflect");
    launch.arg(level.width()).arg(level.height()).arg(win_size.width).arg(win_size.height).arg(interior_done);
    launch.image(src).image(level);
    note(launch.run(padded_range(level.size(), win_size), detail::range(kGroupX, kGroupY)));
  };
  pad(image, levels[0], 0);
  for (std::size_t i = 1; i < levels.size(); ++i) {
    note(pyr_down(queue, levels[i - 1], levels[i]).last());
    pad(levels[i], levels[i], 1);
  }
  for (std::size_t i = 0; i < derivs.size(); ++i) {
    detail::Launch launch(queue, program, "scharr_deriv");
    launch.arg(levels[i].width()).arg(levels[i].height()).arg(win_size.width).arg(win_size.height);
    launch.image(levels[i]).image(derivs[i]);
    note(launch.run(padded_range(levels[i].size(), win_size), detail::range(kGroupX, kGroupY)));
  }
  pyramid.levels = std::move(levels);
  pyramid.derivatives = std::move(derivs);
  pyramid.ready = Event(first, last);
  return static_cast<int>(sizes.size()) - 1;
}

}  // namespace plinth
