#include "support/test_support.hpp"

#include <algorithm>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace plinth::test {

namespace {

// On PoCL the tests leave plinth's disk cache off, unless PLINTH_CACHE_DIR names one: PoCL caches
// its builds itself, and asking PoCL for a program's binary makes it compile every kernel of the
// program once more, for any work-group size (about 3x the compile time of an integral test with
// empty caches; docs/backends.md, "Compiled code and the cache"). The CLI's tests keep it on.
void leave_pocl_builds_to_pocl(const Context& context) {
  if (on_pocl(context)) ::setenv("PLINTH_CACHE_DIR", "off", 0);
}

}  // namespace

bool on_pocl(const Context& context) { return context.device().platform == "Portable Computing Language"; }

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) saved_ = old;
  if (value != nullptr) {
    ::setenv(name, value, 1);
  } else {
    ::unsetenv(name);
  }
}

ScopedEnv::~ScopedEnv() {
  if (saved_) {
    ::setenv(name_.c_str(), saved_->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

Context& context() {
  static Context c;
  static const bool cache_chosen = (leave_pocl_builds_to_pocl(c), true);
  (void)cache_chosen;
  return c;
}

Queue& queue() {
  static Queue q(context());
  return q;
}

int cv_depth(Depth depth) {
  switch (depth) {
    case Depth::u8: return CV_8U;
    case Depth::s8: return CV_8S;
    case Depth::u16: return CV_16U;
    case Depth::s16: return CV_16S;
    case Depth::u32:
    case Depth::s32: return CV_32S;
    case Depth::f32: return CV_32F;
    case Depth::f64:
    case Depth::u64:
    case Depth::s64: return CV_64F;
  }
  return -1;
}

cv::Mat as_mat(const HostImage& image) {
  return cv::Mat(image.height(), image.width(), CV_MAKETYPE(cv_depth(image.depth()), image.channels()), image.data(),
                 image.pitch());
}

HostImage from_mat(const cv::Mat& mat) {
  Depth depth = Depth::u8;
  switch (mat.depth()) {
    case CV_8U: depth = Depth::u8; break;
    case CV_8S: depth = Depth::s8; break;
    case CV_16U: depth = Depth::u16; break;
    case CV_16S: depth = Depth::s16; break;
    case CV_32S: depth = Depth::s32; break;
    case CV_32F: depth = Depth::f32; break;
    case CV_64F: depth = Depth::f64; break;
    default: ADD_FAILURE() << "unsupported cv::Mat depth " << mat.depth();
  }
  HostImage image(mat.cols, mat.rows, Format{depth, mat.channels()});
  for (int y = 0; y < mat.rows; ++y) std::memcpy(image.row(y), mat.ptr(y), image.row_bytes());
  return image;
}

namespace {

template <class T, class Dist>
void fill(HostImage& image, std::mt19937& rng, Dist dist) {
  for (int y = 0; y < image.height(); ++y) {
    T* row = image.row_as<T>(y);
    for (int i = 0; i < image.width() * image.channels(); ++i) row[i] = static_cast<T>(dist(rng));
  }
}

template <class T>
void fill_range(HostImage& image, std::mt19937& rng, double lo, double hi) {
  if constexpr (std::is_floating_point_v<T>) {
    fill<T>(image, rng, std::uniform_real_distribution<double>(lo, hi));
  } else {
    // u64's full range does not fit long long: converting 1.8e19 to it is undefined (UBSan's
    // float-cast-overflow); clamped to 9.2e18, just below 2^63.
    constexpr double kLongLong = 9.2e18;
    fill<T>(image, rng, std::uniform_int_distribution<long long>(static_cast<long long>(std::clamp(lo, -kLongLong, kLongLong)),
                                                                 static_cast<long long>(std::clamp(hi, -kLongLong, kLongLong))));
  }
}

template <class T>
std::pair<double, double> full_range() {
  if constexpr (std::is_floating_point_v<T>) {
    return {-1000.0, 1000.0};
  } else {
    return {static_cast<double>(std::numeric_limits<T>::min()), static_cast<double>(std::numeric_limits<T>::max())};
  }
}

template <class F>
auto dispatch(Depth depth, F&& f) {
  switch (depth) {
    case Depth::u8: return f(std::uint8_t{});
    case Depth::s8: return f(std::int8_t{});
    case Depth::u16: return f(std::uint16_t{});
    case Depth::s16: return f(std::int16_t{});
    case Depth::u32: return f(std::uint32_t{});
    case Depth::s32: return f(std::int32_t{});
    case Depth::u64: return f(std::uint64_t{});
    case Depth::s64: return f(std::int64_t{});
    case Depth::f32: return f(float{});
    case Depth::f64: return f(double{});
  }
  return f(std::uint8_t{});
}

}  // namespace

HostImage random_image(int width, int height, Format format, std::uint32_t seed) {
  return dispatch(format.depth, [&](auto tag) {
    auto [lo, hi] = full_range<decltype(tag)>();
    return random_image(width, height, format, seed, lo, hi);
  });
}

HostImage random_image(int width, int height, Format format, std::uint32_t seed, double lo, double hi) {
  HostImage image(width, height, format);
  std::mt19937 rng(seed);
  dispatch(format.depth, [&](auto tag) {
    fill_range<decltype(tag)>(image, rng, lo, hi);
    return 0;
  });
  return image;
}

DeviceImage upload_padded(const HostImage& image, int pad_x, int pad_y) {
  DeviceImage big(context(), image.width() + 2 * pad_x, image.height() + 2 * pad_y, image.format());
  queue().fill_bytes(big, 0xA5);
  DeviceImage view = big.view(Rect{pad_x, pad_y, image.width(), image.height()});
  queue().upload(image, view).wait();
  return view;
}

DeviceImage poisoned_view(int width, int height, Format format, int pad_x, int pad_y, std::uint8_t poison) {
  DeviceImage big(context(), width + 2 * pad_x, height + 2 * pad_y, format);
  queue().fill_bytes(big, poison).wait();
  return big.view(Rect{pad_x, pad_y, width, height});
}

namespace {

std::string element_text(const HostImage& image, int x, int y, int c) {
  std::ostringstream out;
  dispatch(image.depth(), [&](auto tag) {
    using T = decltype(tag);
    const T v = image.at<T>(x, y, c);
    if constexpr (sizeof(T) == 1) {
      out << static_cast<int>(v);
    } else {
      out.precision(17);
      out << v;
    }
    return 0;
  });
  return out.str();
}

::testing::AssertionResult check_shape(const HostImage& e, const HostImage& a) {
  if (e.size() != a.size() || e.format() != a.format()) {
    return ::testing::AssertionFailure() << "shape differs: expected " << e.width() << "x" << e.height() << " "
                                         << to_string(e.depth()) << "C" << e.channels() << ", got " << a.width() << "x"
                                         << a.height() << " " << to_string(a.depth()) << "C" << a.channels();
  }
  return ::testing::AssertionSuccess();
}

// With PLINTH_RECORD_OUTPUTS=<file>, appends "test#n hash" for every image a test compares, so
// that two runs (PLINTH_DEVICE=cuda:0 and opencl:0) can be checked byte for byte against each
// other (scripts/device/compare_outputs.sh).
void record_output(const HostImage& actual) {
  static const char* path = std::getenv("PLINTH_RECORD_OUTPUTS");
  if (path == nullptr || *path == '\0') return;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test = info ? std::string(info->test_suite_name()) + "." + info->name() : "?";
  static std::map<std::string, int> counts;
  std::uint64_t hash = 14695981039346656037ull;
  for (int y = 0; y < actual.height(); ++y) {
    const auto* row = reinterpret_cast<const unsigned char*>(actual.row(y));
    for (std::size_t i = 0; i < actual.row_bytes(); ++i) hash = (hash ^ row[i]) * 1099511628211ull;
  }
  std::ofstream(path, std::ios::app) << test << '#' << counts[test]++ << ' ' << std::hex << hash << '\n';
}

}  // namespace

::testing::AssertionResult images_equal(const HostImage& expected, const HostImage& actual) {
  if (auto shape = check_shape(expected, actual); !shape) return shape;
  record_output(actual);
  const std::size_t elem = depth_size(expected.depth());
  long long mismatches = 0;
  int fx = -1, fy = -1, fc = -1;
  for (int y = 0; y < expected.height(); ++y) {
    const std::byte* e = expected.row(y);
    const std::byte* a = actual.row(y);
    if (std::memcmp(e, a, expected.row_bytes()) == 0) continue;
    for (int i = 0; i < expected.width() * expected.channels(); ++i) {
      if (std::memcmp(e + static_cast<std::size_t>(i) * elem, a + static_cast<std::size_t>(i) * elem, elem) != 0) {
        if (mismatches++ == 0) {
          fx = i / expected.channels();
          fy = y;
          fc = i % expected.channels();
        }
      }
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " elements differ; first at (x=" << fx << ", y=" << fy
                                       << ", c=" << fc << "): expected " << element_text(expected, fx, fy, fc)
                                       << ", got " << element_text(actual, fx, fy, fc);
}

::testing::AssertionResult images_near(const HostImage& expected, const HostImage& actual, double rel_tol,
                                       double abs_tol) {
  if (auto shape = check_shape(expected, actual); !shape) return shape;
  record_output(actual);
  long long mismatches = 0;
  int fx = -1, fy = -1, fc = -1;
  double worst = 0.0;
  dispatch(expected.depth(), [&](auto tag) {
    using T = decltype(tag);
    for (int y = 0; y < expected.height(); ++y) {
      for (int i = 0; i < expected.width() * expected.channels(); ++i) {
        const double e = static_cast<double>(expected.row_as<T>(y)[i]);
        const double a = static_cast<double>(actual.row_as<T>(y)[i]);
        const double err = std::fabs(a - e);
        if (!(err <= abs_tol + rel_tol * std::fabs(e))) {
          if (mismatches++ == 0) {
            fx = i / expected.channels();
            fy = y;
            fc = i % expected.channels();
          }
        }
        if (std::isfinite(err) && std::fabs(e) > 0) worst = std::max(worst, err / std::fabs(e));
      }
    }
    return 0;
  });
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " elements beyond tolerance (worst relative " << worst
                                       << "); first at (x=" << fx << ", y=" << fy << ", c=" << fc << "): expected "
                                       << element_text(expected, fx, fy, fc) << ", got "
                                       << element_text(actual, fx, fy, fc);
}

}  // namespace plinth::test
