// Gaussian blur (cv::GaussianBlur) and cv::getGaussianKernel. u8 and u16 follow OpenCV's
// bit-exact fixed-point implementation (kernels from getGaussianKernelBitExact, quantised with
// error diffusion), f32 its sepFilter2D path with float kernels. The filtering itself is the
// separable machinery of sep_filter (kernels/sep_filter.cl, modes GAUSS8, GAUSS16 and FLOAT).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <tuple>
#include <string>
#include <vector>

#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "ops/filter_support.hpp"
#include "ops/gaussian_blur_kernel.hpp"
#include "ops/sep_filter_plan.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

constexpr const char* kOp = "gaussian_blur";

int derived_ksize(double sigma, Depth depth) {
  const double factor = depth == Depth::u8 ? 3.0 : 4.0;
  const double v = std::nearbyint(sigma * factor * 2 + 1);
  if (!(v < 1e6)) return 1 << 20;  // far beyond the limit; reported below
  return static_cast<int>(v) | 1;
}

}  // namespace

std::vector<double> gaussian_kernel(int n, double sigma) {
  if (n < 1 || n % 2 == 0 || n > 1 << 16) {
    throw Error(ErrorCode::invalid_argument, "gaussian_kernel", "n", std::to_string(n) + " (must be odd and positive)");
  }
  if (!std::isfinite(sigma)) throw Error(ErrorCode::invalid_argument, "gaussian_kernel", "sigma", "is not finite");
  return detail::gaussian_kernel_bit_exact(n, sigma);
}

Event gaussian_blur(Queue& queue, const DeviceImage& src, DeviceImage& dst, const GaussianBlurOptions& options) {
  detail::check_device(queue, src, kOp, "src");
  detail::check_depth(src.depth(), {Depth::u8, Depth::u16, Depth::f32}, kOp, "src");
  if (src.depth() == Depth::f32) {
    detail::check_border(options.border,
                         {BorderMode::constant, BorderMode::replicate, BorderMode::reflect, BorderMode::reflect_101}, kOp);
  }
  if (!std::isfinite(options.sigma_x) || !std::isfinite(options.sigma_y)) {
    throw Error(ErrorCode::invalid_argument, kOp, "sigma", "is not finite");
  }
  // createGaussianKernels: sizes from the sigmas where not given, then both odd and positive.
  double sigma1 = options.sigma_x;
  double sigma2 = options.sigma_y <= 0 ? sigma1 : options.sigma_y;
  Size k = options.ksize;
  if (k.width <= 0 && sigma1 > 0) k.width = derived_ksize(sigma1, src.depth());
  if (k.height <= 0 && sigma2 > 0) k.height = derived_ksize(sigma2, src.depth());
  // A size derived from a sigma that is too large is the sigma's fault, not the ksize's.
  for (const auto& [given, derived, sigma] : {std::tuple{options.ksize.width, k.width, sigma1},
                                              std::tuple{options.ksize.height, k.height, sigma2}}) {
    if (given <= 0 && derived > sep_filter_max_taps) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", sigma);
      throw Error(ErrorCode::out_of_range, kOp, "sigma",
                  std::string(text) + " would need a kernel of more than " + std::to_string(sep_filter_max_taps) +
                      " taps (the largest); give a smaller sigma");
    }
  }
  if (k.width <= 0 || k.height <= 0 || k.width % 2 == 0 || k.height % 2 == 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "ksize",
                detail::size_text(k) + " (each side must be odd and positive, or 0 with a positive sigma)");
  }
  detail::check_ksize(k, sep_filter_max_taps, kOp, "ksize");
  sigma1 = std::max(sigma1, 0.0);
  sigma2 = std::max(sigma2, 0.0);
  detail::prepare_output(queue, src, dst, src.format(), kOp);

  // A single row or column only ever meets itself across a non-constant border.
  if (options.border != BorderMode::constant) {
    if (src.height() == 1) k.height = 1;
    if (src.width() == 1) k.width = 1;
  }
  if (k.width == 1 && k.height == 1) return queue.copy(src, dst);

  detail::SepPlan plan;
  plan.src = &src;
  plan.dst = &dst;
  plan.kw = k.width;
  plan.kh = k.height;
  plan.anchor = Anchor{k.width / 2, k.height / 2};
  plan.border = options.border;
  plan.method = options.method;
  const std::vector<double> kx = detail::gaussian_kernel_bit_exact(k.width, sigma1);
  const std::vector<double> ky = detail::gaussian_kernel_bit_exact(k.height, sigma2);
  if (src.depth() == Depth::f32) {
    plan.mode = detail::SepMode::float_path;
    plan.col_kind = 1;  // Gaussian kernels are symmetric, also as floats
    for (std::size_t i = 0; i < kx.size(); ++i) plan.kx[i] = detail::float_bits(static_cast<float>(kx[i]));
    for (std::size_t i = 0; i < ky.size(); ++i) plan.ky[i] = detail::float_bits(static_cast<float>(ky[i]));
  } else {
    const int bits = src.depth() == Depth::u8 ? 8 : 16;
    plan.mode = src.depth() == Depth::u8 ? detail::SepMode::gauss8 : detail::SepMode::gauss16;
    const std::vector<std::uint32_t> fx = detail::gaussian_kernel_fixed_point(kx, bits);
    const std::vector<std::uint32_t> fy = detail::gaussian_kernel_fixed_point(ky, bits);
    std::copy(fx.begin(), fx.end(), plan.kx.begin());
    std::copy(fy.begin(), fy.end(), plan.ky.begin());
  }
  return detail::launch_sep(queue, plan);
}

HostImage gaussian_blur(Queue& queue, const HostImage& src, const GaussianBlurOptions& options) {
  detail::check_host(src, kOp, "src");
  const DeviceImage d_src = queue.upload(src);
  DeviceImage d_dst;
  gaussian_blur(queue, d_src, d_dst, options);
  return queue.download(d_dst);
}

}  // namespace plinth
