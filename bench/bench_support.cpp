// Random inputs and output sets for the cases.
#include "bench_support.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace plinth::bench {
namespace {

// splitmix64: fast, and good enough that no two sets or rows look alike.
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

void fill_row(Random& random, std::byte* row, std::size_t elements, Depth depth) {
  switch (depth) {
    case Depth::f32: {
      auto* p = reinterpret_cast<float*>(row);
      for (std::size_t i = 0; i < elements; ++i) p[i] = static_cast<float>(random.next() >> 40) * 0x1p-24f;
      return;
    }
    case Depth::f64: {
      auto* p = reinterpret_cast<double*>(row);
      for (std::size_t i = 0; i < elements; ++i) p[i] = static_cast<double>(random.next() >> 11) * 0x1p-53;
      return;
    }
    default: {
      // Integer depths: every bit pattern is a valid value.
      const std::size_t bytes = elements * depth_size(depth);
      std::size_t i = 0;
      for (; i + 8 <= bytes; i += 8) {
        const std::uint64_t v = random.next();
        std::memcpy(row + i, &v, 8);
      }
      if (i < bytes) {
        const std::uint64_t v = random.next();
        std::memcpy(row + i, &v, bytes - i);
      }
    }
  }
}

}  // namespace

HostImage random_image(Size size, Format format, std::uint64_t seed) {
  HostImage image(size.width, size.height, format);
  Random random{seed * 0x2545f4914f6cdd1dULL + 1};
  const std::size_t elements = static_cast<std::size_t>(size.width) * static_cast<std::size_t>(format.channels);
  for (int y = 0; y < size.height; ++y) fill_row(random, image.row(y), elements, format.depth);
  return image;
}

std::vector<DeviceImage> random_device_images(Env& env, Size size, Format format, int count, std::uint64_t seed) {
  std::vector<DeviceImage> images;
  images.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    images.push_back(env.queue.upload(random_image(size, format, seed * 1000003ULL + static_cast<std::uint64_t>(i))));
  }
  return images;
}

std::vector<DeviceImage> device_images(Env& env, Size size, Format format, int count) {
  std::vector<DeviceImage> images;
  images.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    images.emplace_back(env.context, size.width, size.height, format);
    // Written once now, so that no timed run pays for the first touch of fresh memory.
    env.queue.fill_bytes(images.back(), 0xa5);
  }
  env.queue.finish();
  return images;
}

double image_bytes(Size size, Format format) {
  return static_cast<double>(size.width) * size.height * static_cast<double>(format.pixel_size());
}

std::string data_file(std::string_view name, std::string_view who) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* dir = std::getenv("PLINTH_DATA_DIR")) candidates.emplace_back(fs::path(dir) / name);
  candidates.emplace_back(fs::path("data") / name);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
      candidates.push_back(p / "data" / name);
    }
  }
  for (const fs::path& p : candidates) {
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  throw Error(ErrorCode::io, std::string(who), std::string(name), "not found in $PLINTH_DATA_DIR, ./data or a data/ folder above the executable");
}

HostImage repeated_photo(const HostImage& photo, Size size, int shift) {
  HostImage out(size.width, size.height, Format{Depth::u8, 1});
  for (int y = 0; y < size.height; ++y) {
    const auto* src = photo.row_as<std::uint8_t>(y % photo.height());
    auto* dst = out.row_as<std::uint8_t>(y);
    for (int x = 0; x < size.width; ++x) dst[x] = src[((x + shift) % size.width) % photo.width()];
  }
  return out;
}

}  // namespace plinth::bench
