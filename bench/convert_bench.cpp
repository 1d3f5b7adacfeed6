// Benchmark cases of convert_to (include/plinth/arithm.hpp): common depth changes with and without
// scaling, plain against vector kernels.
#include <memory>

#include "bench_support.hpp"
#include "nv12_inputs.hpp"
#include "plinth/arithm.hpp"

namespace plinth::bench {
namespace {


std::vector<Case> make_cases(Env& env) {
  struct Config {
    Depth from, to;
    double alpha, beta;
  };
  const Config configs[] = {{Depth::u8, Depth::f32, 1.0 / 255.0, 0.0},
                            {Depth::f32, Depth::u8, 255.0, 0.0},
                            {Depth::u8, Depth::s16, 1.0, 0.0},
                            {Depth::u16, Depth::u8, 1.0 / 256.0, 0.0},
                            {Depth::s32, Depth::f32, 1.0, 0.0}};
  const Size size = env.settings.size;
  Queue* queue = &env.queue;
  std::vector<Case> cases;
  for (const Config& c : configs) {
    auto src = std::make_shared<std::vector<DeviceImage>>(random_device_images(env, size, {c.from, 1}, env.settings.input_sets, 0xc0e));
    auto dst = std::make_shared<std::vector<DeviceImage>>(device_images(env, size, {c.to, 1}, env.settings.input_sets));
    for (ElementwiseMethod m : {ElementwiseMethod::plain, ElementwiseMethod::vector}) {
      Case k;
      k.op = "convert";
      k.variant = std::string(to_string(m));
      k.config = std::string(to_string(c.from)) + " -> " + std::string(to_string(c.to)) +
                 (c.alpha != 1.0 || c.beta != 0.0 ? " scaled" : "");
      k.size = size;
      k.bytes = image_bytes(size, {c.from, 1}) + image_bytes(size, {c.to, 1});
      const Depth to = c.to;
      const ConvertOptions options{c.alpha, c.beta, m};
      k.run = [=](int s) {
        const auto i = static_cast<std::size_t>(s);
        return convert_to(*queue, (*src)[i], (*dst)[i], to, options);
      };
      cases.push_back(std::move(k));
    }
  }
  return cases;
}

const Registration registration("convert", make_cases);

}  // namespace
}  // namespace plinth::bench
