// add, subtract, absdiff: argument checks and the choice between the plain and vector kernels
// of kernels/arithm.cl.
#include <string>

#include "core/launch.hpp"
#include "ops/elementwise_common.hpp"
#include "plinth/arithm.hpp"

namespace plinth {
namespace {

enum class Op { add, subtract, absdiff };

const char* op_name(Op op) {
  switch (op) {
    case Op::add: return "add";
    case Op::subtract: return "subtract";
    case Op::absdiff: return "absdiff";
  }
  return "?";
}

Event run(Queue& queue, Op op, const DeviceImage& a, const DeviceImage& b, DeviceImage& dst, ElementwiseMethod method) {
  const char* name = op_name(op);
  detail::check_device(queue, a, name, "a");
  detail::check_device(queue, b, name, "b");
  detail::check_depth(a.depth(), {Depth::u8, Depth::s8, Depth::u16, Depth::s16, Depth::s32, Depth::f32, Depth::f64}, name, "a");
  detail::check_same_shape(a.size(), a.format(), b.size(), b.format(), name, "b");
  detail::check_fp64(queue, a.depth() == Depth::f64, name);
  detail::prepare_output(queue, dst, a.size(), a.format(), name, "dst");
  // Each element is read before it is written by the same work-item, so dst may be a or b
  // exactly; any other overlap would read elements another work-item already wrote.
  if (!detail::same_view(dst, a)) detail::check_no_overlap(a, dst, name, "dst");
  if (!detail::same_view(dst, b)) detail::check_no_overlap(b, dst, name, "dst");

  const detail::ElementwisePolicy policy = detail::elementwise_policy();
  const int elements = a.width() * a.channels();
  const int vec = policy.vector_bytes / static_cast<int>(depth_size(a.depth()));
  const bool vector = method != ElementwiseMethod::plain;
  const bool aligned = vector && detail::rows_aligned(a, vec) && detail::rows_aligned(b, vec) && detail::rows_aligned(dst, vec);

  detail::BuildOptions options;
  options.define_depth("SRC", a.depth());
  if (a.depth() == Depth::f64) options.define("PLINTH_NEED_FP64");
  options.define("VEC", vec);
  const auto program = detail::get_program(queue, "arithm.cl", options);

  detail::Launch launch(queue, program, vector ? "arithm_vector" : "arithm_plain");
  launch.arg(static_cast<int>(op));
  if (vector) launch.arg(aligned ? 1 : 0);
  launch.arg(elements).arg(a.height()).image(a).image(b).image(dst);
  const std::size_t items = vector ? static_cast<std::size_t>((elements + vec - 1) / vec) : static_cast<std::size_t>(elements);
  return Event(launch.run(detail::range(detail::round_up(items, policy.group_x),
                                        detail::round_up(static_cast<std::size_t>(a.height()), policy.group_y)),
                          detail::range(policy.group_x, policy.group_y)));
}

HostImage run_host(Queue& queue, Op op, const HostImage& a, const HostImage& b) {
  detail::check_host(a, op_name(op), "a");
  detail::check_host(b, op_name(op), "b");
  const DeviceImage da = queue.upload(a);
  const DeviceImage db = queue.upload(b);
  DeviceImage dst;
  run(queue, op, da, db, dst, ElementwiseMethod::automatic);
  return queue.download(dst);
}

}  // namespace

std::string_view to_string(ElementwiseMethod method) noexcept {
  switch (method) {
    case ElementwiseMethod::automatic: return "auto";
    case ElementwiseMethod::plain: return "plain";
    case ElementwiseMethod::vector: return "vector";
  }
  return "?";
}

ElementwiseMethod parse_elementwise_method(std::string_view text) {
  for (ElementwiseMethod m : {ElementwiseMethod::automatic, ElementwiseMethod::plain, ElementwiseMethod::vector}) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, "parse_elementwise_method", "method",
              "unknown method '" + std::string(text) + "' (expected auto, plain or vector)");
}

Event add(Queue& queue, const DeviceImage& a, const DeviceImage& b, DeviceImage& dst, ElementwiseMethod method) {
  return run(queue, Op::add, a, b, dst, method);
}
Event subtract(Queue& queue, const DeviceImage& a, const DeviceImage& b, DeviceImage& dst, ElementwiseMethod method) {
  return run(queue, Op::subtract, a, b, dst, method);
}
Event absdiff(Queue& queue, const DeviceImage& a, const DeviceImage& b, DeviceImage& dst, ElementwiseMethod method) {
  return run(queue, Op::absdiff, a, b, dst, method);
}

HostImage add(Queue& queue, const HostImage& a, const HostImage& b) { return run_host(queue, Op::add, a, b); }
HostImage subtract(Queue& queue, const HostImage& a, const HostImage& b) { return run_host(queue, Op::subtract, a, b); }
HostImage absdiff(Queue& queue, const HostImage& a, const HostImage& b) { return run_host(queue, Op::absdiff, a, b); }

}  // namespace plinth
