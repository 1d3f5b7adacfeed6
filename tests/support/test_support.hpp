#pragma once
// Shared by the tests: the device under test, seeded random images, OpenCV conversions and
// comparisons that report the first mismatch.

#include <gtest/gtest.h>

#include <cstdint>
#include <opencv2/core.hpp>
#include <optional>
#include <random>
#include <string>

#include "plinth/plinth.hpp"

namespace plinth::test {

// One context and queue for the whole run, on the device the runtime selects (PLINTH_DEVICE).
Context& context();
Queue& queue();
// Whether the context's device is PoCL's (the CPU device of CI and of machines without a GPU).
bool on_pocl(const Context& context);

// OpenCV's depth code of a plinth depth (u32 maps to CV_32S and u64/s64 to CV_64F-sized
// storage is not needed: they have no OpenCV counterpart and are compared bitwise).
int cv_depth(Depth depth);
// A cv::Mat header over a host image's memory (no copy). u32 shows as CV_32S.
cv::Mat as_mat(const HostImage& image);
// A host image copy of a cv::Mat.
HostImage from_mat(const cv::Mat& mat);

// Uniform random values over the depth's whole range (floats in [-1000, 1000]).
HostImage random_image(int width, int height, Format format, std::uint32_t seed);
// A random image with values in [lo, hi].
HostImage random_image(int width, int height, Format format, std::uint32_t seed, double lo, double hi);

// Upload into a device image whose pitch is larger than its rows and whose first pixel sits at
// an offset inside a bigger buffer: exercises pitch and view handling.
DeviceImage upload_padded(const HostImage& image, int pad_x, int pad_y);
// A device image view of the given size inside a larger allocation, filled with `poison`.
DeviceImage poisoned_view(int width, int height, Format format, int pad_x, int pad_y, std::uint8_t poison);

// Compares bit for bit; on mismatch reports the first differing element.
::testing::AssertionResult images_equal(const HostImage& expected, const HostImage& actual);
// Compares floats with |a - e| <= abs_tol + rel_tol * |e|.
::testing::AssertionResult images_near(const HostImage& expected, const HostImage& actual, double rel_tol,
                                       double abs_tol = 0.0);

// Runs `body` and checks that it throws plinth::Error with `code`.
template <class F>
::testing::AssertionResult throws_code(F&& body, ErrorCode code) {
  try {
    body();
  } catch (const Error& e) {
    if (e.code() == code) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "threw code '" << to_string(e.code()) << "' instead of '" << to_string(code)
                                         << "': " << e.what();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-plinth exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

// Sets (or, with nullptr, unsets) an environment variable for the object's lifetime, then puts
// back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

}  // namespace plinth::test
