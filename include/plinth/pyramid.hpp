#pragma once
// Image pyramids.
//   pyr_down / pyr_up / build_pyramid: cv::pyrDown, cv::pyrUp and cv::buildPyramid, bit exact
//     for integer depths (u8, u16, s16) and within float rounding for f32 and f64.
//   subsampled_pyramid: the KLT tracker's pyramid of the case study: each level smoothed with a
//     Gaussian of sigma = sigma_factor * subsampling and sampled every `subsampling` pixels.
// docs/filters.md has the formulas.

#include <span>
#include <string_view>
#include <vector>

#include "plinth/core.hpp"
#include "plinth/filters.hpp"
#include "plinth/image.hpp"

namespace plinth {

// Methods of one pyrDown or pyrUp level; every one gives the same bits.
enum class PyrLevelMethod {
  automatic,  // strips for u8 images of 1 or 4 channels whose rows are word aligned, else baseline
  baseline,   // any type: pyrDown a local-memory tile, one output a row per work-item; pyrUp one 2x2 block per work-item
  strips,     // u8, 1 or 4 channels: 8 bytes across and 4 rows per work-item, words in and out, sums in 16-bit lanes
};
// The one table of methods: name ("auto" for automatic) and one line.
struct PyrLevelMethodInfo {
  PyrLevelMethod method;
  std::string_view name;
  std::string_view doc;
};
std::span<const PyrLevelMethodInfo> pyr_level_methods() noexcept;
std::string_view to_string(PyrLevelMethod method) noexcept;
// Parses a name of pyr_level_methods(); throws Error(invalid_argument) otherwise.
PyrLevelMethod parse_pyr_level_method(std::string_view text);

// dst is ((W + 1) / 2) x ((H + 1) / 2); cv::pyrDown accepts every border mode but constant.
// dst may be empty (allocated) or an image of that size and src's format. A method that cannot
// run the request (strips on anything but u8 with 1 or 4 channels) is Error(unsupported_type).
Event pyr_down(Queue& queue, const DeviceImage& src, DeviceImage& dst, BorderMode border = BorderMode::reflect_101,
               PyrLevelMethod method = PyrLevelMethod::automatic);
// dst is 2W x 2H; like cv::pyrUp, only reflect_101 is accepted.
Event pyr_up(Queue& queue, const DeviceImage& src, DeviceImage& dst, BorderMode border = BorderMode::reflect_101,
             PyrLevelMethod method = PyrLevelMethod::automatic);

HostImage pyr_down(Queue& queue, const HostImage& src, BorderMode border = BorderMode::reflect_101,
                   PyrLevelMethod method = PyrLevelMethod::automatic);
HostImage pyr_up(Queue& queue, const HostImage& src, BorderMode border = BorderMode::reflect_101,
                 PyrLevelMethod method = PyrLevelMethod::automatic);

enum class PyramidMethod {
  automatic,  // per level where pyr_down takes strips (u8, 1 or 4 channels), else two_levels on GPUs where local
              // memory allows (all but f64 with 2-4 channels), else per level
  per_level,  // one launch per level (each level by pyr_down's automatic method)
  two_levels, // one launch computes two levels: the middle level's tiles stay in local memory
};
std::string_view to_string(PyramidMethod method) noexcept;
// Parses "auto", "per_level" or "two_levels".
PyramidMethod parse_pyramid_method(std::string_view text);

struct PyramidOptions {
  int levels = 4;  // images in the pyramid, the source included (cv::buildPyramid's maxlevel + 1)
  BorderMode border = BorderMode::reflect_101;
  PyramidMethod method = PyramidMethod::automatic;
};

// levels[0] is src itself (shared, not copied); levels[i] = pyr_down(levels[i - 1]). Levels
// that would be empty are an Error(out_of_range). Enqueued without host round trips; the event
// spans every launch.
Event build_pyramid(Queue& queue, const DeviceImage& src, std::vector<DeviceImage>& levels,
                    const PyramidOptions& options = {});
std::vector<HostImage> build_pyramid(Queue& queue, const HostImage& src, const PyramidOptions& options = {});

struct SubsampledPyramidOptions {
  int levels = 3;          // images, the source level included
  int subsampling = 4;     // the step between samples in each dimension (KLT's default, the case study's "1/4 size")
  double sigma_factor = 0.9;  // sigma = sigma_factor * subsampling
  BorderMode border = BorderMode::reflect_101;
};

// levels[0] is src converted to f32; level i (W_i x H_i = W_{i-1} / s x H_{i-1} / s, rounded
// down) samples level i - 1 smoothed by a normalised Gaussian of radius ceil(3 sigma) at
// (s x + s / 2, s y + s / 2). Source depth u8 or f32, one channel; outputs are f32.
Event subsampled_pyramid(Queue& queue, const DeviceImage& src, std::vector<DeviceImage>& levels,
                         const SubsampledPyramidOptions& options = {});
std::vector<HostImage> subsampled_pyramid(Queue& queue, const HostImage& src, const SubsampledPyramidOptions& options = {});

// The Gaussian weights subsampled_pyramid uses (2 * radius + 1 values, summing to 1).
std::vector<float> subsampled_pyramid_kernel(const SubsampledPyramidOptions& options);

}  // namespace plinth
