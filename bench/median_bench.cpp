// Benchmark cases of median_blur (include/plinth/filters.hpp). The one-channel u8 configs "u8 3x3",
// "u8 5x5" and "u8 7x7" line up with NPP's nppiFilterMedian; every applicable variant is timed.
#include <memory>

#include "bench_support.hpp"
#include "nv12_inputs.hpp"

namespace plinth::bench {
namespace {


struct Config {
  Depth depth;
  int channels;
  int ksize;
};

std::string config_name(const Config& c) {
  std::string name = std::string(to_string(c.depth)) + " " + std::to_string(c.ksize) + "x" + std::to_string(c.ksize);
  if (c.channels != 1) name += " C" + std::to_string(c.channels);
  return name;
}

bool applies(MedianMethod m, const Config& c) {
  switch (m) {
    case MedianMethod::automatic: return true;
    case MedianMethod::sorted_columns: return c.ksize == 3;
    case MedianMethod::network: return c.ksize <= 7;
    case MedianMethod::histogram: return c.depth == Depth::u8;
    case MedianMethod::tiled: return c.ksize <= 9;
    case MedianMethod::sorted_rows_packed: return c.ksize == 3 && c.depth == Depth::u8 && c.channels != 3;
    case MedianMethod::tiled_packed: return c.ksize <= 9 && (c.depth == Depth::u8 || c.depth == Depth::u16);
    case MedianMethod::plain: return false;  // the reference: far too slow to time at 4K
  }
  return false;
}

std::vector<Case> make_cases(Env& env) {
  const Config configs[] = {{Depth::u8, 1, 3},  {Depth::u8, 1, 5},  {Depth::u8, 1, 7},  {Depth::u8, 1, 9},
                            {Depth::u8, 1, 15}, {Depth::u8, 1, 31}, {Depth::u8, 2, 3},  {Depth::u8, 4, 3},  {Depth::u8, 4, 5},
                            {Depth::u8, 4, 7},  {Depth::u16, 1, 3}, {Depth::u16, 1, 5}, {Depth::f32, 1, 3},
                            {Depth::f32, 1, 5}, {Depth::f32, 4, 3}};
  const Size size = env.settings.size;
  Queue* queue = &env.queue;
  std::vector<Case> cases;
  for (const Config& c : configs) {
    const Format format{c.depth, c.channels};
    auto src = std::make_shared<std::vector<DeviceImage>>(random_device_images(env, size, format, env.settings.input_sets, 0x3ed1a0 + static_cast<std::uint64_t>(c.ksize)));
    auto dst = std::make_shared<std::vector<DeviceImage>>(device_images(env, size, format, env.settings.input_sets));
    for (MedianMethod m : {MedianMethod::automatic, MedianMethod::sorted_columns, MedianMethod::network, MedianMethod::histogram,
                           MedianMethod::tiled, MedianMethod::sorted_rows_packed, MedianMethod::tiled_packed}) {
      if (!applies(m, c)) continue;
      Case k;
      k.op = "median";
      k.variant = std::string(to_string(m));
      k.config = config_name(c);
      k.size = size;
      k.bytes = 2 * image_bytes(size, format);
      MedianOptions options;
      options.ksize = c.ksize;
      options.method = m;
      k.run = [=](int s) { return median_blur(*queue, (*src)[static_cast<std::size_t>(s)], (*dst)[static_cast<std::size_t>(s)], options); };
      cases.push_back(std::move(k));
    }
  }
  return cases;
}

const Registration registration("median", make_cases);

}  // namespace
}  // namespace plinth::bench
