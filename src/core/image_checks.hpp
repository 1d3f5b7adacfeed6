#pragma once
// Argument checks shared by the core and every op: each throws a plinth::Error naming the
// operation and the argument at fault.

#include <initializer_list>
#include <string_view>

#include "plinth/array.hpp"
#include "plinth/core.hpp"
#include "plinth/image.hpp"

namespace plinth::detail {

// Throws out_of_range unless 1 <= width, height <= max_image_dimension and channels are 1-4.
void check_geometry(int width, int height, Format format, std::string_view op, std::string_view arg);
void check_host(const HostImage& image, std::string_view op, std::string_view arg);
// The image is non-empty and its memory belongs to the queue's device.
void check_device(const Queue& queue, const DeviceImage& image, std::string_view op, std::string_view arg);
// A non-empty array of the queue's context (src/core/array.cpp).
void check_device(const Queue& queue, const DeviceArray& array, std::string_view op, std::string_view arg);
void check_same_shape(Size a, Format fa, Size b, Format fb, std::string_view op, std::string_view arg);
void check_depth(Depth depth, std::initializer_list<Depth> allowed, std::string_view op, std::string_view arg);
void check_channels(int channels, std::initializer_list<int> allowed, std::string_view op, std::string_view arg);
// Reads and writes must not share memory unless the op says it works in place.
void check_no_overlap(const DeviceImage& a, const DeviceImage& b, std::string_view op, std::string_view arg);

}  // namespace plinth::detail
