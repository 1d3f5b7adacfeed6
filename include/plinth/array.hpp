#pragma once
// One-dimensional typed arrays in device memory: point lists, keys and values to sort, descriptors,
// histograms. An image is 2-D with a padded pitch; an array is `size` contiguous elements of one
// Format (depth and 1-4 channels), so a million 64-d descriptors are {size 1'000'000 * 64, f32} or
// {size 1'000'000, f32 x4 ...} as the op documents.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "plinth/core.hpp"
#include "plinth/types.hpp"

namespace plinth {

namespace detail {
class Buffer;
}

// The largest element count of one array: element indices fit the kernels' 32-bit arithmetic.
inline constexpr std::int64_t max_array_elements = (std::int64_t{1} << 31) - 1;

class DeviceArray {
 public:
  DeviceArray() = default;
  // Allocates `size` elements (size >= 1). Throws out_of_memory past the device's largest allocation.
  DeviceArray(const Context& context, std::int64_t size, Format format);
  // Adopts a user's cl_mem (retained) holding `size` elements from byte `offset`.
  static DeviceArray wrap(const Context& context, void* cl_mem, std::int64_t size, Format format,
                          std::size_t offset = 0);

  bool empty() const noexcept { return buffer_ == nullptr; }
  std::int64_t size() const noexcept { return size_; }
  Format format() const noexcept { return format_; }
  Depth depth() const noexcept { return format_.depth; }
  int channels() const noexcept { return format_.channels; }
  std::size_t bytes() const noexcept { return static_cast<std::size_t>(size_) * format_.pixel_size(); }
  std::size_t offset() const noexcept { return offset_; }  // bytes from the buffer's start
  // Offset counted in scalar elements (depth units), as kernels take it (ARRAY_PARAM in dialect.h).
  std::int64_t offset_elements() const noexcept { return static_cast<std::int64_t>(offset_ / depth_size(format_.depth)); }

  // Elements [first, first + count) sharing this array's memory.
  DeviceArray slice(std::int64_t first, std::int64_t count) const;
  void* native() const;  // cl_mem of the whole underlying buffer
  const std::shared_ptr<detail::Buffer>& buffer() const noexcept { return buffer_; }

 private:
  std::shared_ptr<detail::Buffer> buffer_;
  std::int64_t size_ = 0;
  Format format_{};
  std::size_t offset_ = 0;
};

// The Depth of a C++ element type (std::uint8_t -> u8, float -> f32, ...).
template <class T>
constexpr Depth depth_of() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return Depth::u8;
  else if constexpr (std::is_same_v<T, std::int8_t>) return Depth::s8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return Depth::u16;
  else if constexpr (std::is_same_v<T, std::int16_t>) return Depth::s16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return Depth::u32;
  else if constexpr (std::is_same_v<T, std::int32_t>) return Depth::s32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return Depth::u64;
  else if constexpr (std::is_same_v<T, std::int64_t>) return Depth::s64;
  else if constexpr (std::is_same_v<T, float>) return Depth::f32;
  else if constexpr (std::is_same_v<T, double>) return Depth::f64;
  else static_assert(sizeof(T) == 0, "no plinth Depth for this type");
}

// Transfers between host memory and arrays. The asynchronous forms need the host memory to stay
// valid until their event completes; `bytes` must equal the array's bytes().
Event upload_array(Queue& queue, const void* src, std::size_t bytes, const DeviceArray& dst);
Event download_array(Queue& queue, const DeviceArray& src, void* dst, std::size_t bytes);
Event copy_array(Queue& queue, const DeviceArray& src, const DeviceArray& dst);
// Sets every byte of the array to value.
Event fill_array_bytes(Queue& queue, const DeviceArray& dst, std::uint8_t value);

// Synchronous conveniences for one-channel arrays of a C++ type.
template <class T>
DeviceArray upload_array(Queue& queue, std::span<const T> values) {
  DeviceArray dst(queue.context(), static_cast<std::int64_t>(values.size()), Format{depth_of<T>(), 1});
  upload_array(queue, values.data(), values.size_bytes(), dst).wait();
  return dst;
}
template <class T>
std::vector<T> download_array(Queue& queue, const DeviceArray& src) {
  std::vector<T> values(src.bytes() / sizeof(T));
  download_array(queue, src, values.data(), values.size() * sizeof(T)).wait();
  return values;
}

}  // namespace plinth
