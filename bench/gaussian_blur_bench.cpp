// Gaussian blur cases: the bit-exact u8 path at common sizes and the f32 path.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench.hpp"

namespace plinth::bench {
namespace {

struct Images {
  std::vector<DeviceImage> inputs;
  DeviceImage output;
};

Case gauss_case(Env& env, Format format, SepFilterMethod method, int k, const char* config) {
  auto images = std::make_shared<Images>();
  const Size size = env.settings.size;
  for (int s = 0; s < env.settings.input_sets; ++s) {
    DeviceImage image(env.context, size.width, size.height, format);
    env.queue.fill_bytes(image, static_cast<std::uint8_t>(17 * s + 1));
    images->inputs.push_back(image);
  }
  images->output = DeviceImage(env.context, size.width, size.height, format);
  Case c;
  c.op = "gaussian_blur";
  c.variant = std::string(to_string(method));
  c.config = config;
  c.size = size;
  c.bytes = 2.0 * static_cast<double>(size.width) * size.height * static_cast<double>(format.pixel_size());
  Queue& queue = env.queue;
  c.run = [images, method, k, &queue](int set) {
    GaussianBlurOptions o;
    o.ksize = {k, k};
    o.method = method;
    return gaussian_blur(queue, images->inputs[static_cast<std::size_t>(set)], images->output, o);
  };
  return c;
}

std::vector<Case> cases(Env& env) {
  std::vector<Case> out;
  out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::automatic, 5, "u8 5x5"));
  out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::tiled, 5, "u8 5x5"));
  out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::wide_rows, 5, "u8 5x5"));
  out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::fused_direct, 5, "u8 5x5"));
  out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::fused, 5, "u8 5x5"));
  out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::two_pass, 5, "u8 5x5"));
  for (const auto& [k, config] : {std::pair{3, "u8 3x3"}, std::pair{7, "u8 7x7"}, std::pair{9, "u8 9x9"}}) {
    out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::tiled, k, config));
    out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::wide_rows, k, config));
    out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::fused_direct, k, config));
  }
  out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::fused_direct, 31, "u8 31x31"));
  out.push_back(gauss_case(env, Format{Depth::u8, 1}, SepFilterMethod::fused, 31, "u8 31x31"));
  out.push_back(gauss_case(env, Format{Depth::u8, 3}, SepFilterMethod::automatic, 7, "u8x3 7x7"));
  out.push_back(gauss_case(env, Format{Depth::u8, 3}, SepFilterMethod::tiled, 7, "u8x3 7x7"));
  out.push_back(gauss_case(env, Format{Depth::u8, 3}, SepFilterMethod::wide_rows, 7, "u8x3 7x7"));
  out.push_back(gauss_case(env, Format{Depth::u8, 4}, SepFilterMethod::tiled, 5, "u8x4 5x5"));
  out.push_back(gauss_case(env, Format{Depth::u8, 4}, SepFilterMethod::wide_rows, 5, "u8x4 5x5"));
  out.push_back(gauss_case(env, Format{Depth::u8, 3}, SepFilterMethod::fused_direct, 7, "u8x3 7x7"));
  out.push_back(gauss_case(env, Format{Depth::u8, 3}, SepFilterMethod::fused, 7, "u8x3 7x7"));
  out.push_back(gauss_case(env, Format{Depth::f32, 1}, SepFilterMethod::fused_direct, 31, "f32 31x31"));
  out.push_back(gauss_case(env, Format{Depth::f32, 1}, SepFilterMethod::fused, 31, "f32 31x31"));
  return out;
}

const Registration registration("gaussian_blur", cases);

}  // namespace
}  // namespace plinth::bench
