#pragma once
// Typed 2-D images on the host and on the device. Pixels are interleaved (OpenCV's layout):
// channel c of pixel (x, y) is the element at byte offset y * pitch + (x * channels + c) * depth_size.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "plinth/core.hpp"
#include "plinth/types.hpp"

namespace plinth {

namespace detail {
class Buffer;
}

class HostImage {
 public:
  HostImage() = default;
  // Allocates an image with a row pitch of width * pixel size rounded up to 64 bytes.
  HostImage(int width, int height, Format format);
  // Allocates like the constructor, in page-locked (pinned) host memory where the context's
  // backend has it (CUDA), else in plain memory. Uploads from it and downloads into it skip the
  // driver's staging copy (cv::cuda::HostMem's PAGE_LOCKED); allocating it is slower, so keep
  // and reuse it, for example one per frame in flight. It keeps the context's device alive.
  static HostImage page_locked(const Context& context, int width, int height, Format format);
  // Views user memory without owning it; pitch in bytes, a multiple of the element size.
  static HostImage wrap(void* data, int width, int height, Format format, std::size_t pitch);

  bool empty() const noexcept { return data_ == nullptr; }
  int width() const noexcept { return width_; }
  int height() const noexcept { return height_; }
  Size size() const noexcept { return {width_, height_}; }
  Format format() const noexcept { return format_; }
  Depth depth() const noexcept { return format_.depth; }
  int channels() const noexcept { return format_.channels; }
  std::size_t pitch() const noexcept { return pitch_; }
  // Bytes of one row's pixels, without padding.
  std::size_t row_bytes() const noexcept { return static_cast<std::size_t>(width_) * format_.pixel_size(); }

  std::byte* data() const noexcept { return data_; }
  std::byte* row(int y) const noexcept { return data_ + static_cast<std::size_t>(y) * pitch_; }
  template <class T>
  T* row_as(int y) const noexcept { return reinterpret_cast<T*>(row(y)); }
  template <class T>
  T& at(int x, int y, int c = 0) const noexcept { return row_as<T>(y)[x * format_.channels + c]; }

  // A region sharing this image's memory.
  HostImage view(Rect region) const;
  // A deep copy with a fresh, tightly padded allocation.
  HostImage clone() const;

 private:
  std::shared_ptr<std::byte> storage_;
  std::byte* data_ = nullptr;
  int width_ = 0;
  int height_ = 0;
  Format format_{};
  std::size_t pitch_ = 0;
};

class DeviceImage {
 public:
  DeviceImage() = default;
  // Allocates device memory with a row pitch rounded up to 256 bytes.
  DeviceImage(const Context& context, int width, int height, Format format);
  // Adopts a user's cl_mem (retained) as an image at byte offset `offset` with the given pitch.
  // The buffer must belong to context's cl_context and be large enough. On CUDA `cl_mem` is a
  // device pointer (CUdeviceptr, or what cudaMalloc/cudaMallocPitch gave) of the context, which
  // the user keeps allocated; the image may reach to the end of its allocation.
  static DeviceImage wrap(const Context& context, void* cl_mem, int width, int height, Format format,
                          std::size_t pitch, std::size_t offset = 0);

  bool empty() const noexcept { return buffer_ == nullptr; }
  int width() const noexcept { return width_; }
  int height() const noexcept { return height_; }
  Size size() const noexcept { return {width_, height_}; }
  Format format() const noexcept { return format_; }
  Depth depth() const noexcept { return format_.depth; }
  int channels() const noexcept { return format_.channels; }
  std::size_t pitch() const noexcept { return pitch_; }
  std::size_t offset() const noexcept { return offset_; }  // bytes from the buffer's start
  std::size_t row_bytes() const noexcept { return static_cast<std::size_t>(width_) * format_.pixel_size(); }
  // Offset and pitch counted in elements, as the kernels take them.
  std::int64_t offset_elements() const noexcept { return static_cast<std::int64_t>(offset_ / depth_size(format_.depth)); }
  std::int64_t pitch_elements() const noexcept { return static_cast<std::int64_t>(pitch_ / depth_size(format_.depth)); }

  // A region sharing this image's memory.
  DeviceImage view(Rect region) const;
  // cl_mem of the whole underlying buffer; on CUDA its device pointer, so that the first pixel
  // is at (char*)native() + offset() and rows are pitch() bytes apart.
  void* native() const;
  const std::shared_ptr<detail::Buffer>& buffer() const noexcept { return buffer_; }
  // True when both images share device memory and their pixel bytes may overlap.
  bool overlaps(const DeviceImage& other) const noexcept;

 private:
  std::shared_ptr<detail::Buffer> buffer_;
  int width_ = 0;
  int height_ = 0;
  Format format_{};
  std::size_t pitch_ = 0;
  std::size_t offset_ = 0;
};

}  // namespace plinth
