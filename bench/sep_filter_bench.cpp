// Separable filter cases. "f32 31-tap" (one channel) lines up with NPP's nppiFilterRowBorder +
// nppiFilterColumnBorder pair.
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

std::shared_ptr<Images> make_images(Env& env, Format format) {
  auto images = std::make_shared<Images>();
  const Size size = env.settings.size;
  for (int s = 0; s < env.settings.input_sets; ++s) {
    DeviceImage image(env.context, size.width, size.height, format);
    env.queue.fill_bytes(image, static_cast<std::uint8_t>(13 * s + 5));
    images->inputs.push_back(image);
  }
  images->output = DeviceImage(env.context, size.width, size.height, format);
  env.queue.finish();
  return images;
}

// A normalised Gaussian-like kernel of n taps (not a multiple of 1/256: the float path).
std::vector<float> kernel(int n) {
  std::vector<float> k(static_cast<std::size_t>(n));
  float sum = 0;
  for (int i = 0; i < n; ++i) {
    const float x = static_cast<float>(i - n / 2) / (0.3f * static_cast<float>(n));
    k[static_cast<std::size_t>(i)] = 1.0f / (1.0f + x * x);
    sum += k[static_cast<std::size_t>(i)];
  }
  for (float& v : k) v /= sum;
  return k;
}

// The binomial kernel of n taps (n = 5 or 9), multiples of 1/256: the 8-bit fixed-point path.
std::vector<float> binomial_kernel(int n) {
  if (n == 5) return {16 / 256.0f, 64 / 256.0f, 96 / 256.0f, 64 / 256.0f, 16 / 256.0f};
  return {1 / 256.0f, 8 / 256.0f, 28 / 256.0f, 56 / 256.0f, 70 / 256.0f, 56 / 256.0f, 28 / 256.0f, 8 / 256.0f, 1 / 256.0f};
}

Case sep_case(Env& env, const std::shared_ptr<Images>& images, SepFilterMethod method, int taps, const char* config,
              bool fixed = false) {
  Case c;
  c.op = "sep_filter";
  c.variant = std::string(to_string(method));
  c.config = config;
  c.size = env.settings.size;
  c.bytes = 2.0 * static_cast<double>(c.size.width) * c.size.height * static_cast<double>(images->inputs[0].format().pixel_size());
  Queue& queue = env.queue;
  const std::vector<float> k = fixed ? binomial_kernel(taps) : kernel(taps);
  c.run = [images, method, k, &queue](int set) {
    SepFilterOptions o;
    o.method = method;
    return sep_filter(queue, images->inputs[static_cast<std::size_t>(set)], images->output, k, k, o);
  };
  return c;
}

std::vector<Case> cases(Env& env) {
  std::vector<Case> out;
  const auto f32 = make_images(env, Format{Depth::f32, 1});
  out.push_back(sep_case(env, f32, SepFilterMethod::automatic, 31, "f32 31-tap"));
  out.push_back(sep_case(env, f32, SepFilterMethod::fused_direct, 31, "f32 31-tap"));
  out.push_back(sep_case(env, f32, SepFilterMethod::fused, 31, "f32 31-tap"));
  out.push_back(sep_case(env, f32, SepFilterMethod::two_pass, 31, "f32 31-tap"));
  out.push_back(sep_case(env, f32, SepFilterMethod::fused_direct, 5, "f32 5-tap"));
  out.push_back(sep_case(env, f32, SepFilterMethod::fused, 5, "f32 5-tap"));
  const auto u8 = make_images(env, Format{Depth::u8, 1});
  out.push_back(sep_case(env, u8, SepFilterMethod::fused_direct, 31, "u8 31-tap"));
  out.push_back(sep_case(env, u8, SepFilterMethod::fused, 31, "u8 31-tap"));
  out.push_back(sep_case(env, u8, SepFilterMethod::fused_direct, 5, "u8 5-tap"));
  out.push_back(sep_case(env, u8, SepFilterMethod::fused, 5, "u8 5-tap"));
  for (const auto& [taps, config] : {std::pair{5, "u8 5-tap fixed"}, std::pair{9, "u8 9-tap fixed"}}) {
    out.push_back(sep_case(env, u8, SepFilterMethod::automatic, taps, config, true));
    out.push_back(sep_case(env, u8, SepFilterMethod::tiled, taps, config, true));
    out.push_back(sep_case(env, u8, SepFilterMethod::wide_rows, taps, config, true));
    out.push_back(sep_case(env, u8, SepFilterMethod::fused_direct, taps, config, true));
  }
  const auto rgba = make_images(env, Format{Depth::u8, 4});
  out.push_back(sep_case(env, rgba, SepFilterMethod::automatic, 9, "u8x4 9-tap"));
  out.push_back(sep_case(env, rgba, SepFilterMethod::fused_direct, 9, "u8x4 9-tap"));
  out.push_back(sep_case(env, rgba, SepFilterMethod::fused, 9, "u8x4 9-tap"));
  return out;
}

const Registration registration("sep_filter", cases);

}  // namespace
}  // namespace plinth::bench
