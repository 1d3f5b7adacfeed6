// Array checks and word views shared by sort, top_k and compact (sort_support.hpp).
#include "ops/sort_support.hpp"

#include <string>

#include "core/image_checks.hpp"
#include "plinth/error.hpp"

namespace plinth::detail {

Words words(const DeviceArray& array) { return {array.buffer().get(), array.offset_elements(), array.size()}; }

void check_array(const Queue& queue, const DeviceArray& array, std::string_view op, std::string_view arg) {
  check_device(queue, array, op, arg);
  if (array.size() > max_sort_elements) {
    throw Error(ErrorCode::out_of_range, std::string(op), std::string(arg),
                std::to_string(array.size()) + " elements exceed the largest input, 2^30");
  }
}

void check_keys(const DeviceArray& keys, std::string_view op, std::string_view arg) {
  const Depth d = keys.depth();
  if (keys.channels() != 1 || (d != Depth::u32 && d != Depth::s32 && d != Depth::f32)) {
    throw Error(ErrorCode::unsupported_type, std::string(op), std::string(arg),
                std::string(to_string(d)) + " x" + std::to_string(keys.channels()) + " keys: keys are one channel of u32, s32 or f32");
  }
}

void check_words(const DeviceArray& array, std::string_view op, std::string_view arg) {
  if (array.channels() != 1 || depth_size(array.depth()) != 4) {
    throw Error(ErrorCode::unsupported_type, std::string(op), std::string(arg),
                std::string(to_string(array.depth())) + " x" + std::to_string(array.channels()) +
                    ": this takes one channel of a 4-byte type (u32, s32, f32)");
  }
}

bool overlaps(const DeviceArray& a, const DeviceArray& b) {
  return a.native() == b.native() && a.offset() < b.offset() + b.bytes() && b.offset() < a.offset() + a.bytes();
}

bool identical(const DeviceArray& a, const DeviceArray& b) {
  return a.native() == b.native() && a.offset() == b.offset() && a.bytes() == b.bytes();
}

void check_no_overlap(const DeviceArray& out, const DeviceArray& other, std::string_view op, std::string_view arg) {
  if (overlaps(out, other)) {
    throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg), "overlaps another array of the call");
  }
}

KeyOrder key_order(Depth key_depth, SortOrder order) {
  const int kind = key_depth == Depth::s32 ? SORT_KEY_S32 : key_depth == Depth::f32 ? SORT_KEY_F32 : SORT_KEY_U32;
  return {kind, order == SortOrder::descending ? 1 : 0};
}

}  // namespace plinth::detail
