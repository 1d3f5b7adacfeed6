// sort_keys, sort_pairs: argument checks, the method table and the launches of kernels/sort.cl.
// docs/sort.md explains the methods and the rules for f32 keys.
#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "ops/sort_support.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace detail {
namespace {

constexpr const char* kSortOp = "sort";

std::size_t groups_for(std::int64_t n, std::int64_t per_group) {
  return static_cast<std::size_t>((n + per_group - 1) / per_group);
}

// One program per (values or not): the key type and order are kernel arguments.
BuildOptions sort_options(const SortJob& job) {
  BuildOptions options;
  options.define("HAS_VALUES", job.has_values ? 1 : 0);
  return options;
}

Event run_radix(Queue& queue, const SortJob& job) {
  const std::int64_t n = job.keys_in.size;
  const auto program = get_program(queue, "sort.cl", sort_options(job));
  const KeyOrder order = key_order(job.key_depth, job.order);
  const int tiles = static_cast<int>(groups_for(n, SORT_TILE));
  const std::size_t count_words = static_cast<std::size_t>(SORT_DIGITS) * (static_cast<std::size_t>(tiles) + 1);
  const ScratchLease counts = scratch(queue, "sort.counts", count_words * 4);
  const ScratchLease tmp_keys = scratch(queue, "sort.keys", static_cast<std::size_t>(n) * 4);
  const Words tmp_k{tmp_keys.buffer, 0, n};
  Words tmp_v = tmp_k;  // unused without values
  if (job.has_values) tmp_v = Words{scratch(queue, "sort.values", static_cast<std::size_t>(n) * 4).buffer, 0, n};
  const Words values_in = job.has_values ? job.values_in : job.keys_in;
  const Words values_out = job.has_values ? job.values_out : job.keys_out;

  // Four passes: input -> scratch -> output -> scratch -> output. The output is first written
  // after the input's last read, so keys_out may be keys_in.
  Words src_k = job.keys_in, src_v = values_in;
  std::shared_ptr<EventImpl> first, last;
  const std::size_t group = SORT_GROUP;
  const std::size_t tiles_items = static_cast<std::size_t>(tiles) * group;
  for (int pass = 0; pass < 32 / SORT_RADIX_BITS; ++pass) {
    const bool to_output = pass % 2 == 1;
    const Words dst_k = to_output ? job.keys_out : tmp_k;
    const Words dst_v = to_output ? values_out : tmp_v;
    const int shift = pass * SORT_RADIX_BITS;
    const int is_first = pass == 0 ? 1 : 0;
    const int is_last = pass == 32 / SORT_RADIX_BITS - 1 ? 1 : 0;

    Launch count(queue, program, "radix_count");
    pass_words(count, src_k);
    count.arg(static_cast<int>(n)).arg(shift).arg(is_first);
    pass_key_order(count, order).buffer(*counts.buffer).arg(0).arg(tiles);
    auto e = count.run(range(tiles_items), range(group));
    if (!first) first = e;

    Launch scan(queue, program, "sort_scan_rows");
    scan.buffer(*counts.buffer).arg(0).arg(tiles).buffer(*counts.buffer).arg(SORT_DIGITS * tiles);
    scan.run(range(static_cast<std::size_t>(SORT_DIGITS) * group), range(group));

    Launch scatter(queue, program, "radix_scatter");
    pass_words(scatter, src_k);
    pass_words(scatter, src_v);
    pass_words(scatter, dst_k);
    pass_words(scatter, dst_v);
    scatter.arg(static_cast<int>(n)).arg(shift).arg(is_first).arg(is_last);
    pass_key_order(scatter, order).buffer(*counts.buffer).arg(0).arg(tiles);
    last = scatter.run(range(tiles_items), range(group));
    src_k = dst_k;
    src_v = dst_v;
  }
  return Event(first, last);
}

// Keys back from sorted (word, index) pairs, values by index. When values_out is values_in (in
// place), the values are saved to scratch first, as the gather reads them in another order.
std::shared_ptr<EventImpl> gather(Queue& queue, const std::shared_ptr<Program>& program, const SortJob& job,
                                  const Buffer& pairs, std::shared_ptr<EventImpl>& first) {
  const std::int64_t n = job.keys_in.size;
  const std::size_t items = round_up(static_cast<std::size_t>(n), SORT_GROUP);
  Words values = job.has_values ? job.values_in : job.keys_in;
  if (job.has_values && same_words(job.values_in, job.values_out)) {
    const Words saved{scratch(queue, "sort.saved_values", static_cast<std::size_t>(n) * 4).buffer, 0, n};
    Launch copy(queue, program, "sort_copy");
    pass_words(copy, job.values_in);
    pass_words(copy, saved);
    copy.arg(static_cast<int>(n));
    auto e = copy.run(range(items), range(SORT_GROUP));
    if (!first) first = e;
    values = saved;
  }
  Launch g(queue, program, "sort_gather");
  g.buffer(pairs).arg(static_cast<int>(n));
  pass_key_order(g, key_order(job.key_depth, job.order));
  pass_words(g, job.keys_out);
  pass_words(g, values);
  pass_words(g, job.has_values ? job.values_out : job.keys_out);
  return g.run(range(items), range(SORT_GROUP));
}

Event run_network(Queue& queue, const SortJob& job) {
  const std::int64_t n = job.keys_in.size;
  const auto program = get_program(queue, "sort.cl", sort_options(job));
  const std::int64_t padded = static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(std::max<std::int64_t>(n, 2))));
  const int tile = static_cast<int>(std::min<std::int64_t>(padded, SORT_NETWORK_TILE));
  const Buffer& pairs = *scratch(queue, "sort.pairs", static_cast<std::size_t>(padded) * 8).buffer;

  Launch sort_tiles(queue, program, "network_sort_tiles");
  pass_words(sort_tiles, job.keys_in);
  sort_tiles.arg(static_cast<int>(n)).arg(static_cast<int>(padded)).arg(tile).arg(1);
  pass_key_order(sort_tiles, key_order(job.key_depth, job.order)).buffer(pairs);
  std::shared_ptr<EventImpl> first = sort_tiles.run(range(groups_for(padded, tile) * SORT_GROUP), range(SORT_GROUP));
  for (std::int64_t k = 2 * SORT_NETWORK_TILE; k <= padded; k *= 2) {
    for (std::int64_t j = k / 2; j >= SORT_NETWORK_TILE; j /= 2) {
      Launch step(queue, program, "bitonic_merge_global");
      step.buffer(pairs).arg(static_cast<int>(k)).arg(static_cast<int>(j));
      step.run(range(static_cast<std::size_t>(padded / 2)), range(SORT_GROUP));
    }
    Launch merge_tile(queue, program, "bitonic_merge_tile");
    merge_tile.buffer(pairs).arg(static_cast<int>(k));
    merge_tile.run(range(groups_for(padded, SORT_NETWORK_TILE) * SORT_GROUP), range(SORT_GROUP));
  }
  auto last = gather(queue, program, job, pairs, first);
  return Event(first, last);
}

