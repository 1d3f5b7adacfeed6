#pragma once
// Integral images with OpenCV's definition and layout: for a W x H source the outputs are
// (W+1) x (H+1), row 0 and column 0 are zero, and
//   sum(X, Y)    = sum of src(x, y)          for x < X, y < Y
//   sqsum(X, Y)  = sum of src(x, y)^2        for x < X, y < Y
//   tilted(X, Y) = sum of src(x, y)          for y < Y, |x - X + 1| <= Y - y - 1
//   count(X, Y)  = number of src(x, y) != 0  for x < X, y < Y
// Channels are summed independently. Batches are images of one size stacked vertically: a
// source of height n * H with batch = n gives outputs of height n * (H + 1).
// The depths and exactness rules are in docs/integral.md.

#include <optional>

#include "plinth/core.hpp"
#include "plinth/image.hpp"

namespace plinth {

enum class IntegralMethod {
  automatic,     // the fastest exact method for the request
  row_column,    // one kernel scans each row in order, a second each column: OpenCV's summation order
  block_4x4,     // the OpenCL case study's five kernels over 4x4 blocks
  blelloch,      // work-efficient up-sweep / down-sweep scans of rows, then of columns
  blocked_scan,  // each work-item scans a run in registers and adds the totals of earlier runs
  single_pass,   // one kernel over tiles, joined by decoupled look-back along rows and columns
  tiled,         // one kernel: tiles reduced to aggregates, the aggregates scanned, then tiles written
  resident,      // one kernel reading the source once: each block, kept in local memory, sums the aggregates of
                 // the blocks above and to its left; one quantity: the sum of an integer source, or the count
  cluster,       // one kernel in thread-block clusters, the blocks of a strip passing their column totals down
                 // through each other's local memory: the CUDA backend on sm_90 and newer, the u8 sum (or the
                 // count) of one single-channel image of at most kIntegralClusterMaxSize into s32 or u32
};

// The largest image IntegralMethod::cluster takes.
inline constexpr Size kIntegralClusterMaxSize{1664, 768};

std::string_view to_string(IntegralMethod method) noexcept;
// Parses "auto", "row_column", "block_4x4", "blelloch", "blocked_scan", "single_pass", "tiled", "resident" or
// "cluster".
IntegralMethod parse_integral_method(std::string_view text);

struct IntegralOptions {
  // OpenCV's sdepth: default s32 for u8 sources and f64 otherwise; ignored when the sum
  // (or tilted) output is already allocated, whose depth then counts.
  std::optional<Depth> sum_depth;
  // OpenCV's sqdepth: default f64; likewise taken from an allocated sqsum output.
  std::optional<Depth> sqsum_depth;
  IntegralMethod method = IntegralMethod::automatic;
  int batch = 1;
};

// Outputs may be empty (then they are allocated) or allocated images of the right size,
// channels and a supported depth (views with pitch are fine). An output that is not wanted
// is passed as nullptr.
struct IntegralOutputs {
  DeviceImage* sum = nullptr;
  DeviceImage* sqsum = nullptr;
  DeviceImage* tilted = nullptr;
};

// Asynchronous forms: enqueue on `queue` and return the event spanning all launches.
Event integral(Queue& queue, const DeviceImage& src, const IntegralOutputs& out, const IntegralOptions& options = {});
Event integral(Queue& queue, const DeviceImage& src, DeviceImage& sum, const IntegralOptions& options = {});
Event integral(Queue& queue, const DeviceImage& src, DeviceImage& sum, DeviceImage& sqsum,
               const IntegralOptions& options = {});
Event integral(Queue& queue, const DeviceImage& src, DeviceImage& sum, DeviceImage& sqsum, DeviceImage& tilted,
               const IntegralOptions& options = {});
// Count of non-zero values (per channel); count depth s32 (default) or u32.
Event integral_count(Queue& queue, const DeviceImage& src, DeviceImage& count, const IntegralOptions& options = {});

// Synchronous conveniences on host images: upload, compute on the queue, download, wait.
struct IntegralImages {
  HostImage sum, sqsum, tilted;
};
HostImage integral(Queue& queue, const HostImage& src, const IntegralOptions& options = {});
IntegralImages integral(Queue& queue, const HostImage& src, bool want_sqsum, bool want_tilted,
                        const IntegralOptions& options = {});
HostImage integral_count(Queue& queue, const HostImage& src, const IntegralOptions& options = {});

}  // namespace plinth
