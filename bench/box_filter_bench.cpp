// Box filter cases. "u8 8x8" and "u8 31x31" (one channel) line up with NPP's nppiFilterBoxBorder.
#include <memory>
#include <string>
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
    env.queue.fill_bytes(image, static_cast<std::uint8_t>(37 * s + 11));
    images->inputs.push_back(image);
  }
  images->output = DeviceImage(env.context, size.width, size.height, format);
  env.queue.finish();
  return images;
}

Case box_case(Env& env, const std::shared_ptr<Images>& images, BoxFilterMethod method, Size ksize, const char* config) {
  Case c;
  c.op = "box_filter";
  c.variant = std::string(to_string(method));
  c.config = config;
  c.size = env.settings.size;
  const double pixels = static_cast<double>(c.size.width) * c.size.height;
  c.bytes = 2.0 * pixels * static_cast<double>(images->inputs[0].format().pixel_size());
  Queue& queue = env.queue;
  c.run = [images, method, ksize, &queue](int set) {
    BoxFilterOptions o;
    o.ksize = ksize;
    o.method = method;
    return box_filter(queue, images->inputs[static_cast<std::size_t>(set)], images->output, o);
  };
  return c;
}

std::vector<Case> cases(Env& env) {
  std::vector<Case> out;
  const auto u8 = make_images(env, Format{Depth::u8, 1});
  out.push_back(box_case(env, u8, BoxFilterMethod::automatic, {8, 8}, "u8 8x8"));
  out.push_back(box_case(env, u8, BoxFilterMethod::tiled, {8, 8}, "u8 8x8"));
  out.push_back(box_case(env, u8, BoxFilterMethod::vector_strips, {8, 8}, "u8 8x8"));
  out.push_back(box_case(env, u8, BoxFilterMethod::registers, {8, 8}, "u8 8x8"));
  out.push_back(box_case(env, u8, BoxFilterMethod::local_scan, {8, 8}, "u8 8x8"));
  out.push_back(box_case(env, u8, BoxFilterMethod::two_pass_8x8, {8, 8}, "u8 8x8"));
  out.push_back(box_case(env, u8, BoxFilterMethod::direct, {8, 8}, "u8 8x8"));
  out.push_back(box_case(env, u8, BoxFilterMethod::automatic, {31, 31}, "u8 31x31"));
  out.push_back(box_case(env, u8, BoxFilterMethod::tiled, {31, 31}, "u8 31x31"));
  out.push_back(box_case(env, u8, BoxFilterMethod::vector_strips, {31, 31}, "u8 31x31"));
  out.push_back(box_case(env, u8, BoxFilterMethod::registers, {31, 31}, "u8 31x31"));
  out.push_back(box_case(env, u8, BoxFilterMethod::local_scan, {31, 31}, "u8 31x31"));
  out.push_back(box_case(env, u8, BoxFilterMethod::direct, {31, 31}, "u8 31x31"));
  out.push_back(box_case(env, u8, BoxFilterMethod::wide_rows, {8, 8}, "u8 8x8"));
  out.push_back(box_case(env, u8, BoxFilterMethod::automatic, {3, 3}, "u8 3x3"));
  out.push_back(box_case(env, u8, BoxFilterMethod::tiled, {3, 3}, "u8 3x3"));
  out.push_back(box_case(env, u8, BoxFilterMethod::wide_rows, {3, 3}, "u8 3x3"));
  out.push_back(box_case(env, u8, BoxFilterMethod::automatic, {5, 5}, "u8 5x5"));
  out.push_back(box_case(env, u8, BoxFilterMethod::tiled, {5, 5}, "u8 5x5"));
  out.push_back(box_case(env, u8, BoxFilterMethod::wide_rows, {5, 5}, "u8 5x5"));
  out.push_back(box_case(env, u8, BoxFilterMethod::automatic, {15, 15}, "u8 15x15"));
  out.push_back(box_case(env, u8, BoxFilterMethod::tiled, {15, 15}, "u8 15x15"));
  out.push_back(box_case(env, u8, BoxFilterMethod::vector_strips, {15, 15}, "u8 15x15"));
  out.push_back(box_case(env, u8, BoxFilterMethod::local_scan, {15, 15}, "u8 15x15"));
  out.push_back(box_case(env, u8, BoxFilterMethod::local_scan, {255, 255}, "u8 255x255"));
  const auto rgba = make_images(env, Format{Depth::u8, 4});
  out.push_back(box_case(env, rgba, BoxFilterMethod::automatic, {8, 8}, "u8x4 8x8"));
  out.push_back(box_case(env, rgba, BoxFilterMethod::tiled, {8, 8}, "u8x4 8x8"));
  out.push_back(box_case(env, rgba, BoxFilterMethod::wide_rows, {8, 8}, "u8x4 8x8"));
  out.push_back(box_case(env, rgba, BoxFilterMethod::tiled, {3, 3}, "u8x4 3x3"));
  out.push_back(box_case(env, rgba, BoxFilterMethod::wide_rows, {3, 3}, "u8x4 3x3"));
  out.push_back(box_case(env, rgba, BoxFilterMethod::vector_strips, {8, 8}, "u8x4 8x8"));
  out.push_back(box_case(env, rgba, BoxFilterMethod::local_scan, {8, 8}, "u8x4 8x8"));
  out.push_back(box_case(env, rgba, BoxFilterMethod::registers, {8, 8}, "u8x4 8x8"));
  const auto rgb = make_images(env, Format{Depth::u8, 3});
  for (const Size k : {Size{3, 3}, Size{8, 8}}) {
    const char* config = k.width == 3 ? "u8x3 3x3" : "u8x3 8x8";
    out.push_back(box_case(env, rgb, BoxFilterMethod::automatic, k, config));
    out.push_back(box_case(env, rgb, BoxFilterMethod::tiled, k, config));
    out.push_back(box_case(env, rgb, BoxFilterMethod::wide_rows, k, config));
  }
  const auto f32 = make_images(env, Format{Depth::f32, 1});
  out.push_back(box_case(env, f32, BoxFilterMethod::automatic, {31, 31}, "f32 31x31"));
  return out;
}

const Registration registration("box_filter", cases);

}  // namespace
}  // namespace plinth::bench
