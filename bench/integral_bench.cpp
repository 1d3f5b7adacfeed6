// Benchmark cases of the integral op (include/plinth/integral.hpp): every method for the u8 sum
// to s32 and to u32, the sum with its f64 squared sum (every method that computes both), the
// tilted and count integrals, and a batch of 8 images in one call (`cluster` for the sums of one
// image only, on the devices and sizes it takes). A method that cannot do a request fails as an
// error row. A reference row goes with the u8 -> s32 sum: a plain u8 -> s32
// conversion of the same source (the same 5 bytes a pixel with no scan: about the best any single
// pass can do).
#include <array>
#include <memory>

#include "bench_support.hpp"
#include "integral_configs.hpp"
#include "plinth/arithm.hpp"

namespace plinth::bench {
namespace {

namespace cfg = integral_configs;

constexpr std::array kMethods = {IntegralMethod::automatic,   IntegralMethod::row_column,   IntegralMethod::block_4x4,
                                 IntegralMethod::blelloch,    IntegralMethod::blocked_scan, IntegralMethod::single_pass,
                                 IntegralMethod::tiled,       IntegralMethod::resident,     IntegralMethod::cluster};

// Inputs and outputs of every case, one of each per input set; cases of one output depth share
// their outputs (they run one after the other).
struct Buffers {
  std::vector<DeviceImage> src, sum_s32, sum_u32, sqsum_f64;
  std::vector<DeviceImage> batch_src, batch_s32;
  std::vector<DeviceImage> converted;  // W x H views of sum_s32, for the conversion bound
};

Size integral_size(Size s, int images = 1) { return {s.width + 1, images * (s.height + 1)}; }

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  const int sets = env.settings.input_sets;
  auto b = std::make_shared<Buffers>();
  b->src = random_device_images(env, size, {Depth::u8, 1}, sets, 0x1e7e9a1);
  b->sum_s32 = device_images(env, integral_size(size), {Depth::s32, 1}, sets);
  b->sum_u32 = device_images(env, integral_size(size), {Depth::u32, 1}, sets);
  b->sqsum_f64 = device_images(env, integral_size(size), {Depth::f64, 1}, sets);
  const bool batched = cfg::has_batch(size);
  if (batched) {
    const Size stacked{size.width, cfg::batch_images * size.height};
    b->batch_src = random_device_images(env, stacked, {Depth::u8, 1}, sets, 0xba7c4);
    b->batch_s32 = device_images(env, integral_size(size, cfg::batch_images), {Depth::s32, 1}, sets);
  }
  Queue* queue = &env.queue;

  std::vector<Case> cases;
  auto add = [&](std::string_view variant, const char* config, double out_bytes, std::function<Event(int)> run) {
    Case c;
    c.op = "integral";
    c.variant = std::string(variant);
    c.config = config;
    c.size = size;
    c.bytes = cfg::bytes(size, out_bytes);
    c.run = std::move(run);
    cases.push_back(std::move(c));
    return &cases.back();
  };

  // cluster's rows only where the library takes the request (the CUDA backend on sm_90 and newer,
  // images up to kIntegralClusterMaxSize): one call asks, and its refusal (invalid_argument)
  // leaves the rows out. Any other error keeps them, to show as error rows.
  const bool clusters = [&] {
    IntegralOptions o;
    o.method = IntegralMethod::cluster;
    try {
      integral(*queue, b->src[0], b->sum_s32[0], o).wait();
      return true;
    } catch (const Error& e) {
      return e.code() != ErrorCode::invalid_argument;
    }
  }();
  const auto skip = [&](IntegralMethod m) { return m == IntegralMethod::cluster && !clusters; };
  for (IntegralMethod m : kMethods) {
    if (skip(m)) continue;
    add(to_string(m), cfg::sum_s32, 4, [=](int s) {
      IntegralOptions o;
      o.method = m;
      return integral(*queue, b->src[s], b->sum_s32[s], o);
    });
  }
  {
    for (const DeviceImage& out : b->sum_s32) b->converted.push_back(out.view(Rect{0, 0, size.width, size.height}));
    Case* bound = add("bound: convert", cfg::sum_s32, 4, [=](int s) {
      return convert_to(*queue, b->src[s], b->converted[s], Depth::s32);
    });
    bound->bytes = image_bytes(size, {Depth::u8, 1}) + image_bytes(size, {Depth::s32, 1});
    bound->note = "a u8 -> s32 conversion of the same source, no scan";
  }
  for (IntegralMethod m : kMethods) {
    if (skip(m)) continue;
    add(to_string(m), cfg::sum_u32, 4, [=](int s) {
      IntegralOptions o;
      o.method = m;
      return integral(*queue, b->src[s], b->sum_u32[s], o);
    })->compare_config = cfg::sum_s32;  // NPP has no u32 output; both move 5 bytes a pixel
  }
  for (IntegralMethod m : kMethods) {
    if (m == IntegralMethod::resident || m == IntegralMethod::cluster) continue;  // the sum alone (plinth/integral.hpp)
    add(to_string(m), cfg::sum_sqsum, 4 + 8, [=](int s) {
      IntegralOptions o;
      o.method = m;
      return integral(*queue, b->src[s], b->sum_s32[s], b->sqsum_f64[s], o);
    });
  }
  add(to_string(IntegralMethod::automatic), cfg::tilted, 4, [=](int s) {
    return integral(*queue, b->src[s], IntegralOutputs{nullptr, nullptr, &b->sum_s32[s]}, IntegralOptions{});
  });
  add(to_string(IntegralMethod::automatic), cfg::count, 4, [=](int s) {
    return integral_count(*queue, b->src[s], b->sum_s32[s], IntegralOptions{});
  });
  if (batched) {
    for (IntegralMethod m : kMethods) {
      if (m == IntegralMethod::cluster) continue;  // one image a call
      Case* c = add(to_string(m), cfg::batch, 4, [=](int s) {
        IntegralOptions o;
        o.method = m;
        o.batch = cfg::batch_images;
        return integral(*queue, b->batch_src[s], b->batch_s32[s], o);
      });
      c->size = {size.width, cfg::batch_images * size.height};
      c->bytes = cfg::bytes(size, 4, cfg::batch_images);
    }
  }
  return cases;
}

const Registration registration("integral", make_cases);

}  // namespace
}  // namespace plinth::bench
