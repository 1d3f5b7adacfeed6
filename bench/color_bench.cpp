// Benchmark cases of cvt_color (include/plinth/color.hpp): RGB family to grey and NV12 to RGB(A).
#include <memory>

#include "bench_support.hpp"
#include "nv12_inputs.hpp"
#include "plinth/color.hpp"

namespace plinth::bench {
namespace {


std::vector<Case> make_cases(Env& env) {
  const Size size = even(env.settings.size);
  Queue* queue = &env.queue;
  std::vector<Case> cases;
  struct Gray {
    ColorConversion code;
    Format format;
  };
  for (const Gray& g : {Gray{ColorConversion::rgb_to_gray, {Depth::u8, 3}}, Gray{ColorConversion::bgra_to_gray, {Depth::u8, 4}},
                        Gray{ColorConversion::rgb_to_gray, {Depth::f32, 3}}}) {
    auto src = std::make_shared<std::vector<DeviceImage>>(random_device_images(env, size, g.format, env.settings.input_sets, 0xc01));
    auto dst = std::make_shared<std::vector<DeviceImage>>(device_images(env, size, {g.format.depth, 1}, env.settings.input_sets));
    Case k;
    k.op = "color";
    k.variant = "auto";
    k.config = std::string(to_string(g.code)) + " " + std::string(to_string(g.format.depth));
    k.size = size;
    k.bytes = image_bytes(size, g.format) + image_bytes(size, {g.format.depth, 1});
    const ColorConversion code = g.code;
    k.run = [=](int s) {
      const auto i = static_cast<std::size_t>(s);
      return cvt_color(*queue, (*src)[i], (*dst)[i], code);
    };
    cases.push_back(std::move(k));
  }
  auto frames = std::make_shared<std::vector<DeviceNv12Frame>>(nv12_inputs(env, size, 0xc02));
  for (auto [code, channels] : {std::pair{ColorConversion::nv12_to_rgb, 3}, std::pair{ColorConversion::nv12_to_bgra, 4}}) {
    auto dst = std::make_shared<std::vector<DeviceImage>>(device_images(env, size, {Depth::u8, channels}, env.settings.input_sets));
    Case k;
    k.op = "color";
    k.variant = "auto";
    k.config = std::string(to_string(code));
    k.size = size;
    k.bytes = 1.5 * image_bytes(size, {Depth::u8, 1}) + image_bytes(size, {Depth::u8, channels});
    const ColorConversion c = code;
    k.run = [=](int s) {
      const auto i = static_cast<std::size_t>(s);
      return cvt_color(*queue, (*frames)[i], (*dst)[i], c);
    };
    cases.push_back(std::move(k));
  }
  return cases;
}

const Registration registration("color", make_cases);

}  // namespace
}  // namespace plinth::bench
