#pragma once
// Sorting primitives on DeviceArrays: stable sorts of keys and of key-value pairs, top-k with a
// deterministic tie rule, and stream compaction. docs/sort.md has the methods and the rules.
//
// Keys: one-channel u32, s32 or f32 arrays. f32 keys sort in IEEE 754 totalOrder (-inf < ... <
// -0.0 < +0.0 < ... < +inf), with every NaN after +inf (first in descending order, as torch.sort
// does); a NaN key is written out as the quiet NaN 0x7FC00000, whatever its sign and payload.
// Values: one-channel arrays of any 4-byte type (u32, s32, f32), carried bit for bit.
// Both orders are stable: equal keys keep their input order.
// In place is allowed: keys_out may be keys_in itself (and values_out values_in); any other
// overlap of an output with an input or with the other output is an Error.
// Up to 2^30 elements.

#include <cstdint>
#include <span>
#include <string_view>

#include "plinth/array.hpp"
#include "plinth/core.hpp"

namespace plinth {

enum class SortOrder { ascending, descending };
enum class SortMethod { automatic, radix, merge, network };

// The methods, declared once: the CLI, the tests and the benchmark iterate over this table.
struct SortMethodInfo {
  SortMethod method;
  std::string_view name;  // as the CLI and the benchmark spell it
  std::string_view doc;   // one line
};
std::span<const SortMethodInfo> sort_methods() noexcept;
std::string_view to_string(SortMethod method) noexcept;
std::string_view to_string(SortOrder order) noexcept;
SortMethod parse_sort_method(std::string_view text);  // Error(invalid_argument) if unknown

// keys_out = keys_in sorted. keys_out: same format and size as keys_in.
Event sort_keys(Queue& queue, const DeviceArray& keys_in, const DeviceArray& keys_out,
                SortOrder order = SortOrder::ascending, SortMethod method = SortMethod::automatic);
// Sorts keys and moves values with them. All four arrays have the same size; values_out has the
// format of values_in.
Event sort_pairs(Queue& queue, const DeviceArray& keys_in, const DeviceArray& values_in, const DeviceArray& keys_out,
                 const DeviceArray& values_out, SortOrder order = SortOrder::ascending,
                 SortMethod method = SortMethod::automatic);

// The k first keys of `keys` in `order` (descending by default: the k largest) and their
// indices, best first; equal keys by ascending index. 1 <= k <= keys.size() (else Error
// out_of_range). keys_out: the keys' format, at least k elements; indices_out: u32 or s32, at
// least k elements; elements past k are left as they are.
Event top_k(Queue& queue, const DeviceArray& keys, int k, const DeviceArray& keys_out, const DeviceArray& indices_out,
            SortOrder order = SortOrder::descending);

// Stable stream compaction: the values whose flag is non-zero, in input order, to the front of
// `out`, and their number to `count`. values: one channel of a 4-byte type; flags: u8, the
// values' size; out: the values' format, at least values.size() elements (elements past the
// count are left as they are); count: one u32. No output may overlap an input.
Event compact(Queue& queue, const DeviceArray& values, const DeviceArray& flags, const DeviceArray& out,
              const DeviceArray& count);

}  // namespace plinth
