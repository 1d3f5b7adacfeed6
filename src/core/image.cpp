#include "plinth/image.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "core/backend.hpp"
#include "core/context_state.hpp"
#include "core/image_checks.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

std::size_t round_up(std::size_t value, std::size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// A host image's row pitch: its pixels' bytes rounded up to 64.
std::size_t host_pitch(int width, Format format) {
  return round_up(static_cast<std::size_t>(width) * format.pixel_size(), 64);
}

// Plain host memory, 64-byte aligned.
std::shared_ptr<void> plain_host_memory(std::size_t bytes, const char* op) {
  void* memory = std::aligned_alloc(64, round_up(std::max<std::size_t>(bytes, 1), 64));
  if (memory == nullptr) {
    throw Error(ErrorCode::out_of_memory, op, "size", "cannot allocate " + std::to_string(bytes) + " bytes");
  }
  return std::shared_ptr<void>(memory, [](void* p) { std::free(p); });
}

void check_region(Rect region, int width, int height, std::string_view op) {
  if (region.width <= 0 || region.height <= 0 || region.x < 0 || region.y < 0 ||
      region.x > width - region.width || region.y > height - region.height) {
    throw Error(ErrorCode::out_of_range, std::string(op), "region",
                "(" + std::to_string(region.x) + ", " + std::to_string(region.y) + ", " + std::to_string(region.width) +
                    "x" + std::to_string(region.height) + ") does not lie inside the " + std::to_string(width) + "x" +
                    std::to_string(height) + " image");
  }
}

void check_pitch(std::size_t pitch, int width, Format format, std::string_view op) {
  if (pitch < static_cast<std::size_t>(width) * format.pixel_size() || pitch % depth_size(format.depth) != 0) {
    throw Error(ErrorCode::invalid_argument, std::string(op), "pitch",
                std::to_string(pitch) + " bytes is shorter than a row or not a multiple of the element size");
  }
}

}  // namespace

namespace detail {

std::shared_ptr<void> Device::allocate_host(std::size_t bytes) { return plain_host_memory(bytes, "allocate_host"); }

void check_geometry(int width, int height, Format format, std::string_view op, std::string_view arg) {
  if (format.channels < 1 || format.channels > 4) {
    throw Error(ErrorCode::unsupported_type, std::string(op), std::string(arg),
                std::to_string(format.channels) + " channels (1 to 4 are supported)");
  }
  if (width <= 0 || height <= 0 || width > max_image_dimension || height > max_image_dimension) {
    throw Error(ErrorCode::out_of_range, std::string(op), std::string(arg),
                "size " + std::to_string(width) + "x" + std::to_string(height) + " (each side must be 1 to " +
                    std::to_string(max_image_dimension) + ")");
  }
  const std::int64_t elements = std::int64_t{width} * height * format.channels;
  if (elements > max_image_elements) {
    throw Error(ErrorCode::out_of_range, std::string(op), std::string(arg),
                "size " + std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(format.channels) +
                    " exceeds 2^31-1 elements");
  }
}

void check_host(const HostImage& image, std::string_view op, std::string_view arg) {
  if (image.empty()) throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg), "the image is empty");
}

void check_device(const Queue& queue, const DeviceImage& image, std::string_view op, std::string_view arg) {
  if (image.empty()) throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg), "the image is empty");
  if (image.buffer()->device() != queue_state(queue).context->device.get()) {
    throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg),
                "the image belongs to another context than the queue");
  }
}

void check_same_shape(Size a, Format fa, Size b, Format fb, std::string_view op, std::string_view arg) {
  if (a != b || fa != fb) {
    throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg),
                "is " + std::to_string(b.width) + "x" + std::to_string(b.height) + " " + std::string(to_string(fb.depth)) +
                    "C" + std::to_string(fb.channels) + " but must match " + std::to_string(a.width) + "x" +
                    std::to_string(a.height) + " " + std::string(to_string(fa.depth)) + "C" + std::to_string(fa.channels));
  }
}

// The lists of allowed values are named only on failure: these run on every call.
void check_depth(Depth depth, std::initializer_list<Depth> allowed, std::string_view op, std::string_view arg) {
  for (Depth d : allowed) {
    if (d == depth) return;
  }
  std::string names;
  for (Depth d : allowed) names += (names.empty() ? "" : ", ") + std::string(to_string(d));
  throw Error(ErrorCode::unsupported_type, std::string(op), std::string(arg),
              "depth " + std::string(to_string(depth)) + " is not supported (supported: " + names + ")");
}

void check_channels(int channels, std::initializer_list<int> allowed, std::string_view op, std::string_view arg) {
  for (int c : allowed) {
    if (c == channels) return;
  }
  std::string names;
  for (int c : allowed) names += (names.empty() ? "" : ", ") + std::to_string(c);
  throw Error(ErrorCode::unsupported_type, std::string(op), std::string(arg),
              std::to_string(channels) + " channels are not supported (supported: " + names + ")");
}

void check_no_overlap(const DeviceImage& a, const DeviceImage& b, std::string_view op, std::string_view arg) {
  if (a.overlaps(b)) throw Error(ErrorCode::invalid_argument, std::string(op), std::string(arg), "overlaps the input");
}

}  // namespace detail

HostImage::HostImage(int width, int height, Format format) {
  detail::check_geometry(width, height, format, "HostImage", "size");
  const std::size_t pitch = host_pitch(width, format);
  const std::shared_ptr<void> memory = plain_host_memory(pitch * static_cast<std::size_t>(height), "HostImage");
  storage_ = std::shared_ptr<std::byte>(memory, static_cast<std::byte*>(memory.get()));
  data_ = storage_.get();
  width_ = width;
  height_ = height;
  format_ = format;
  pitch_ = pitch;
}

