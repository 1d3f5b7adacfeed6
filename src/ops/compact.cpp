// compact: argument checks and the launches of kernels/compact.cl.
#include <string>

#include "ops/sort_support.hpp"
#include "plinth/error.hpp"

namespace plinth {

Event compact(Queue& queue, const DeviceArray& values, const DeviceArray& flags, const DeviceArray& out, const DeviceArray& count) {
  constexpr std::string_view op = "compact";
  detail::check_array(queue, values, op, "values");
  detail::check_array(queue, flags, op, "flags");
  detail::check_array(queue, out, op, "out");
  detail::check_array(queue, count, op, "count");
  detail::check_words(values, op, "values");
  if (flags.format() != Format{Depth::u8, 1} || flags.size() != values.size()) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "flags", "needs one channel of u8 and the values' size");
  }
  if (out.format() != values.format() || out.size() < values.size()) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "out", "needs the values' format and at least their size");
  }
  if (count.format() != Format{Depth::u32, 1} || count.size() != 1) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "count", "needs one u32 element");
  }
  for (const DeviceArray* written : {&out, &count}) {
    const char* name = written == &out ? "out" : "count";
    detail::check_no_overlap(*written, values, op, name);
    detail::check_no_overlap(*written, flags, op, name);
  }
  detail::check_no_overlap(count, out, op, "count");

  const std::int64_t n = values.size();
  const auto program = detail::get_program(queue, "compact.cl", detail::BuildOptions{});
  const int tiles = static_cast<int>((n + SORT_TILE - 1) / SORT_TILE);
  const detail::Buffer& counts = *detail::scratch(queue, "compact.counts", static_cast<std::size_t>(tiles) * 4).buffer;
  const std::size_t group = SORT_GROUP;
  const auto items = detail::range(static_cast<std::size_t>(tiles) * group);

  detail::Launch counting(queue, program, "compact_count");
  counting.array(flags).arg(static_cast<int>(n)).buffer(counts);
  auto first = counting.run(items, detail::range(group));
  detail::Launch scan(queue, program, "compact_scan");
  scan.buffer(counts).arg(tiles).array(count);
  scan.run(detail::range(group), detail::range(group));
  detail::Launch scatter(queue, program, "compact_scatter");
  scatter.array(values).array(flags).array(out).arg(static_cast<int>(n)).buffer(counts);
  return Event(first, scatter.run(items, detail::range(group)));
}

}  // namespace plinth
