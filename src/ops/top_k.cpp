// top_k: argument checks and the launches of kernels/top_k.cl (radix select, then the
// candidates in index order), and the candidates' stable sort by src/ops/sort.cpp.
#include <algorithm>
#include <string>

#include "ops/sort_support.hpp"
#include "plinth/error.hpp"

namespace plinth {

Event top_k(Queue& queue, const DeviceArray& keys, int k, const DeviceArray& keys_out, const DeviceArray& indices_out,
            SortOrder order) {
  constexpr std::string_view op = "top_k";
  detail::check_array(queue, keys, op, "keys");
  detail::check_keys(keys, op, "keys");
  detail::check_array(queue, keys_out, op, "keys_out");
  detail::check_array(queue, indices_out, op, "indices_out");
  const std::int64_t n = keys.size();
  if (k < 1 || k > n) {
    throw Error(ErrorCode::out_of_range, std::string(op), "k", std::to_string(k) + " is outside 1.." + std::to_string(n) + " (the number of keys)");
  }
  if (keys_out.format() != keys.format() || keys_out.size() < k) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "keys_out", "needs the keys' format and at least k elements");
  }
  if (indices_out.channels() != 1 || (indices_out.depth() != Depth::u32 && indices_out.depth() != Depth::s32) || indices_out.size() < k) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "indices_out", "needs one channel of u32 or s32 and at least k elements");
  }
  detail::check_no_overlap(keys_out, keys, op, "keys_out");
  detail::check_no_overlap(indices_out, keys, op, "indices_out");
  detail::check_no_overlap(indices_out, keys_out, op, "indices_out");

  const auto program = detail::get_program(queue, "top_k.cl", detail::BuildOptions{});
  const detail::KeyOrder key_order = detail::key_order(keys.depth(), order);
  const detail::Words in = detail::words(keys);
  const detail::Buffer& state = *detail::scratch(queue, "top_k.state", TOPK_STATE_WORDS * 4).buffer;
  const int tiles = static_cast<int>((n + SORT_TILE - 1) / SORT_TILE);
  const detail::Buffer& counts = *detail::scratch(queue, "top_k.counts", (2 * static_cast<std::size_t>(tiles)) * 4).buffer;
  const detail::Words cand_keys{detail::scratch(queue, "top_k.keys", static_cast<std::size_t>(k) * 4).buffer, 0, k};
  const detail::Words cand_indices{detail::scratch(queue, "top_k.indices", static_cast<std::size_t>(k) * 4).buffer, 0, k};
  const std::size_t group = SORT_GROUP;

  detail::Launch init(queue, program, "topk_init");
  init.buffer(state).arg(k);
  auto first = init.run(detail::range(group), detail::range(group));

  // Enough work-groups to fill a GPU (4 per compute unit), none without a tile of keys.
  const std::size_t histogram_groups =
      std::clamp<std::size_t>(4 * std::max(1u, queue.context().device().compute_units), 1, static_cast<std::size_t>(tiles));
  for (int pass = 0; pass < 32 / SORT_RADIX_BITS; ++pass) {
    detail::Launch histogram(queue, program, "topk_histogram");
    detail::pass_words(histogram, in);
    histogram.arg(static_cast<int>(n));
    detail::pass_key_order(histogram, key_order).buffer(state).arg(pass);
    histogram.run(detail::range(histogram_groups * group), detail::range(group));
    detail::Launch select(queue, program, "topk_select");
    select.buffer(state).arg(pass);
    select.run(detail::range(group), detail::range(group));
  }

  detail::Launch count(queue, program, "topk_count");
  detail::pass_words(count, in);
  count.arg(static_cast<int>(n));
  detail::pass_key_order(count, key_order).buffer(state).buffer(counts).arg(tiles);
  count.run(detail::range(static_cast<std::size_t>(tiles) * group), detail::range(group));
  detail::Launch scan(queue, program, "topk_scan");
  scan.buffer(counts).arg(tiles);
  scan.run(detail::range(2 * group), detail::range(group));
  detail::Launch scatter(queue, program, "topk_scatter");
  detail::pass_words(scatter, in);
  scatter.arg(static_cast<int>(n));
  detail::pass_key_order(scatter, key_order).buffer(state).buffer(counts).arg(tiles).arg(k);
  detail::pass_words(scatter, cand_keys);
  detail::pass_words(scatter, cand_indices);
  scatter.run(detail::range(static_cast<std::size_t>(tiles) * group), detail::range(group));

  detail::SortJob job;
  job.keys_in = cand_keys;
  job.values_in = cand_indices;
  job.keys_out = detail::Words{keys_out.buffer().get(), keys_out.offset_elements(), k};
  job.values_out = detail::Words{indices_out.buffer().get(), indices_out.offset_elements(), k};
  job.has_values = true;
  job.key_depth = keys.depth();
  job.order = order;
  const Event sorted = detail::run_sort(queue, job);
  return Event(first, sorted.last());
}

}  // namespace plinth
