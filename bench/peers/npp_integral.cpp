// NPP peer of the integral op: nppiIntegral_8u32s_C1R_Ctx (sum) and nppiSqrIntegral_8u32s64f_C1R_Ctx
// (sum and squared sum), on the configs of integral_bench.cpp; the batch as one call per image.
#include <cstdint>
#include <memory>

#include "integral_configs.hpp"
#include "npp_support.hpp"

namespace plinth::bench {
namespace {

namespace cfg = integral_configs;

struct Buffers {
  std::shared_ptr<npp::Runtime> runtime;
  std::vector<npp::Image> src, sum, sqsum, batch_src, batch_sum;
};

// OpenCV's layout: (W+1) x (H+1), zero first row and column; s32 sums wrap around (the u8 sum
// of a large image can pass 2^31), f64 squared sums are exact.
struct Reference {
  std::vector<std::uint32_t> sum;
  std::vector<double> sqsum;
};

Reference reference(const HostImage& src) {
  const int w = src.width() + 1, h = src.height() + 1;
  Reference r;
  r.sum.assign(static_cast<std::size_t>(w) * h, 0);
  r.sqsum.assign(static_cast<std::size_t>(w) * h, 0);
  for (int y = 1; y < h; ++y) {
    std::uint32_t row_sum = 0;
    double row_sq = 0;
    const auto* in = src.row_as<std::uint8_t>(y - 1);
    for (int x = 1; x < w; ++x) {
      row_sum += in[x - 1];
      row_sq += static_cast<double>(in[x - 1]) * in[x - 1];
      const std::size_t i = static_cast<std::size_t>(y) * w + x, above = i - static_cast<std::size_t>(w);
      r.sum[i] = r.sum[above] + row_sum;
      r.sqsum[i] = r.sqsum[above] + row_sq;
    }
  }
  return r;
}

// First difference between NPP's output and the reference, or "".
std::string compare(const Reference& ref, const HostImage& sum, const HostImage* sqsum) {
  long long bad = 0;
  std::string first;
  for (int y = 0; y < sum.height(); ++y) {
    for (int x = 0; x < sum.width(); ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * sum.width() + x;
      const auto got = static_cast<std::uint32_t>(sum.at<std::int32_t>(x, y));
      const bool sum_ok = got == ref.sum[i];
      const bool sq_ok = !sqsum || sqsum->at<double>(x, y) == ref.sqsum[i];
      if (sum_ok && sq_ok) continue;
      if (bad++ == 0) {
        first = "at (" + std::to_string(x) + ", " + std::to_string(y) + ") sum " +
                std::to_string(static_cast<std::int32_t>(got)) + " expected " +
                std::to_string(static_cast<std::int32_t>(ref.sum[i]));
        if (sqsum) first += ", sqsum " + std::to_string(sqsum->at<double>(x, y)) + " expected " + std::to_string(ref.sqsum[i]);
      }
    }
  }
  return bad ? std::to_string(bad) + " wrong values, first " + first : "";
}

NppiSize roi(Size s) { return NppiSize{s.width, s.height}; }

std::vector<Case> make_cases(Env& env) {
  const Size size = env.settings.size;
  const Size out_size{size.width + 1, size.height + 1};
  const int sets = env.settings.input_sets;
  auto b = std::make_shared<Buffers>();
  b->runtime = npp::Runtime::get();
  npp::Runtime& rt = *b->runtime;
  b->src = npp::random_sets(rt, size, {Depth::u8, 1}, sets, 0x1e7e9a1);
  b->sum = npp::output_sets(rt, out_size, {Depth::s32, 1}, sets);
  b->sqsum = npp::output_sets(rt, out_size, {Depth::f64, 1}, sets);

  auto integral_call = [b, size](int s) {
    npp::check(nppiIntegral_8u32s_C1R_Ctx(b->src[s].at<Npp8u>(), b->src[s].step(), b->sum[s].at<Npp32s>(), b->sum[s].step(),
                                          roi(size), 0, b->runtime->context()),
               "nppiIntegral_8u32s_C1R_Ctx");
  };
  auto sqr_call = [b, size](int s) {
    npp::check(
        nppiSqrIntegral_8u32s64f_C1R_Ctx(b->src[s].at<Npp8u>(), b->src[s].step(), b->sum[s].at<Npp32s>(), b->sum[s].step(),
                                         b->sqsum[s].at<Npp64f>(), b->sqsum[s].step(), roi(size), 0, 0.0, b->runtime->context()),
        "nppiSqrIntegral_8u32s64f_C1R_Ctx");
  };

  // Verify once, on set 0, with the outputs poisoned first.
  const Reference ref = reference(random_image(size, {Depth::u8, 1}, 0x1e7e9a1 * 1000003ULL));
  std::vector<Case> cases;
  cases.push_back(npp::guarded("integral", cfg::sum_s32, size, [&] {
    b->sum[0].fill(0xa5, rt.stream());
    integral_call(0);
    Case c = npp::make_case("integral", cfg::sum_s32, size, rt);
    npp::record_check(c, compare(ref, b->sum[0].download(rt.stream()), nullptr));
    c.bytes = cfg::bytes(size, 4);
    c.run_peer = [b, integral_call](int s) { return b->runtime->time_us([&] { integral_call(s); }); };
    return c;
  }));
  cases.push_back(npp::guarded("integral", cfg::sum_sqsum, size, [&] {
    b->sum[0].fill(0xa5, rt.stream());
    b->sqsum[0].fill(0xa5, rt.stream());
    sqr_call(0);
    const HostImage sq = b->sqsum[0].download(rt.stream());
    Case c = npp::make_case("integral", cfg::sum_sqsum, size, rt);
    npp::record_check(c, compare(ref, b->sum[0].download(rt.stream()), &sq));
    c.bytes = cfg::bytes(size, 4 + 8);
    c.run_peer = [b, sqr_call](int s) { return b->runtime->time_us([&] { sqr_call(s); }); };
    return c;
  }));
  const Size stacked{size.width, cfg::batch_images * size.height};
  if (cfg::has_batch(size))
    cases.push_back(npp::guarded("integral", cfg::batch, stacked, [&] {
      // NPP has no batched integral: one call per image, all inside one timed span.
      b->batch_src = npp::random_sets(rt, stacked, {Depth::u8, 1}, sets, 0xba7c4);
      b->batch_sum = npp::output_sets(rt, {size.width + 1, cfg::batch_images * (size.height + 1)}, {Depth::s32, 1}, sets);
      auto batch_call = [b, size](int s) {
        for (int i = 0; i < cfg::batch_images; ++i) {
          npp::check(nppiIntegral_8u32s_C1R_Ctx(b->batch_src[s].at<Npp8u>(0, i * size.height), b->batch_src[s].step(),
                                                b->batch_sum[s].at<Npp32s>(0, i * (size.height + 1)), b->batch_sum[s].step(),
                                                roi(size), 0, b->runtime->context()),
                     "nppiIntegral_8u32s_C1R_Ctx");
        }
      };
      b->batch_sum[0].fill(0xa5, rt.stream());
      batch_call(0);
      const HostImage src = random_image(stacked, {Depth::u8, 1}, 0xba7c4 * 1000003ULL);
      const HostImage out = b->batch_sum[0].download(rt.stream());
      std::string mismatch;
      for (int i = 0; i < cfg::batch_images && mismatch.empty(); ++i) {
        const Reference one = reference(src.view({0, i * size.height, size.width, size.height}));
        mismatch = compare(one, out.view({0, i * (size.height + 1), size.width + 1, size.height + 1}), nullptr);
        if (!mismatch.empty()) mismatch = "image " + std::to_string(i) + ": " + mismatch;
      }
      Case c = npp::make_case("integral", cfg::batch, stacked, rt);
      c.note += "; one call per image";
      npp::record_check(c, mismatch);
      c.bytes = cfg::bytes(size, 4, cfg::batch_images);
      c.run_peer = [b, batch_call](int s) { return b->runtime->time_us([&] { batch_call(s); }); };
      return c;
    }));
  return cases;
}

const Registration registration("integral", make_cases);

}  // namespace
}  // namespace plinth::bench
