// Integral images: argument checks, depth rules, method choice. The launchers live in
// integral_*.cpp, the kernels in kernels/integral.cl; the rules are written up in docs/integral.md.
#include <string>

#include "core/image_checks.hpp"
#include "core/launch.hpp"
#include "ops/integral_plan.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

using detail::IntegralPlan;

constexpr const char* kOp = "integral";

struct DepthRules {
  Depth src;
  std::initializer_list<Depth> sums;
  std::initializer_list<Depth> sqsums;
};

// OpenCV 4.6 accepts u8 -> (s32; s32, f32, f64), (f32; f32, f64), (f64; f64); u16, s16 -> (f64; f64);
// f32 -> (f32; f32, f64), (f64; f64); f64 -> (f64; f64). plinth adds u32 and wrap-around s32
// sums for 16-bit sources and exact 64-bit integer squared sums for integer sources.
constexpr DepthRules kRules[] = {
    {Depth::u8, {Depth::s32, Depth::u32, Depth::f32, Depth::f64}, {Depth::s32, Depth::f32, Depth::f64, Depth::u64, Depth::s64}},
    {Depth::u16, {Depth::s32, Depth::u32, Depth::f64}, {Depth::f64, Depth::u64, Depth::s64}},
    {Depth::s16, {Depth::s32, Depth::u32, Depth::f64}, {Depth::f64, Depth::u64, Depth::s64}},
    {Depth::f32, {Depth::f32, Depth::f64}, {Depth::f32, Depth::f64}},
    {Depth::f64, {Depth::f64}, {Depth::f64}},
};

const DepthRules& rules_for(Depth src) {
  for (const DepthRules& r : kRules) {
    if (r.src == src) return r;
  }
  detail::check_depth(src, {Depth::u8, Depth::u16, Depth::s16, Depth::f32, Depth::f64}, kOp, "src");
  throw Error(ErrorCode::internal, kOp, "src", "no depth rules");
}

// Largest |value| and value^2 of a source depth, for the exactness bound.
double max_magnitude(Depth src) {
  switch (src) {
    case Depth::u8: return 255.0;
    case Depth::u16: return 65535.0;
    case Depth::s16: return 32768.0;
    default: return 0.0;  // float sources: never order-free in float outputs
  }
}

// Whether a float output of depth `out` holds every partial sum of `pixels` terms of at most
// `term` exactly; integer outputs always do (modulo 2^n).
bool exact_in_any_order(Depth src, Depth out, double pixels, double term) {
  if (!is_float(out)) return true;
  if (is_float(src)) return false;
  const double limit = out == Depth::f32 ? 16777216.0 : 9007199254740992.0;
  return pixels * term <= limit;
}

void check_output(Queue& queue, DeviceImage& out, const IntegralPlan& plan, Depth depth, const char* name) {
  const int w = plan.width + 1;
  const int h = plan.batch * (plan.height + 1);
  const Format format{depth, plan.channels};
  if (out.empty()) {
    out = DeviceImage(queue.context(), w, h, format);
    return;
  }
  detail::check_device(queue, out, kOp, name);
  if (out.size() != Size{w, h} || out.channels() != plan.channels || out.depth() != depth) {
    throw Error(ErrorCode::invalid_argument, kOp, name,
                "is " + std::to_string(out.width()) + "x" + std::to_string(out.height()) + " " +
                    std::string(to_string(out.depth())) + "C" + std::to_string(out.channels()) + " but must be " +
                    std::to_string(w) + "x" + std::to_string(h) + " " + std::string(to_string(depth)) + "C" +
                    std::to_string(plan.channels));
  }
  detail::check_no_overlap(*plan.src, out, kOp, name);
}

