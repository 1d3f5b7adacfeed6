// filter2d cases: 3x3 to 31x31 kernels, fused tile and the direct reference.
#include <memory>
#include <string>
#include <vector>

#include "bench.hpp"

namespace plinth::bench {
namespace {

struct State {
  std::vector<DeviceImage> inputs;
  DeviceImage output;
  Filter2DKernel kernel;
};

Case conv_case(Env& env, Format format, Filter2DMethod method, int k, const char* config) {
  auto state = std::make_shared<State>();
  const Size size = env.settings.size;
  for (int s = 0; s < env.settings.input_sets; ++s) {
    DeviceImage image(env.context, size.width, size.height, format);
    env.queue.fill_bytes(image, static_cast<std::uint8_t>(29 * s + 3));
    state->inputs.push_back(image);
  }
  state->output = DeviceImage(env.context, size.width, size.height, format);
  std::vector<float> coefficients(static_cast<std::size_t>(k * k));
  for (std::size_t i = 0; i < coefficients.size(); ++i) {
    coefficients[i] = (static_cast<float>(i % 7) - 2.5f) / static_cast<float>(coefficients.size());
  }
  state->kernel = Filter2DKernel(env.queue, Size{k, k}, coefficients);
  Case c;
  c.op = "filter2d";
  c.variant = std::string(to_string(method));
  c.config = config;
  c.size = size;
  c.bytes = 2.0 * static_cast<double>(size.width) * size.height * static_cast<double>(format.pixel_size());
  Queue& queue = env.queue;
  c.run = [state, method, &queue](int set) {
    Filter2DOptions o;
    o.method = method;
    return filter2d(queue, state->inputs[static_cast<std::size_t>(set)], state->output, state->kernel, o);
  };
  return c;
}

std::vector<Case> cases(Env& env) {
  std::vector<Case> out;
  out.push_back(conv_case(env, Format{Depth::u8, 1}, Filter2DMethod::tiled_rows, 3, "u8 3x3"));
  out.push_back(conv_case(env, Format{Depth::u8, 1}, Filter2DMethod::fused, 3, "u8 3x3"));
  out.push_back(conv_case(env, Format{Depth::u8, 1}, Filter2DMethod::direct, 3, "u8 3x3"));
  out.push_back(conv_case(env, Format{Depth::f32, 1}, Filter2DMethod::tiled_rows, 7, "f32 7x7"));
  out.push_back(conv_case(env, Format{Depth::f32, 1}, Filter2DMethod::fused, 7, "f32 7x7"));
  out.push_back(conv_case(env, Format{Depth::f32, 1}, Filter2DMethod::automatic, 31, "f32 31x31"));
  out.push_back(conv_case(env, Format{Depth::f32, 1}, Filter2DMethod::tiled_rows, 31, "f32 31x31"));
  out.push_back(conv_case(env, Format{Depth::f32, 1}, Filter2DMethod::fused, 31, "f32 31x31"));
  out.push_back(conv_case(env, Format{Depth::u8, 4}, Filter2DMethod::tiled_rows, 5, "u8x4 5x5"));
  out.push_back(conv_case(env, Format{Depth::u8, 4}, Filter2DMethod::fused, 5, "u8x4 5x5"));
  return out;
}

const Registration registration("filter2d", cases);

}  // namespace
}  // namespace plinth::bench
