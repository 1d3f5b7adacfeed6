// NPP peer of the box filter (issue 3): nppiFilterBoxBorder_8u_C1R_Ctx, 8x8 and 31x31, with
// NPP's only border mode (replicate); configs "u8 8x8" and "u8 31x31" of op "box_filter".
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "npp_support.hpp"

namespace plinth::bench {
namespace {

struct Buffers {
  std::shared_ptr<npp::Runtime> runtime;
  std::vector<npp::Image> src, dst;
};

constexpr std::uint64_t kSeed = 0xb0c5;

// The mean of the k x k window whose anchor (k/2, k/2) sits on the pixel, borders replicated;
// NPP's rounding of the mean is not documented, so the check allows 1.
std::string compare(const HostImage& src, const HostImage& dst, int k) {
  const int w = src.width(), h = src.height(), a = k / 2;
  auto clamp = [](int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); };
  long long bad = 0;
  std::string first;
  for (int y : npp::sample_rows(h, a + 1)) {
    for (int x = 0; x < w; ++x) {
      long sum = 0;
      for (int j = 0; j < k; ++j) {
        const auto* row = src.row_as<std::uint8_t>(clamp(y - a + j, h - 1));
        for (int i = 0; i < k; ++i) sum += row[clamp(x - a + i, w - 1)];
      }
      const double want = static_cast<double>(sum) / (k * k);
      const int got = dst.at<std::uint8_t>(x, y);
      if (std::abs(got - want) <= 1.0) continue;
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
  const int sets = env.settings.input_sets;
  auto b = std::make_shared<Buffers>();
  b->runtime = npp::Runtime::get();
  npp::Runtime& rt = *b->runtime;
  b->src = npp::random_sets(rt, size, {Depth::u8, 1}, sets, kSeed);
  b->dst = npp::output_sets(rt, size, {Depth::u8, 1}, sets);
  const HostImage host_src = random_image(size, {Depth::u8, 1}, kSeed * 1000003ULL);

  std::vector<Case> cases;
  for (int k : {8, 31}) {
    const std::string config = "u8 " + std::to_string(k) + "x" + std::to_string(k);
    cases.push_back(npp::guarded("box_filter", config, size, [&] {
      auto call = [b, size, k](int s) {
        npp::check(nppiFilterBoxBorder_8u_C1R_Ctx(b->src[s].at<Npp8u>(), b->src[s].step(), NppiSize{size.width, size.height},
                                                  NppiPoint{0, 0}, b->dst[s].at<Npp8u>(), b->dst[s].step(),
                                                  NppiSize{size.width, size.height}, NppiSize{k, k}, NppiPoint{k / 2, k / 2},
                                                  NPP_BORDER_REPLICATE, b->runtime->context()),
                   "nppiFilterBoxBorder_8u_C1R_Ctx");
      };
      b->dst[0].fill(0xa5, rt.stream());
      call(0);
      Case c = npp::make_case("box_filter", config, size, rt);
      c.note += "; border replicate (NPP's only one)";
      npp::record_check(c, compare(host_src, b->dst[0].download(rt.stream()), k));
      c.bytes = 2.0 * size.width * size.height;
      c.run_peer = [b, call](int s) { return b->runtime->time_us([&] { call(s); }); };
      return c;
    }));
  }
  return cases;
}

const Registration registration("box_filter", make_cases);

}  // namespace
}  // namespace plinth::bench
