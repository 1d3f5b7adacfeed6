// OpenCV computes Gaussian kernels in software double precision (softfloat) with its own exp:
// x * log2(e) * 64 splits into an integer n and a fraction f, and exp(x) = 2^(n / 64) times a
// degree-5 polynomial in f / 64; 2^(n / 64) = 2^(n >> 6) * 2^((n & 63) / 64) from a table. The
// constants below are that algorithm's (its polynomial coefficients are fitted, not Taylor's).
// Each operation here is one IEEE double operation, rounded on its own: `rounded` keeps the
// compiler from fusing a multiply into an add, which softfloat never does.
#include "ops/gaussian_blur_kernel.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

namespace plinth::detail {
namespace {

double rounded(double v) {
  volatile double r = v;
  return r;
}
double mul(double a, double b) { return rounded(a * b); }
double add(double a, double b) { return rounded(a + b); }
double sub(double a, double b) { return rounded(a - b); }
double div(double a, double b) { return rounded(a / b); }
double from_bits(std::uint64_t bits) { return std::bit_cast<double>(bits); }

struct ExpConstants {
  double a0c = from_bits(0x3f83ce0f3e46f431);  // the polynomial's common scale
  double prescale = mul(from_bits(0x3ff71547652b82fe), 64.0);  // log2(e) * 64
  double postscale = div(1.0, 64.0);
  double max_val = 3000.0 * 64;
  std::array<double, 6> a{};  // a[5] + a[4] f + ... + a[0] f^5, each divided by a0c
  std::array<double, 64> table{};  // 2^(i / 64), rounded to the nearest double

  ExpConstants() {
    a[5] = div(1.0, a0c);
    a[4] = div(from_bits(0x3fe62e42fefa39f1), a0c);
    a[3] = div(from_bits(0x3fcebfbdff82a45a), a0c);
    a[2] = div(from_bits(0x3fac6b08d81fec75), a0c);
    a[1] = div(from_bits(0x3f83b2a72b4f3cd3), a0c);
    a[0] = div(from_bits(0x3f55e7aa1566c2a4), a0c);
    // Extended precision, then one rounding to double: exact for every entry of this table.
    for (int i = 0; i < 64; ++i) table[static_cast<std::size_t>(i)] = static_cast<double>(std::exp2l(i / 64.0L));
  }
};

const ExpConstants& exp_constants() {
  static const ExpConstants c;
  return c;
}

double opencv_exp(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? x : 0.0;
  const ExpConstants& c = exp_constants();
  const int biased = static_cast<int>((std::bit_cast<std::uint64_t>(x) >> 52) & 0x7FF);
  double x0 = biased > 1023 + 10 ? (std::signbit(x) ? -c.max_val : c.max_val) : mul(x, c.prescale);
  const double whole = std::nearbyint(x0);  // round half to even, as cvRound and roundToInt
  const int n = static_cast<int>(whole);
  int e = (n >> 6) + 1023;
  e = e < 0 ? 0 : (e > 2047 ? 2047 : e);
  const double scale = std::bit_cast<double>(static_cast<std::uint64_t>(e) << 52);
  x0 = mul(sub(x0, whole), c.postscale);
  double poly = c.a[0];
  for (int i = 1; i <= 5; ++i) poly = add(mul(poly, x0), c.a[static_cast<std::size_t>(i)]);
  return mul(mul(mul(scale, c.a0c), c.table[static_cast<std::size_t>(n & 63)]), poly);
}

}  // namespace

std::vector<double> gaussian_kernel_bit_exact(int n, double sigma) {
  if (sigma <= 0) {
    switch (n) {
      case 1: return {1.0};
      case 3: return {0.25, 0.5, 0.25};
      case 5: return {0.0625, 0.25, 0.375, 0.25, 0.0625};
      case 7: return {0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125};
      case 9: return {4 / 256.0, 13 / 256.0, 30 / 256.0, 51 / 256.0, 60 / 256.0, 51 / 256.0, 30 / 256.0, 13 / 256.0, 4 / 256.0};
      default: break;
    }
  }
  // sigma = 0.15 n + 0.35 (one fused multiply-add) when not given.
  const double sigma_x = sigma > 0 ? sigma : std::fma(static_cast<double>(n), from_bits(0x3fc3333333333333),
                                                      from_bits(0x3fd6666666666666));
  const double scale2x = div(-0.125, mul(sigma_x, sigma_x));
  const int half = (n - 1) / 2;
  std::vector<double> values(static_cast<std::size_t>(half));
  double sum = 0.0;
  for (int i = 0, x = 1 - n; i < half; ++i, x += 2) {
    const double t = opencv_exp(mul(static_cast<double>(x * x), scale2x));
    values[static_cast<std::size_t>(i)] = t;
    sum = add(sum, t);
  }
  sum = mul(sum, 2.0);
  sum = add(sum, 1.0);
  if (n % 2 == 0) sum = add(sum, 1.0);
  const double mul1 = div(1.0, sum);
  std::vector<double> result(static_cast<std::size_t>(n));
  for (int i = 0; i < half; ++i) {
    const double t = mul(values[static_cast<std::size_t>(i)], mul1);
    result[static_cast<std::size_t>(i)] = t;
    result[static_cast<std::size_t>(n - 1 - i)] = t;
  }
  result[static_cast<std::size_t>(half)] = mul1;
  if (n % 2 == 0) result[static_cast<std::size_t>(half + 1)] = mul1;
  return result;
}

std::vector<std::uint32_t> gaussian_kernel_fixed_point(const std::vector<double>& kernel, int bits) {
  const int n = static_cast<int>(kernel.size());
  const double one = static_cast<double>(std::int64_t{1} << bits);
  std::vector<std::uint32_t> out(static_cast<std::size_t>(n));
  double err = 0.0;
  std::int64_t sum = 0;
  for (int i = 0; i < n / 2; ++i) {
    const double adj = add(mul(kernel[static_cast<std::size_t>(i)], one), err);
    const double v = std::nearbyint(adj);
    err = sub(adj, v);
    out[static_cast<std::size_t>(i)] = out[static_cast<std::size_t>(n - 1 - i)] = static_cast<std::uint32_t>(v);
    sum += static_cast<std::int64_t>(v);
  }
  out[static_cast<std::size_t>(n / 2)] = static_cast<std::uint32_t>((std::int64_t{1} << bits) - 2 * sum);
  return out;
}

}  // namespace plinth::detail
