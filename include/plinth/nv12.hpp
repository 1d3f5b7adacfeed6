#pragma once
// NV12 frames: YUV 4:2:0 in two planes, a full-size luma plane Y (u8, one channel, W x H) and a
// half-size chroma plane UV (u8, two channels U and V interleaved, W/2 x H/2). W and H are even.
// Raw files (.nv12, .yuv) hold frames back to back, each W*H bytes of Y rows followed by W*H/2
// bytes of UV rows, without padding or header, so the frame size is always given.

#include <string>

#include "plinth/core.hpp"
#include "plinth/image.hpp"

namespace plinth {

struct Nv12Frame {
  HostImage y;
  HostImage uv;
  Size size() const noexcept { return y.size(); }
};

struct DeviceNv12Frame {
  DeviceImage y;
  DeviceImage uv;
  Size size() const noexcept { return y.size(); }
};

// Allocates a frame; the size must be even and positive.
Nv12Frame make_nv12_frame(Size size);
DeviceNv12Frame make_device_nv12_frame(const Context& context, Size size);

// Throws Error(invalid_argument) unless y is u8C1 of an even size and uv is u8C2 of half that size.
void check_nv12_frame(const Nv12Frame& frame, std::string_view op, std::string_view arg);
void check_nv12_frame(const DeviceNv12Frame& frame, std::string_view op, std::string_view arg);

// The planes of a frame kept as one u8C1 image of W x 3H/2 (OpenCV's layout for
// COLOR_YUV2*_NV12): views sharing its memory. The host views do not own the memory, so
// `packed` must outlive them; the device views hold the buffer.
Nv12Frame nv12_planes(const HostImage& packed);
DeviceNv12Frame nv12_planes(const Context& context, const DeviceImage& packed);
// A W x 3H/2 u8C1 copy of a frame, Y rows first.
HostImage pack_nv12(const Nv12Frame& frame);

// Raw files. count_nv12_frames: how many whole frames the file holds; a size that does not
// divide the file is an Error(format). read_nv12 reads frame `index` (0 first).
int count_nv12_frames(const std::string& path, Size size);
Nv12Frame read_nv12(const std::string& path, Size size, int index = 0);
// Writes (or with append, adds at the end of) a raw file. Without append the file is replaced
// through an OutputFile (plinth/io.hpp); appending writes in place, every write checked.
void write_nv12(const std::string& path, const Nv12Frame& frame, bool append = false);
// Adds one frame to an OutputFile (several frames, then the caller's commit()).
class OutputFile;
void write_nv12(OutputFile& out, const Nv12Frame& frame);

// An NV12 frame from an 8-bit RGB or RGBA image (BGR/BGRA with bgr = true), equal to
// cv::cvtColor(COLOR_RGB2YUV_I420) with the U and V planes interleaved: BT.601 studio range,
// Y from each pixel, U and V from the top-left pixel of each 2x2 block. Odd sizes are refused.
Nv12Frame nv12_from_rgb(const HostImage& rgb, bool bgr = false);

// Transfers of both planes; the synchronous forms wait.
DeviceNv12Frame upload_nv12(Queue& queue, const Nv12Frame& frame);
Nv12Frame download_nv12(Queue& queue, const DeviceNv12Frame& frame);

}  // namespace plinth
