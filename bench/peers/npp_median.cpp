// NPP peer of the median filter (issue 3): nppiFilterMedian_8u_C1R_Ctx 3x3, 5x5 and 7x7;
// configs "u8 3x3", "u8 5x5", "u8 7x7" of op "median". NPP's median has no border handling: it
// reads the pixels around its ROI, so the source is a larger random image and the ROI its middle.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

#include "npp_support.hpp"

namespace plinth::bench {
namespace {

constexpr int kMaxRadius = 3;
constexpr std::uint64_t kSeed = 0x3ed1a;

struct Buffers {
  std::shared_ptr<npp::Runtime> runtime;
  std::vector<npp::Image> src, dst;  // src is padded by kMaxRadius on every side
  std::vector<std::unique_ptr<npp::Buffer>> scratch;
};

// `padded` holds the image with kMaxRadius extra pixels on each side; the median of the k x k
// window centred on each pixel.
std::string compare(const HostImage& padded, const HostImage& dst, int k) {
  const int r = k / 2;
  long long bad = 0;
  std::string first;
  std::array<std::uint8_t, 49> window{};
  for (int y : npp::sample_rows(dst.height(), r + 1)) {
    for (int x = 0; x < dst.width(); ++x) {
      std::size_t n = 0;
      for (int j = -r; j <= r; ++j) {
        for (int i = -r; i <= r; ++i) window[n++] = padded.at<std::uint8_t>(x + kMaxRadius + i, y + kMaxRadius + j);
      }
      std::nth_element(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(n / 2),
                       window.begin() + static_cast<std::ptrdiff_t>(n));
      const int want = window[n / 2], got = dst.at<std::uint8_t>(x, y);
      if (got == want) continue;
      if (bad++ == 0) {
        first = "at (" + std::to_string(x) + ", " + std::to_string(y) + ") " + std::to_string(got) + " expected " +
                std::to_string(want);
      }
    }
  }
  return bad ? std::to_string(bad) + " wrong values in sampled rows, first " + first : "";
}

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  const Size padded{size.width + 2 * kMaxRadius, size.height + 2 * kMaxRadius};
  const int sets = env.settings.input_sets;
  auto b = std::make_shared<Buffers>();
  b->runtime = npp::Runtime::get();
  npp::Runtime& rt = *b->runtime;
  b->src = npp::random_sets(rt, padded, {Depth::u8, 1}, sets, kSeed);
  b->dst = npp::output_sets(rt, size, {Depth::u8, 1}, sets);
  const HostImage host_src = random_image(padded, {Depth::u8, 1}, kSeed * 1000003ULL);
  const NppiSize roi{size.width, size.height};

  std::vector<Case> cases;
  for (int k : {3, 5, 7}) {
    const std::string config = "u8 " + std::to_string(k) + "x" + std::to_string(k);
    cases.push_back(npp::guarded("median", config, size, [&] {
      Npp32u bytes = 0;
      npp::check(nppiFilterMedianGetBufferSize_8u_C1R_Ctx(roi, NppiSize{k, k}, &bytes, rt.context()),
                 "nppiFilterMedianGetBufferSize_8u_C1R_Ctx");
      b->scratch.push_back(std::make_unique<npp::Buffer>(bytes));
      npp::Buffer* scratch = b->scratch.back().get();
      auto call = [b, roi, k, scratch](int s) {
        npp::check(nppiFilterMedian_8u_C1R_Ctx(
                       b->src[s].at<Npp8u>(kMaxRadius, kMaxRadius), b->src[s].step(), b->dst[s].at<Npp8u>(), b->dst[s].step(),
                       roi, NppiSize{k, k}, NppiPoint{k / 2, k / 2}, static_cast<Npp8u*>(scratch->data()), b->runtime->context()),
                   "nppiFilterMedian_8u_C1R_Ctx");
      };
      b->dst[0].fill(0xa5, rt.stream());
      call(0);
      Case c = npp::make_case("median", config, size, rt);
      c.note += "; no border handling (reads a padded source)";
      npp::record_check(c, compare(host_src, b->dst[0].download(rt.stream()), k));
      c.bytes = 2.0 * size.width * size.height;
      c.run_peer = [b, call](int s) { return b->runtime->time_us([&] { call(s); }); };
      return c;
    }));
  }
  return cases;
}

const Registration registration("median", make_cases);

}  // namespace
}  // namespace plinth::bench