Event run_merge(Queue& queue, const SortJob& job) {
  const std::int64_t n = job.keys_in.size;
  const auto program = get_program(queue, "sort.cl", sort_options(job));
  const int tile = static_cast<int>(std::min<std::uint64_t>(std::bit_ceil(static_cast<std::uint64_t>(n)), SORT_NETWORK_TILE));
  const Buffer* a = scratch(queue, "sort.pairs", static_cast<std::size_t>(n) * 8).buffer;
  const Buffer* b = scratch(queue, "sort.pairs2", static_cast<std::size_t>(n) * 8).buffer;

  Launch sort_tiles(queue, program, "network_sort_tiles");
  pass_words(sort_tiles, job.keys_in);
  sort_tiles.arg(static_cast<int>(n)).arg(static_cast<int>(n)).arg(tile).arg(0);
  pass_key_order(sort_tiles, key_order(job.key_depth, job.order)).buffer(*a);
  std::shared_ptr<EventImpl> first = sort_tiles.run(range(groups_for(n, tile) * SORT_GROUP), range(SORT_GROUP));
  const std::size_t items = round_up(static_cast<std::size_t>(n), SORT_GROUP);
  for (std::int64_t width = tile; width < n; width *= 2) {
    Launch merge(queue, program, "merge_pass");
    merge.buffer(*a).buffer(*b).arg(static_cast<int>(n)).arg(static_cast<int>(width));
    merge.run(range(items), range(SORT_GROUP));
    std::swap(a, b);
  }
  auto last = gather(queue, program, job, *a, first);
  return Event(first, last);
}

// The methods, declared once. Automatic: the network for what one work-group sorts (two
// launches), radix beyond (docs/sort.md has the measurements).
struct MethodEntry {
  SortMethodInfo info;
  Event (*launch)(Queue&, const SortJob&);
};
constexpr MethodEntry kMethods[] = {
    {{SortMethod::automatic, "auto", "network up to one work-group's tile, radix beyond"}, nullptr},
    {{SortMethod::radix, "radix", "LSD radix sort, 8 bits a pass: per-tile counts, scan, stable local ranking and scatter"},
     run_radix},
    {{SortMethod::merge, "merge", "tiles by the bitonic network, then merge passes by branchless binary search"}, run_merge},
    {{SortMethod::network, "network", "bitonic sorting network over (key, index) pairs padded to a power of two"},
     run_network},
};

