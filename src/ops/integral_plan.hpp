#pragma once
// The checked, resolved form of an integral request, shared by the variant launchers.

#include "plinth/integral.hpp"

namespace plinth::detail {

struct IntegralPlan {
  const DeviceImage* src = nullptr;
  DeviceImage* sum = nullptr;     // also the count output
  DeviceImage* sqsum = nullptr;
  DeviceImage* tilted = nullptr;
  bool count = false;
  int width = 0;                  // of one image of the batch
  int height = 0;
  int channels = 1;
  int batch = 1;
  Depth sum_depth = Depth::s32;   // also the tilted and count depth
  Depth sq_depth = Depth::f64;
  // True when every output is an integer, or a float that holds every partial sum exactly, so
  // that any summation order gives OpenCV's result; false when only OpenCV's order does.
  bool order_free = true;
  IntegralMethod method = IntegralMethod::row_column;
};

// Each launcher enqueues one method for the sum / sqsum / count outputs of the plan.
Event launch_integral_row_column(Queue& queue, const IntegralPlan& plan);
Event launch_integral_block_4x4(Queue& queue, const IntegralPlan& plan);
Event launch_integral_blelloch(Queue& queue, const IntegralPlan& plan);
Event launch_integral_blocked_scan(Queue& queue, const IntegralPlan& plan);
Event launch_integral_single_pass(Queue& queue, const IntegralPlan& plan);
Event launch_integral_tiled(Queue& queue, const IntegralPlan& plan);
Event launch_integral_resident(Queue& queue, const IntegralPlan& plan);
Event launch_integral_cluster(Queue& queue, const IntegralPlan& plan);
// Whether resident takes the request: one quantity, order-free, its block within local memory and
// its work-group within the device's largest; check_... throws the reason where it does not.
bool integral_resident_fits(const Queue& queue, const IntegralPlan& plan);
void check_integral_resident(const Queue& queue, const IntegralPlan& plan);
// Whether cluster takes the request: the CUDA backend on sm_90 or newer, the u8 sum or count of one
// image of one channel into s32 or u32, at most 1664x768; check_... throws the reason where it does not.
bool integral_cluster_fits(const Queue& queue, const IntegralPlan& plan);
void check_integral_cluster(const Queue& queue, const IntegralPlan& plan);
// resident's block shape: blocks of 128 columns by warps * rows_per_warp rows of one plane, a
// work-group of `warps` warps each. For u8 sources the smallest blocks that all fit the device at
// once (64 rows, else 128 rows, in 8 warps, reckoning 4 such work-groups per compute unit), and
// where neither does 128 rows in 4 warps, held to 64 registers where the compiler allows it
// (NVIDIA's: then 8 work-groups per SM).
// Wider sources: 64 rows (2-byte elements) or 32 in 4 warps, the block within 32 KiB.
struct ResidentShape {
  int warps = 8;
  int rows_per_warp = 16;
  bool limit_registers = false;
};
ResidentShape resident_shape(std::size_t element_size, long long planes, int width, int height, unsigned compute_units);
// The fastest method for an order-free plan: cluster for small images on Hopper (CUDA), else
// resident where it fits, else tiled.
IntegralMethod fastest_order_free_method(const Queue& queue, const IntegralPlan& plan);
// The tilted output (every method shares it).
Event launch_integral_tilted(Queue& queue, const IntegralPlan& plan);

}  // namespace plinth::detail

#include "core/program_cache.hpp"

namespace plinth::detail {

// The -D options of kernels/integral.cl for the plan's sum/count and squared-sum outputs.
BuildOptions integral_build_options(const IntegralPlan& plan);

}  // namespace plinth::detail