IntegralPlan make_plan(Queue& queue, const DeviceImage& src, const IntegralOutputs& out, const IntegralOptions& options,
                       bool count) {
  detail::check_device(queue, src, kOp, "src");
  const DepthRules& rules = rules_for(src.depth());
  if (!out.sum && !out.sqsum && !out.tilted) throw Error(ErrorCode::invalid_argument, kOp, "outputs", "none requested");
  if (options.batch < 1 || src.height() % options.batch != 0) {
    throw Error(ErrorCode::invalid_argument, kOp, "batch",
                std::to_string(options.batch) + " does not divide the source height " + std::to_string(src.height()));
  }
  IntegralPlan plan;
  plan.src = &src;
  plan.count = count;
  plan.width = src.width();
  plan.height = src.height() / options.batch;
  plan.channels = src.channels();
  plan.batch = options.batch;
  detail::check_geometry(plan.width + 1, options.batch * (plan.height + 1), src.format(), kOp, "src");

  // Depths: an allocated output's own depth, else the option, else OpenCV's default.
  const DeviceImage* sum_like = out.sum && !out.sum->empty() ? out.sum : (out.tilted && !out.tilted->empty() ? out.tilted : nullptr);
  plan.sum_depth = sum_like ? sum_like->depth()
                   : options.sum_depth ? *options.sum_depth
                   : (count || src.depth() == Depth::u8) ? Depth::s32
                                                        : Depth::f64;
  plan.sq_depth = out.sqsum && !out.sqsum->empty() ? out.sqsum->depth() : options.sqsum_depth.value_or(Depth::f64);
  if (count) {
    detail::check_depth(plan.sum_depth, {Depth::s32, Depth::u32}, kOp, "count depth");
  } else {
    if (out.sum || out.tilted) detail::check_depth(plan.sum_depth, rules.sums, kOp, "sum depth");
    if (out.sqsum) detail::check_depth(plan.sq_depth, rules.sqsums, kOp, "sqsum depth");
  }
  if ((plan.sum_depth == Depth::f64 || plan.sq_depth == Depth::f64 || src.depth() == Depth::f64) &&
      !queue.context().device().has_fp64) {
    throw Error(ErrorCode::unsupported_type, kOp, "depth", "the device has no double precision (cl_khr_fp64)");
  }

  if (out.sum) check_output(queue, *out.sum, plan, plan.sum_depth, count ? "count" : "sum");
  if (out.sqsum) check_output(queue, *out.sqsum, plan, plan.sq_depth, "sqsum");
  if (out.tilted) check_output(queue, *out.tilted, plan, plan.sum_depth, "tilted");
  plan.sum = out.sum;
  plan.sqsum = out.sqsum;
  plan.tilted = out.tilted;
  if (out.sum && out.tilted && out.sum->overlaps(*out.tilted)) throw Error(ErrorCode::invalid_argument, kOp, "tilted", "overlaps sum");
  if (out.sum && out.sqsum && out.sum->overlaps(*out.sqsum)) throw Error(ErrorCode::invalid_argument, kOp, "sqsum", "overlaps sum");

  const double pixels = static_cast<double>(plan.width) * plan.height;
  const double m = max_magnitude(src.depth());
  plan.order_free = count || ((!(out.sum || out.tilted) || exact_in_any_order(src.depth(), plan.sum_depth, pixels, m)) &&
                              (!out.sqsum || exact_in_any_order(src.depth(), plan.sq_depth, pixels, m * m)));

  plan.method = options.method;
  if (plan.method == IntegralMethod::automatic) {
    // Measured on the H100 (docs/integral.md): resident, which reads the source once, is the fastest
    // for one order-free quantity from 640x480 to 7680x4320 and for batches; tiled, for the sum
    // with its squared sum.
    plan.method = plan.order_free ? detail::fastest_order_free_method(queue, plan) : IntegralMethod::row_column;
  } else if (!plan.order_free && plan.method != IntegralMethod::row_column) {
    throw Error(ErrorCode::invalid_argument, kOp, "method",
                std::string(to_string(plan.method)) +
                    " adds in its own order, but these float sums round, and only OpenCV's order (row_column, "
                    "which automatic picks) reproduces OpenCV's result");
  } else if (plan.method == IntegralMethod::resident && (plan.sum || plan.sqsum)) {
    detail::check_integral_resident(queue, plan);  // before anything is enqueued
  } else if (plan.method == IntegralMethod::cluster && (plan.sum || plan.sqsum)) {
    detail::check_integral_cluster(queue, plan);
  }
  return plan;
}