const MethodEntry& entry(SortMethod method) {
  for (const MethodEntry& e : kMethods) {
    if (e.info.method == method) return e;
  }
  throw Error(ErrorCode::internal, kSortOp, "method", "not in the method table");
}

}  // namespace

Event run_sort(Queue& queue, const SortJob& job) {
  SortMethod method = job.method;
  if (method == SortMethod::automatic) method = job.keys_in.size <= SORT_NETWORK_TILE ? SortMethod::network : SortMethod::radix;
  return entry(method).launch(queue, job);
}

}  // namespace detail

std::span<const SortMethodInfo> sort_methods() noexcept {
  static const auto infos = [] {
    std::array<SortMethodInfo, std::size(detail::kMethods)> out{};
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = detail::kMethods[i].info;
    return out;
  }();
  return infos;
}

std::string_view to_string(SortMethod method) noexcept {
  for (const auto& e : detail::kMethods) {
    if (e.info.method == method) return e.info.name;
  }
  return "?";
}

std::string_view to_string(SortOrder order) noexcept { return order == SortOrder::ascending ? "ascending" : "descending"; }

SortMethod parse_sort_method(std::string_view text) {
  std::string names;
  for (const auto& e : detail::kMethods) {
    if (text == e.info.name) return e.info.method;
    names += (names.empty() ? "" : ", ") + std::string(e.info.name);
  }
  throw Error(ErrorCode::invalid_argument, detail::kSortOp, "method", "unknown method '" + std::string(text) + "' (expected " + names + ")");
}

namespace {

void check_sort_arrays(Queue& queue, const DeviceArray& keys_in, const DeviceArray& keys_out, std::string_view op) {
  detail::check_array(queue, keys_in, op, "keys_in");
  detail::check_array(queue, keys_out, op, "keys_out");
  detail::check_keys(keys_in, op, "keys_in");
  if (keys_out.format() != keys_in.format() || keys_out.size() != keys_in.size()) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "keys_out", "differs from keys_in in size or format");
  }
}

void check_method(SortMethod method, std::string_view op) {
  for (const auto& e : detail::kMethods) {
    if (e.info.method == method) return;
  }
  throw Error(ErrorCode::invalid_argument, std::string(op), "method", "is not a SortMethod");
}

}  // namespace

Event sort_keys(Queue& queue, const DeviceArray& keys_in, const DeviceArray& keys_out, SortOrder order, SortMethod method) {
  constexpr std::string_view op = "sort_keys";
  check_sort_arrays(queue, keys_in, keys_out, op);
  check_method(method, op);
  if (!detail::identical(keys_in, keys_out)) detail::check_no_overlap(keys_out, keys_in, op, "keys_out");
  detail::SortJob job;
  job.keys_in = detail::words(keys_in);
  job.keys_out = detail::words(keys_out);
  job.key_depth = keys_in.depth();
  job.order = order;
  job.method = method;
  return detail::run_sort(queue, job);
}

Event sort_pairs(Queue& queue, const DeviceArray& keys_in, const DeviceArray& values_in, const DeviceArray& keys_out,
                 const DeviceArray& values_out, SortOrder order, SortMethod method) {
  constexpr std::string_view op = "sort_pairs";
  check_sort_arrays(queue, keys_in, keys_out, op);
  check_method(method, op);
  detail::check_array(queue, values_in, op, "values_in");
  detail::check_array(queue, values_out, op, "values_out");
  detail::check_words(values_in, op, "values_in");
  if (values_in.size() != keys_in.size()) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "values_in",
                "has " + std::to_string(values_in.size()) + " elements for " + std::to_string(keys_in.size()) + " keys");
  }
  if (values_out.format() != values_in.format() || values_out.size() != values_in.size()) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "values_out", "differs from values_in in size or format");
  }
  // In place means an output identical to its own input; any other sharing is refused.
  if (!detail::identical(keys_out, keys_in)) detail::check_no_overlap(keys_out, keys_in, op, "keys_out");
  detail::check_no_overlap(keys_out, values_in, op, "keys_out");
  if (!detail::identical(values_out, values_in)) detail::check_no_overlap(values_out, values_in, op, "values_out");
  detail::check_no_overlap(values_out, keys_in, op, "values_out");
  detail::check_no_overlap(values_out, keys_out, op, "values_out");
  detail::SortJob job;
  job.keys_in = detail::words(keys_in);
  job.values_in = detail::words(values_in);
  job.keys_out = detail::words(keys_out);
  job.values_out = detail::words(values_out);
  job.has_values = true;
  job.key_depth = keys_in.depth();
  job.order = order;
  job.method = method;
  return detail::run_sort(queue, job);
}

}  // namespace plinth
