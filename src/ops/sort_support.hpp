#pragma once
// What sort, top_k and compact share on the host: argument checks for arrays, 32-bit word views
// of arrays and scratch buffers (the kernels' ARRAY_PARAM), and the sort itself on such views,
// so that top_k sorts its candidates in scratch memory without wrapping them as DeviceArrays.

#include <cstdint>
#include <string_view>

#include "core/launch.hpp"
#include "plinth/sort.hpp"

// Shapes shared with the kernels (SORT_GROUP, SORT_TILE, ...).
#include "../../kernels/sort_layout.h"

namespace plinth::detail {

// An array of 32-bit words in a buffer, from word `offset`: a DeviceArray's or a scratch's.
struct Words {
  const Buffer* buffer = nullptr;
  std::int64_t offset = 0;
  std::int64_t size = 0;
};
Words words(const DeviceArray& array);
inline Launch& pass_words(Launch& launch, const Words& w) { return launch.buffer(*w.buffer).arg(static_cast<int>(w.offset)); }
inline bool same_words(const Words& a, const Words& b) { return a.buffer == b.buffer && a.offset == b.offset; }

// The largest element count of sort, top_k and compact.
inline constexpr std::int64_t max_sort_elements = std::int64_t{1} << 30;

void check_array(const Queue& queue, const DeviceArray& array, std::string_view op, std::string_view arg);
// One channel of u32, s32 or f32.
void check_keys(const DeviceArray& keys, std::string_view op, std::string_view arg);
// One channel of a 4-byte type.
void check_words(const DeviceArray& array, std::string_view op, std::string_view arg);
bool overlaps(const DeviceArray& a, const DeviceArray& b);
bool identical(const DeviceArray& a, const DeviceArray& b);
// Error(invalid_argument) on `arg` if `out` overlaps `other`.
void check_no_overlap(const DeviceArray& out, const DeviceArray& other, std::string_view op, std::string_view arg);

// One sort, arguments checked. values_in / values_out unused when !has_values.
struct SortJob {
  Words keys_in, values_in, keys_out, values_out;
  bool has_values = false;
  Depth key_depth = Depth::u32;
  SortOrder order = SortOrder::ascending;
  SortMethod method = SortMethod::automatic;
};
Event run_sort(Queue& queue, const SortJob& job);
// The key arguments of the kernels (sort_keys.h): the SORT_KEY_* kind and 1 for descending.
struct KeyOrder {
  int kind;
  int descending;
};
KeyOrder key_order(Depth key_depth, SortOrder order);
inline Launch& pass_key_order(Launch& launch, KeyOrder o) { return launch.arg(o.kind).arg(o.descending); }

}  // namespace plinth::detail
