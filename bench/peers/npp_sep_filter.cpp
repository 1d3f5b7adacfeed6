// NPP peer of the separable filter (issue 3): nppiFilterRowBorder_32f_C1R_Ctx then
// nppiFilterColumnBorder_32f_C1R_Ctx with a 31-tap kernel, both calls in one timed span;
// config "f32 31-tap" of op "sep_filter". The kernel is a symmetric Gaussian, so NPP's reversed
// coefficient order does not matter; borders are replicated (NPP's only mode).
#include <cmath>
#include <map>
#include <memory>

#include "npp_support.hpp"

namespace plinth::bench {
namespace {

constexpr int kTaps = 31;
constexpr int kAnchor = kTaps / 2;
constexpr std::uint64_t kSeed = 0x5e9f;
constexpr double kTolerance = 1e-5;  // inputs in [0, 1), weights summing to 1: f32 rounding is far below

struct Buffers {
  std::shared_ptr<npp::Runtime> runtime;
  std::vector<npp::Image> src, dst;
  std::unique_ptr<npp::Image> tmp;  // the row pass's result, shared by the sets
  std::unique_ptr<npp::Buffer> kernel;
};

std::vector<float> gaussian_taps() {
  std::vector<float> taps(kTaps);
  const double sigma = kTaps / 6.0;
  double sum = 0;
  for (int i = 0; i < kTaps; ++i) sum += std::exp(-0.5 * std::pow((i - kAnchor) / sigma, 2));
  for (int i = 0; i < kTaps; ++i) taps[i] = static_cast<float>(std::exp(-0.5 * std::pow((i - kAnchor) / sigma, 2)) / sum);
  return taps;
}

std::string compare(const HostImage& src, const HostImage& dst, const std::vector<float>& taps) {
  const int w = src.width(), h = src.height();
  auto clamp = [](int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); };
  std::map<int, std::vector<double>> row_pass;  // only the rows the sampled outputs need
  auto row = [&](int y) -> const std::vector<double>& {
    auto [it, fresh] = row_pass.try_emplace(y);
    if (fresh) {
      it->second.resize(static_cast<std::size_t>(w));
      const float* in = src.row_as<float>(y);
      for (int x = 0; x < w; ++x) {
        double acc = 0;
        for (int i = 0; i < kTaps; ++i) acc += static_cast<double>(taps[i]) * in[clamp(x - kAnchor + i, w - 1)];
        it->second[static_cast<std::size_t>(x)] = acc;
      }
    }
    return it->second;
  };
  long long bad = 0;
  std::string first;
  for (int y : npp::sample_rows(h, kAnchor + 1)) {
    std::vector<const std::vector<double>*> rows;
    for (int j = 0; j < kTaps; ++j) rows.push_back(&row(clamp(y - kAnchor + j, h - 1)));
    for (int x = 0; x < w; ++x) {
      double want = 0;
      for (int j = 0; j < kTaps; ++j) want += static_cast<double>(taps[j]) * (*rows[j])[static_cast<std::size_t>(x)];
      const double got = dst.at<float>(x, y);
      if (std::abs(got - want) <= kTolerance) continue;
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
  b->src = npp::random_sets(rt, size, {Depth::f32, 1}, sets, kSeed);
  b->dst = npp::output_sets(rt, size, {Depth::f32, 1}, sets);
  b->tmp = std::make_unique<npp::Image>(size.width, size.height, Format{Depth::f32, 1});
  b->tmp->fill(0xa5, rt.stream());
  const std::vector<float> taps = gaussian_taps();
  b->kernel = std::make_unique<npp::Buffer>(taps.size() * sizeof(float));
  npp::check(cudaMemcpy(b->kernel->data(), taps.data(), taps.size() * sizeof(float), cudaMemcpyHostToDevice),
             "cudaMemcpy(kernel)");

  const NppiSize roi{size.width, size.height};
  auto call = [b, roi](int s) {
    const auto* k = static_cast<const Npp32f*>(b->kernel->data());
    npp::check(
        nppiFilterRowBorder_32f_C1R_Ctx(b->src[s].at<Npp32f>(), b->src[s].step(), roi, NppiPoint{0, 0}, b->tmp->at<Npp32f>(),
                                        b->tmp->step(), roi, k, kTaps, kAnchor, NPP_BORDER_REPLICATE, b->runtime->context()),
        "nppiFilterRowBorder_32f_C1R_Ctx");
    npp::check(
        nppiFilterColumnBorder_32f_C1R_Ctx(b->tmp->at<Npp32f>(), b->tmp->step(), roi, NppiPoint{0, 0}, b->dst[s].at<Npp32f>(),
                                           b->dst[s].step(), roi, k, kTaps, kAnchor, NPP_BORDER_REPLICATE, b->runtime->context()),
        "nppiFilterColumnBorder_32f_C1R_Ctx");
  };
  return {npp::guarded("sep_filter", "f32 31-tap", size, [&] {
    b->dst[0].fill(0xa5, rt.stream());
    call(0);
    Case c = npp::make_case("sep_filter", "f32 31-tap", size, rt);
    c.note += "; row then column call, border replicate";
    npp::record_check(c, compare(random_image(size, {Depth::f32, 1}, kSeed * 1000003ULL), b->dst[0].download(rt.stream()), taps));
    c.bytes = 2.0 * 4 * size.width * size.height;
    c.run_peer = [b, call](int s) { return b->runtime->time_us([&] { call(s); }); };
    return c;
  })};
}

const Registration registration("sep_filter", make_cases);

}  // namespace
}  // namespace plinth::bench