Event run(Queue& queue, const IntegralPlan& plan) {
  Event tilted;
  if (plan.tilted) tilted = detail::launch_integral_tilted(queue, plan);
  if (!plan.sum && !plan.sqsum) return tilted;
  Event main;
  switch (plan.method) {
    case IntegralMethod::row_column: main = detail::launch_integral_row_column(queue, plan); break;
    case IntegralMethod::block_4x4: main = detail::launch_integral_block_4x4(queue, plan); break;
    case IntegralMethod::blelloch: main = detail::launch_integral_blelloch(queue, plan); break;
    case IntegralMethod::blocked_scan: main = detail::launch_integral_blocked_scan(queue, plan); break;
    case IntegralMethod::single_pass: main = detail::launch_integral_single_pass(queue, plan); break;
    case IntegralMethod::tiled: main = detail::launch_integral_tiled(queue, plan); break;
    case IntegralMethod::resident: main = detail::launch_integral_resident(queue, plan); break;
    case IntegralMethod::cluster: main = detail::launch_integral_cluster(queue, plan); break;
    case IntegralMethod::automatic: throw Error(ErrorCode::internal, kOp, "method", "unresolved");
  }
  return tilted.valid() ? Event(tilted.first(), main.last()) : main;
}

}  // namespace

std::string_view to_string(IntegralMethod method) noexcept {
  switch (method) {
    case IntegralMethod::automatic: return "auto";
    case IntegralMethod::row_column: return "row_column";
    case IntegralMethod::block_4x4: return "block_4x4";
    case IntegralMethod::blelloch: return "blelloch";
    case IntegralMethod::blocked_scan: return "blocked_scan";
    case IntegralMethod::single_pass: return "single_pass";
    case IntegralMethod::tiled: return "tiled";
    case IntegralMethod::resident: return "resident";
    case IntegralMethod::cluster: return "cluster";
  }
  return "?";
}

IntegralMethod parse_integral_method(std::string_view text) {
  for (IntegralMethod m : {IntegralMethod::automatic, IntegralMethod::row_column, IntegralMethod::block_4x4,
                           IntegralMethod::blelloch, IntegralMethod::blocked_scan, IntegralMethod::single_pass,
                           IntegralMethod::tiled, IntegralMethod::resident, IntegralMethod::cluster}) {
    if (text == to_string(m)) return m;
  }
  throw Error(ErrorCode::invalid_argument, kOp, "method",
              "unknown method '" + std::string(text) +
                  "' (expected auto, row_column, block_4x4, blelloch, blocked_scan, single_pass, tiled, resident or "
                  "cluster)");
}

Event integral(Queue& queue, const DeviceImage& src, const IntegralOutputs& out, const IntegralOptions& options) {
  return run(queue, make_plan(queue, src, out, options, false));
}

Event integral(Queue& queue, const DeviceImage& src, DeviceImage& sum, const IntegralOptions& options) {
  return integral(queue, src, IntegralOutputs{&sum, nullptr, nullptr}, options);
}

Event integral(Queue& queue, const DeviceImage& src, DeviceImage& sum, DeviceImage& sqsum, const IntegralOptions& options) {
  return integral(queue, src, IntegralOutputs{&sum, &sqsum, nullptr}, options);
}

Event integral(Queue& queue, const DeviceImage& src, DeviceImage& sum, DeviceImage& sqsum, DeviceImage& tilted,
               const IntegralOptions& options) {
  return integral(queue, src, IntegralOutputs{&sum, &sqsum, &tilted}, options);
}

Event integral_count(Queue& queue, const DeviceImage& src, DeviceImage& count, const IntegralOptions& options) {
  return run(queue, make_plan(queue, src, IntegralOutputs{&count, nullptr, nullptr}, options, true));
}

IntegralImages integral(Queue& queue, const HostImage& src, bool want_sqsum, bool want_tilted,
                        const IntegralOptions& options) {
  detail::check_host(src, kOp, "src");
  DeviceImage d_src = queue.upload(src);
  DeviceImage sum, sqsum, tilted;
  integral(queue, d_src, IntegralOutputs{&sum, want_sqsum ? &sqsum : nullptr, want_tilted ? &tilted : nullptr}, options);
  IntegralImages result;
  result.sum = queue.download(sum);
  if (want_sqsum) result.sqsum = queue.download(sqsum);
  if (want_tilted) result.tilted = queue.download(tilted);
  return result;
}

HostImage integral(Queue& queue, const HostImage& src, const IntegralOptions& options) {
  return integral(queue, src, false, false, options).sum;
}

HostImage integral_count(Queue& queue, const HostImage& src, const IntegralOptions& options) {
  detail::check_host(src, kOp, "src");
  DeviceImage d_src = queue.upload(src);
  DeviceImage count;
  integral_count(queue, d_src, count, options);
  return queue.download(count);
}

}  // namespace plinth