HostImage HostImage::page_locked(const Context& context, int width, int height, Format format) {
  detail::check_geometry(width, height, format, "HostImage::page_locked", "size");
  const std::size_t pitch = host_pitch(width, format);
  const std::size_t bytes = pitch * static_cast<std::size_t>(height);
  // The memory goes before the device whose driver frees it (members die in reverse order).
  struct Held {
    std::shared_ptr<detail::Device> device;
    std::shared_ptr<void> memory;
  };
  auto held = std::make_shared<Held>();
  held->device = detail::context_state(context)->device;
  held->memory = held->device->allocate_host(bytes);
  HostImage image;
  image.storage_ = std::shared_ptr<std::byte>(held, static_cast<std::byte*>(held->memory.get()));
  image.data_ = image.storage_.get();
  image.width_ = width;
  image.height_ = height;
  image.format_ = format;
  image.pitch_ = pitch;
  return image;
}

HostImage HostImage::wrap(void* data, int width, int height, Format format, std::size_t pitch) {
  if (data == nullptr) throw Error(ErrorCode::invalid_argument, "HostImage::wrap", "data", "is null");
  detail::check_geometry(width, height, format, "HostImage::wrap", "size");
  check_pitch(pitch, width, format, "HostImage::wrap");
  HostImage image;
  image.data_ = static_cast<std::byte*>(data);
  image.width_ = width;
  image.height_ = height;
  image.format_ = format;
  image.pitch_ = pitch;
  return image;
}

HostImage HostImage::view(Rect region) const {
  detail::check_host(*this, "HostImage::view", "image");
  check_region(region, width_, height_, "HostImage::view");
  HostImage v = *this;
  v.data_ = data_ + static_cast<std::size_t>(region.y) * pitch_ + static_cast<std::size_t>(region.x) * format_.pixel_size();
  v.width_ = region.width;
  v.height_ = region.height;
  return v;
}

HostImage HostImage::clone() const {
  detail::check_host(*this, "HostImage::clone", "image");
  HostImage copy(width_, height_, format_);
  for (int y = 0; y < height_; ++y) std::memcpy(copy.row(y), row(y), row_bytes());
  return copy;
}

DeviceImage::DeviceImage(const Context& context, int width, int height, Format format) {
  detail::check_geometry(width, height, format, "DeviceImage", "size");
  const std::size_t pitch = round_up(static_cast<std::size_t>(width) * format.pixel_size(), 256);
  const std::size_t bytes = pitch * static_cast<std::size_t>(height);
  const auto& state = detail::context_state(context);
  if (bytes > state->device->info().max_allocation) {
    throw Error(ErrorCode::out_of_memory, "DeviceImage", "size",
                std::to_string(bytes) + " bytes exceed the device's largest allocation (" +
                    std::to_string(state->device->info().max_allocation) + ")");
  }
  buffer_ = state->device->allocate(bytes);
  width_ = width;
  height_ = height;
  format_ = format;
  pitch_ = pitch;
}

DeviceImage DeviceImage::wrap(const Context& context, void* cl_mem, int width, int height, Format format,
                              std::size_t pitch, std::size_t offset) {
  if (cl_mem == nullptr) throw Error(ErrorCode::invalid_argument, "DeviceImage::wrap", "cl_mem", "is null");
  detail::check_geometry(width, height, format, "DeviceImage::wrap", "size");
  check_pitch(pitch, width, format, "DeviceImage::wrap");
  if (offset % depth_size(format.depth) != 0) {
    throw Error(ErrorCode::invalid_argument, "DeviceImage::wrap", "offset", "is not a multiple of the element size");
  }
  DeviceImage image;
  image.buffer_ = detail::context_state(context)->device->wrap_buffer(cl_mem);
  const std::size_t needed = offset + pitch * static_cast<std::size_t>(height - 1) +
                             static_cast<std::size_t>(width) * format.pixel_size();
  if (needed > image.buffer_->size()) {
    throw Error(ErrorCode::out_of_range, "DeviceImage::wrap", "cl_mem",
                "the buffer holds " + std::to_string(image.buffer_->size()) + " bytes but the image needs " +
                    std::to_string(needed));
  }
  image.width_ = width;
  image.height_ = height;
  image.format_ = format;
  image.pitch_ = pitch;
  image.offset_ = offset;
  return image;
}

DeviceImage DeviceImage::view(Rect region) const {
  if (empty()) throw Error(ErrorCode::invalid_argument, "DeviceImage::view", "image", "the image is empty");
  check_region(region, width_, height_, "DeviceImage::view");
  DeviceImage v = *this;
  v.offset_ = offset_ + static_cast<std::size_t>(region.y) * pitch_ + static_cast<std::size_t>(region.x) * format_.pixel_size();
  v.width_ = region.width;
  v.height_ = region.height;
  return v;
}

void* DeviceImage::native() const { return buffer_ ? buffer_->native() : nullptr; }

bool DeviceImage::overlaps(const DeviceImage& other) const noexcept {
  if (empty() || other.empty() || buffer_->native() != other.buffer_->native()) return false;
  // Conservative: compare the byte spans from first to last pixel.
  const std::size_t a0 = offset_, a1 = offset_ + pitch_ * static_cast<std::size_t>(height_ - 1) + row_bytes();
  const std::size_t b0 = other.offset_, b1 = other.offset_ + other.pitch_ * static_cast<std::size_t>(other.height_ - 1) + other.row_bytes();
  return a0 < b1 && b0 < a1;
}

}  // namespace plinth
