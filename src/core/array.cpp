#include "plinth/array.hpp"

#include <string>

#include "core/backend.hpp"
#include "core/context_state.hpp"
#include "core/image_checks.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace detail {
void check_device(const Queue& queue, const DeviceArray& array, std::string_view op, std::string_view arg) {
  if (array.empty()) throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg), "the array is empty");
  if (array.buffer()->device() != queue_state(queue).context->device.get()) {
    throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg),
                "the array belongs to another context than the queue");
  }
}
}  // namespace detail

namespace {

void check_format(Format format, std::string_view op) {
  if (format.channels < 1 || format.channels > 4) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "format",
                "has " + std::to_string(format.channels) + " channels; arrays hold 1 to 4");
  }
}

void check_size(std::int64_t size, std::string_view op) {
  if (size < 1 || size > max_array_elements) {
    throw Error(ErrorCode::out_of_range, std::string(op), "size",
                std::to_string(size) + " elements is outside 1.." + std::to_string(max_array_elements));
  }
}

void check_bytes(const DeviceArray& array, std::size_t bytes, std::string_view op) {
  if (bytes != array.bytes()) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "bytes",
                std::to_string(bytes) + " bytes given for an array of " + std::to_string(array.bytes()));
  }
}

// A single row whose pitch reaches past the region, so that the rectangle's origin is the offset.
detail::BufferRect linear(const DeviceArray& array) { return {array.offset(), array.offset() + array.bytes()}; }

}  // namespace

DeviceArray::DeviceArray(const Context& context, std::int64_t size, Format format) {
  check_format(format, "DeviceArray");
  check_size(size, "DeviceArray");
  const auto& state = detail::context_state(context);
  const std::size_t bytes = static_cast<std::size_t>(size) * format.pixel_size();
  if (bytes > state->device->info().max_allocation) {
    throw Error(ErrorCode::out_of_memory, "DeviceArray", "size",
                std::to_string(bytes) + " bytes exceed the device's largest allocation (" +
                    std::to_string(state->device->info().max_allocation) + ")");
  }
  buffer_ = state->device->allocate(bytes);
  size_ = size;
  format_ = format;
}

DeviceArray DeviceArray::wrap(const Context& context, void* cl_mem, std::int64_t size, Format format,
                              std::size_t offset) {
  if (cl_mem == nullptr) throw Error(ErrorCode::invalid_argument, "DeviceArray::wrap", "cl_mem", "is null");
  check_format(format, "DeviceArray::wrap");
  check_size(size, "DeviceArray::wrap");
  if (offset % depth_size(format.depth) != 0) {
    throw Error(ErrorCode::invalid_argument, "DeviceArray::wrap", "offset", "is not a multiple of the element size");
  }
  DeviceArray array;
  array.buffer_ = detail::context_state(context)->device->wrap_buffer(cl_mem);
  array.size_ = size;
  array.format_ = format;
  array.offset_ = offset;
  if (offset + array.bytes() > array.buffer_->size()) {
    throw Error(ErrorCode::out_of_range, "DeviceArray::wrap", "cl_mem",
                "the buffer holds " + std::to_string(array.buffer_->size()) + " bytes but the array needs " +
                    std::to_string(offset + array.bytes()));
  }
  return array;
}

DeviceArray DeviceArray::slice(std::int64_t first, std::int64_t count) const {
  if (empty()) throw Error(ErrorCode::invalid_argument, "DeviceArray::slice", "array", "the array is empty");
  if (first < 0 || count < 1 || first > size_ - count) {
    throw Error(ErrorCode::out_of_range, "DeviceArray::slice", "range",
                "[" + std::to_string(first) + ", " + std::to_string(first) + " + " + std::to_string(count) +
                    ") is outside an array of " + std::to_string(size_));
  }
  DeviceArray s = *this;
  s.offset_ = offset_ + static_cast<std::size_t>(first) * format_.pixel_size();
  s.size_ = count;
  return s;
}

void* DeviceArray::native() const { return buffer_ ? buffer_->native() : nullptr; }

Event upload_array(Queue& queue, const void* src, std::size_t bytes, const DeviceArray& dst) {
  detail::check_device(queue, dst, "upload_array", "dst");
  check_bytes(dst, bytes, "upload_array");
  if (src == nullptr) throw Error(ErrorCode::invalid_argument, "upload_array", "src", "is null");
  auto& q = detail::queue_state(queue);
  return Event(q.impl->write_rect(*dst.buffer(), linear(dst), src, bytes, bytes, 1, false));
}

Event download_array(Queue& queue, const DeviceArray& src, void* dst, std::size_t bytes) {
  detail::check_device(queue, src, "download_array", "src");
  check_bytes(src, bytes, "download_array");
  if (dst == nullptr) throw Error(ErrorCode::invalid_argument, "download_array", "dst", "is null");
  auto& q = detail::queue_state(queue);
  return Event(q.impl->read_rect(*src.buffer(), linear(src), dst, bytes, bytes, 1, false));
}

Event copy_array(Queue& queue, const DeviceArray& src, const DeviceArray& dst) {
  detail::check_device(queue, src, "copy_array", "src");
  detail::check_device(queue, dst, "copy_array", "dst");
  if (src.size() != dst.size() || src.format() != dst.format()) {
    throw Error(ErrorCode::invalid_argument, "copy_array", "dst", "differs from src in size or format");
  }
  if (src.native() == dst.native() && src.offset() < dst.offset() + dst.bytes() && dst.offset() < src.offset() + src.bytes()) {
    throw Error(ErrorCode::invalid_argument, "copy_array", "dst", "overlaps src");
  }
  auto& q = detail::queue_state(queue);
  return Event(q.impl->copy_rect(*src.buffer(), linear(src), *dst.buffer(), linear(dst), src.bytes(), 1));
}

Event fill_array_bytes(Queue& queue, const DeviceArray& dst, std::uint8_t value) {
  detail::check_device(queue, dst, "fill_array_bytes", "dst");
  auto& q = detail::queue_state(queue);
  return Event(q.impl->fill(*dst.buffer(), dst.offset(), dst.bytes(), value, 1));
}

}  // namespace plinth
