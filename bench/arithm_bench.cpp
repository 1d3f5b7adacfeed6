// Benchmark cases of add / subtract / absdiff (include/plinth/arithm.hpp): the plain kernel against
// the vector kernel (the case study's float4 matrix add) on aligned images and on views whose rows
// start one element off alignment.
#include <memory>

#include "bench_support.hpp"
#include "nv12_inputs.hpp"
#include "plinth/arithm.hpp"

namespace plinth::bench {
namespace {


enum class Op { add, subtract, absdiff };

Event run_op(Op op, Queue& q, const DeviceImage& a, const DeviceImage& b, DeviceImage& dst, ElementwiseMethod m) {
  switch (op) {
    case Op::add: return add(q, a, b, dst, m);
    case Op::subtract: return subtract(q, a, b, dst, m);
    case Op::absdiff: return absdiff(q, a, b, dst, m);
  }
  return {};
}

std::vector<Case> make_cases(Env& env) {
  struct Config {
    Op op;
    const char* name;
    Format format;
  };
  const Config configs[] = {{Op::add, "add u8", {Depth::u8, 1}},        {Op::add, "add f32", {Depth::f32, 1}},
                            {Op::add, "add u8C4", {Depth::u8, 4}},      {Op::subtract, "subtract s16", {Depth::s16, 1}},
                            {Op::absdiff, "absdiff u8", {Depth::u8, 1}}, {Op::absdiff, "absdiff f32", {Depth::f32, 1}}};
  const Size size = env.settings.size;
  Queue* queue = &env.queue;
  std::vector<Case> cases;
  for (const Config& c : configs) {
    auto a = std::make_shared<std::vector<DeviceImage>>(random_device_images(env, size, c.format, env.settings.input_sets, 0xadd1));
    auto b = std::make_shared<std::vector<DeviceImage>>(random_device_images(env, size, c.format, env.settings.input_sets, 0xadd2));
    auto dst = std::make_shared<std::vector<DeviceImage>>(device_images(env, size, c.format, env.settings.input_sets));
    // Views one pixel in from the left of images one pixel wider: rows off 16-byte alignment.
    const Size wider{size.width + 1, size.height};
    auto va = std::make_shared<std::vector<DeviceImage>>(random_device_images(env, wider, c.format, env.settings.input_sets, 0xadd3));
    auto vb = std::make_shared<std::vector<DeviceImage>>(random_device_images(env, wider, c.format, env.settings.input_sets, 0xadd4));
    auto vdst = std::make_shared<std::vector<DeviceImage>>(device_images(env, wider, c.format, env.settings.input_sets));
    for (auto* set : {va.get(), vb.get(), vdst.get()}) {
      for (DeviceImage& image : *set) image = image.view(Rect{1, 0, size.width, size.height});
    }
    for (ElementwiseMethod m : {ElementwiseMethod::plain, ElementwiseMethod::vector}) {
      for (bool views : {false, true}) {
        Case k;
        k.op = "arithm";
        k.variant = std::string(to_string(m)) + (views ? " unaligned" : "");
        k.config = c.name;
        k.size = size;
        k.bytes = 3 * image_bytes(size, c.format);
        const Op op = c.op;
        auto A = views ? va : a, B = views ? vb : b, D = views ? vdst : dst;
        k.run = [=](int s) {
          const auto i = static_cast<std::size_t>(s);
          return run_op(op, *queue, (*A)[i], (*B)[i], (*D)[i], m);
        };
        cases.push_back(std::move(k));
      }
    }
  }
  return cases;
}

const Registration registration("arithm", make_cases);

}  // namespace
}  // namespace plinth::bench
