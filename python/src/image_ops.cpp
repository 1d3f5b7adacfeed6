// Image operations with cv2's names, argument names and defaults (plinth's own with snake_case
// names: integral_count, epsilon_filter, subsampled_pyramid): integral images, filters, pyramids,
// elementwise arithmetic, conversion, colour and resize. Each takes NumPy arrays (returns NumPy
// arrays, synchronously) or DeviceImages (returns DeviceImages, asynchronously; the result's .event
// completes when it is written). `queue` picks the queue (default: the module's).
#include <cmath>

#include "common.hpp"

namespace plinth::python {

namespace {

constexpr int border_default = 4;  // cv2.BORDER_DEFAULT (BORDER_REFLECT_101)

Anchor anchor_arg(nb::handle value, const char* op) {
  const Size s = size_arg(value, op, "anchor");
  return Anchor{s.width, s.height};
}

ColorConversion color_code(int code, bool& nv12) {
  nv12 = false;
  switch (code) {
    case 7: return ColorConversion::rgb_to_gray;
    case 6: return ColorConversion::bgr_to_gray;
    case 11: return ColorConversion::rgba_to_gray;
    case 10: return ColorConversion::bgra_to_gray;
  }
  nv12 = true;
  switch (code) {
    case 106: return ColorConversion::nv12_to_gray;
    case 90: return ColorConversion::nv12_to_rgb;
    case 91: return ColorConversion::nv12_to_bgr;
    case 94: return ColorConversion::nv12_to_rgba;
    case 95: return ColorConversion::nv12_to_bgra;
  }
  argument_error("cvtColor", "code", "not a conversion plinth offers (COLOR_{RGB,BGR,RGBA,BGRA}2GRAY, COLOR_YUV2{GRAY,RGB,BGR,RGBA,BGRA}_NV12): " + std::to_string(code));
}

nb::object integral_n(nb::handle src, nb::handle sdepth, nb::handle sqdepth, PyQueue* queue, std::size_t outputs,
                      nb::handle dst = nb::none()) {
  IntegralOptions options;
  options.sum_depth = parse_depth_arg(sdepth, "integral", "sdepth");
  options.sqsum_depth = parse_depth_arg(sqdepth, "integral", "sqdepth");
  const nb::handle srcs[] = {src};
  return apply_multi(srcs, queue, "integral", outputs, [&](Queue& q, std::span<const DeviceImage> in, std::vector<DeviceImage>& out) {
    IntegralOutputs targets{&out[0], outputs > 1 ? &out[1] : nullptr, outputs > 2 ? &out[2] : nullptr};
    return integral(q, in[0], targets, options);
  }, dst);
}

// A pyramid builder's levels as a list: DeviceImages carrying the build's event for a device source,
// NumPy arrays for a host one (level 0 the source array itself where `source_is_level0`, as cv2's
// buildPyramid returns it).
template <class Options>
nb::list pyramid_levels(nb::handle src, PyQueue* queue_arg, const char* op, const Options& o, bool source_is_level0,
                        Event (*on_device)(Queue&, const DeviceImage&, std::vector<DeviceImage>&, const Options&),
                        std::vector<HostImage> (*on_host)(Queue&, const HostImage&, const Options&)) {
  PyQueue& qq = queue_or_default(queue_arg);
  nb::list out;
  if (nb::isinstance<PyDeviceImage>(src)) {
    const DeviceImage s = nb::cast<PyDeviceImage&>(src).image;
    std::vector<DeviceImage> levels;
    const Event e = without_gil(qq, [&] { return on_device(qq.queue, s, levels, o); });
    for (auto& l : levels) out.append(PyDeviceImage{l, e, qq.queue.context(), {}});
  } else {
    const HostImage s = host_view(src, op, "src");
    auto levels = without_gil(qq, [&] { return on_host(qq.queue, s, o); });
    for (std::size_t i = 0; i < levels.size(); ++i) out.append(i == 0 && source_is_level0 ? nb::borrow(src) : to_numpy(levels[i]));
  }
  return out;
}

}  // namespace

void register_image_ops(nb::module_& m) {
  auto q = "queue"_a = nb::none();

  m.def("integral", [](nb::handle src, nb::handle sdepth, nb::handle dst, PyQueue* queue) {
    return integral_n(src, sdepth, nb::none(), queue, 1, dst);
  }, "src"_a.none(), "sdepth"_a.none() = -1, "dst"_a.none() = nb::none(), q, "cv2.integral: the (W+1) x (H+1) sum image (sdepth default: int32 for uint8, else float64).");
  m.def("integral2", [](nb::handle src, nb::handle sdepth, nb::handle sqdepth, PyQueue* queue) {
    return integral_n(src, sdepth, sqdepth, queue, 2);
  }, "src"_a.none(), "sdepth"_a.none() = -1, "sqdepth"_a.none() = -1, q, "cv2.integral2: (sum, sqsum); sqdepth default float64.");
  m.def("integral3", [](nb::handle src, nb::handle sdepth, nb::handle sqdepth, PyQueue* queue) {
    return integral_n(src, sdepth, sqdepth, queue, 3);
  }, "src"_a.none(), "sdepth"_a.none() = -1, "sqdepth"_a.none() = -1, q, "cv2.integral3: (sum, sqsum, tilted).");
  m.def("integral_count", [](nb::handle src, nb::handle sdepth, nb::handle dst, PyQueue* queue) {
    IntegralOptions o;
    o.sum_depth = parse_depth_arg(sdepth, "integral_count", "sdepth");
    return apply_image_op(src, dst, queue, "integral_count", [o](Queue& qq, const DeviceImage& s, DeviceImage& d) { return integral_count(qq, s, d, o); });
  }, "src"_a.none(), "sdepth"_a.none() = -1, "dst"_a.none() = nb::none(), q,
  "plinth's integral of non-zero counts: the (W+1) x (H+1) image of how many values are non-zero above and left "
  "of each point, per channel (cv2.integral of src != 0); sdepth int32 (default) or uint32.");

  m.def("boxFilter", [](nb::handle src, nb::handle ddepth, nb::handle ksize, nb::handle anchor, bool normalize, int border, nb::handle dst, PyQueue* queue) {
    BoxFilterOptions o;
    o.ddepth = parse_depth_arg(ddepth, "boxFilter", "ddepth");
    o.ksize = size_arg(ksize, "boxFilter", "ksize");
    o.anchor = anchor_arg(anchor, "boxFilter");
    o.normalize = normalize;
    o.border = border_from_cv(border, "boxFilter");
    return apply_image_op(src, dst, queue, "boxFilter", [o](Queue& qq, const DeviceImage& s, DeviceImage& d) { return box_filter(qq, s, d, o); });
  }, "src"_a.none(), "ddepth"_a.none(), "ksize"_a, "anchor"_a = nb::make_tuple(-1, -1), "normalize"_a = true, "borderType"_a = border_default, "dst"_a.none() = nb::none(), q,
  "cv2.boxFilter: window sums (normalize=True: means). uint8, uint16, float32 sources.");
  m.def("blur", [](nb::handle src, nb::handle ksize, nb::handle anchor, int border, nb::handle dst, PyQueue* queue) {
    BoxFilterOptions o;
    o.ksize = size_arg(ksize, "blur", "ksize");
    o.anchor = anchor_arg(anchor, "blur");
    o.border = border_from_cv(border, "blur");
    return apply_image_op(src, dst, queue, "blur", [o](Queue& qq, const DeviceImage& s, DeviceImage& d) { return box_filter(qq, s, d, o); });
  }, "src"_a.none(), "ksize"_a, "anchor"_a = nb::make_tuple(-1, -1), "borderType"_a = border_default, "dst"_a.none() = nb::none(), q, "cv2.blur: the normalized box filter.");

  m.def("sepFilter2D", [](nb::handle src, nb::handle ddepth, nb::handle kx, nb::handle ky, nb::handle anchor, double delta, int border, nb::handle dst, PyQueue* queue) {
    SepFilterOptions o;
    o.ddepth = parse_depth_arg(ddepth, "sepFilter2D", "ddepth");
    o.anchor = anchor_arg(anchor, "sepFilter2D");
    o.delta = delta;
    o.border = border_from_cv(border, "sepFilter2D");
    auto x = float_values(kx, "sepFilter2D", "kernelX"), y = float_values(ky, "sepFilter2D", "kernelY");
    return apply_image_op(src, dst, queue, "sepFilter2D", [=](Queue& qq, const DeviceImage& s, DeviceImage& d) { return sep_filter(qq, s, d, x, y, o); });
  }, "src"_a.none(), "ddepth"_a.none(), "kernelX"_a, "kernelY"_a, "anchor"_a = nb::make_tuple(-1, -1), "delta"_a = 0.0, "borderType"_a = border_default, "dst"_a.none() = nb::none(), q,
  "cv2.sepFilter2D: correlation with kernelX along rows and kernelY along columns (float32 coefficients).");

  m.def("filter2D", [](nb::handle src, nb::handle ddepth, nb::handle kernel, nb::handle anchor, double delta, int border, nb::handle dst, PyQueue* queue) {
    Filter2DOptions o;
    o.ddepth = parse_depth_arg(ddepth, "filter2D", "ddepth");
    o.anchor = anchor_arg(anchor, "filter2D");
    o.delta = delta;
    o.border = border_from_cv(border, "filter2D");
    std::vector<std::size_t> shape;
    auto k = float_values(kernel, "filter2D", "kernel", &shape);
    const Size ksize = shape.size() == 2 ? Size{static_cast<int>(shape[1]), static_cast<int>(shape[0])} : Size{static_cast<int>(shape[0]), 1};
    return apply_image_op(src, dst, queue, "filter2D", [=](Queue& qq, const DeviceImage& s, DeviceImage& d) {
      Filter2DKernel device_kernel(qq, ksize, k);
      return filter2d(qq, s, d, device_kernel, o);
    });
  }, "src"_a.none(), "ddepth"_a.none(), "kernel"_a, "anchor"_a = nb::make_tuple(-1, -1), "delta"_a = 0.0, "borderType"_a = border_default, "dst"_a.none() = nb::none(), q,
  "cv2.filter2D: correlation with a 2-D kernel (rows x columns, float32 coefficients).");

  m.def("GaussianBlur", [](nb::handle src, nb::handle ksize, double sigma_x, double sigma_y, int border, nb::handle dst, PyQueue* queue) {
    GaussianBlurOptions o;
    o.ksize = size_arg(ksize, "GaussianBlur", "ksize");
    o.sigma_x = sigma_x;
    o.sigma_y = sigma_y;
    o.border = border_from_cv(border, "GaussianBlur");
    return apply_image_op(src, dst, queue, "GaussianBlur", [o](Queue& qq, const DeviceImage& s, DeviceImage& d) { return gaussian_blur(qq, s, d, o); });
  }, "src"_a.none(), "ksize"_a, "sigmaX"_a, "sigmaY"_a = 0.0, "borderType"_a = border_default, "dst"_a.none() = nb::none(), q,
  "cv2.GaussianBlur: uint8 and uint16 bit-exact (OpenCV's fixed point), float32.");

  m.def("medianBlur", [](nb::handle src, int ksize, nb::handle dst, PyQueue* queue) {
    MedianOptions o;
    o.ksize = ksize;
    return apply_image_op(src, dst, queue, "medianBlur", [o](Queue& qq, const DeviceImage& s, DeviceImage& d) { return median_blur(qq, s, d, o); });
  }, "src"_a.none(), "ksize"_a, "dst"_a.none() = nb::none(), q, "cv2.medianBlur: median of the ksize x ksize window (replicated border).");

  m.def("epsilon_filter", [](nb::handle src, int window, int threshold, int border, int border_value, bool nv12, nb::handle dst, PyQueue* queue) {
    EpsilonOptions o;
    o.window = window;
    o.threshold = threshold;
    o.border = border_from_cv(border, "epsilon_filter");
    o.border_value = border_value;
    return apply_image_op(src, dst, queue, "epsilon_filter", [=](Queue& qq, const DeviceImage& s, DeviceImage& d) {
      if (!nv12) return epsilon_filter(qq, s, d, o);
      const DeviceNv12Frame frame = nv12_planes(qq.context(), s);
      if (d.empty()) d = DeviceImage(qq.context(), s.width(), s.height(), s.format());
      DeviceNv12Frame out = nv12_planes(qq.context(), d);
      return epsilon_filter(qq, frame, out, o);
    });
  }, "src"_a.none(), "window"_a = 5, "threshold"_a = 20, "borderType"_a = border_default, "borderValue"_a = 0, "nv12"_a = false,
  "dst"_a.none() = nb::none(), q,
  "plinth's epsilon filter (docs/epsilon_filter.md) of a uint8 one-channel image: the mean, rounded half up, of the "
  "window x window neighbours within `threshold` of the centre. nv12=True: src is an NV12 frame as one (3H/2, W) "
  "array, its Y plane filtered and UV copied.");

  auto pyramid_step = [](const char* name, bool down) {
    return [name, down](nb::handle src, nb::handle dstsize, int border, nb::handle dst, PyQueue* queue) {
      const BorderMode mode = border_from_cv(border, name);
      std::optional<Size> wanted;
      if (!dstsize.is_none()) wanted = size_arg(dstsize, name, "dstsize");
      return apply_image_op(src, dst, queue, name, [=](Queue& qq, const DeviceImage& s, DeviceImage& d) {
        const Size natural = down ? Size{(s.width() + 1) / 2, (s.height() + 1) / 2} : Size{s.width() * 2, s.height() * 2};
        if (wanted && *wanted != natural && *wanted != Size{})
          argument_error(name, "dstsize", "plinth makes only the default size (" + std::to_string(natural.width) + ", " + std::to_string(natural.height) + ")");
        return down ? pyr_down(qq, s, d, mode) : pyr_up(qq, s, d, mode);
      });
    };
  };
  m.def("pyrDown", pyramid_step("pyrDown", true), "src"_a.none(), "dstsize"_a.none() = nb::none(), "borderType"_a = border_default, "dst"_a.none() = nb::none(), q,
        "cv2.pyrDown: Gaussian smoothing and every second pixel; ((W+1)//2, (H+1)//2).");
  m.def("pyrUp", pyramid_step("pyrUp", false), "src"_a.none(), "dstsize"_a.none() = nb::none(), "borderType"_a = border_default, "dst"_a.none() = nb::none(), q,
        "cv2.pyrUp: upsampling by two with Gaussian interpolation.");
  m.def("buildPyramid", [](nb::handle src, int maxlevel, int border, PyQueue* queue_arg) {
    PyramidOptions o;
    o.levels = maxlevel + 1;
    o.border = border_from_cv(border, "buildPyramid");
    return pyramid_levels(src, queue_arg, "buildPyramid", o, true, build_pyramid, build_pyramid);
  }, "src"_a.none(), "maxlevel"_a, "borderType"_a = border_default, q, "cv2.buildPyramid: [src, pyrDown(src), ...], maxlevel + 1 images.");
  m.def("subsampled_pyramid", [](nb::handle src, int levels, int subsampling, double sigma_factor, int border, PyQueue* queue_arg) {
    SubsampledPyramidOptions o;
    o.levels = levels;
    o.subsampling = subsampling;
    o.sigma_factor = sigma_factor;
    o.border = border_from_cv(border, "subsampled_pyramid");
    return pyramid_levels(src, queue_arg, "subsampled_pyramid", o, false, subsampled_pyramid, subsampled_pyramid);
  }, "src"_a.none(), "levels"_a = 3, "subsampling"_a = 4, "sigma_factor"_a = 0.9, "borderType"_a = border_default, q,
  "plinth's KLT pyramid: float32 levels, [src, then each level smoothed by a Gaussian of sigma sigma_factor * "
  "subsampling and sampled at (s*x + s/2, s*y + s/2)]; uint8 or float32 one-channel source.");

  m.def("add", [](nb::handle a, nb::handle b, nb::handle dst, PyQueue* queue) {
    return apply_image_op2(a, b, dst, queue, "add", [](Queue& qq, const DeviceImage& x, const DeviceImage& y, DeviceImage& d) { return add(qq, x, y, d); });
  }, "src1"_a.none(), "src2"_a.none(), "dst"_a.none() = nb::none(), q, "cv2.add of two images of one shape and dtype (saturating).");
  m.def("subtract", [](nb::handle a, nb::handle b, nb::handle dst, PyQueue* queue) {
    return apply_image_op2(a, b, dst, queue, "subtract", [](Queue& qq, const DeviceImage& x, const DeviceImage& y, DeviceImage& d) { return subtract(qq, x, y, d); });
  }, "src1"_a.none(), "src2"_a.none(), "dst"_a.none() = nb::none(), q, "cv2.subtract of two images of one shape and dtype (saturating).");
  m.def("absdiff", [](nb::handle a, nb::handle b, nb::handle dst, PyQueue* queue) {
    return apply_image_op2(a, b, dst, queue, "absdiff", [](Queue& qq, const DeviceImage& x, const DeviceImage& y, DeviceImage& d) { return absdiff(qq, x, y, d); });
  }, "src1"_a.none(), "src2"_a.none(), "dst"_a.none() = nb::none(), q, "cv2.absdiff of two images of one shape and dtype.");

  m.def("convertTo", [](nb::handle src, nb::handle rtype, double alpha, double beta, nb::handle dst, PyQueue* queue) {
    const auto depth = parse_depth_arg(rtype, "convertTo", "rtype");
    ConvertOptions o;
    o.alpha = alpha;
    o.beta = beta;
    return apply_image_op(src, dst, queue, "convertTo", [=](Queue& qq, const DeviceImage& s, DeviceImage& d) {
      return convert_to(qq, s, d, depth.value_or(s.depth()), o);
    });
  }, "src"_a.none(), "rtype"_a.none(), "alpha"_a = 1.0, "beta"_a = 0.0, "dst"_a.none() = nb::none(), q,
  "cv2.Mat.convertTo as a function: saturate(src * alpha + beta) in depth rtype (-1: the source's).");

  m.def("cvtColor", [](nb::handle src, int code, nb::handle dst, PyQueue* queue) {
    bool nv12 = false;
    const ColorConversion conversion = color_code(code, nv12);
    return apply_image_op(src, dst, queue, "cvtColor", [=](Queue& qq, const DeviceImage& s, DeviceImage& d) {
      if (!nv12) return cvt_color(qq, s, d, conversion);
      const DeviceNv12Frame frame = nv12_planes(qq.context(), s);
      return cvt_color(qq, frame, d, conversion);
    });
  }, "src"_a.none(), "code"_a, "dst"_a.none() = nb::none(), q,
  "cv2.cvtColor for COLOR_{RGB,BGR,RGBA,BGRA}2GRAY and COLOR_YUV2{GRAY,RGB,BGR,RGBA,BGRA}_NV12 (NV12 as one (3H/2, W) uint8 array).");

  m.def("resize", [](nb::handle src, nb::handle dsize, double fx, double fy, int interpolation, nb::handle dst, PyQueue* queue) {
    Interpolation mode;
    if (interpolation == 1) mode = Interpolation::linear;
    else if (interpolation == 5) mode = Interpolation::linear_exact;
    else argument_error("resize", "interpolation", "plinth offers INTER_LINEAR (1) and INTER_LINEAR_EXACT (5), got " + std::to_string(interpolation));
    Size wanted{};
    if (!dsize.is_none()) wanted = size_arg(dsize, "resize", "dsize");
    if (wanted == Size{} && (fx <= 0 || fy <= 0)) argument_error("resize", "dsize", "give dsize, or fx and fy > 0");
    return apply_image_op(src, dst, queue, "resize", [=](Queue& qq, const DeviceImage& s, DeviceImage& d) {
      Size size = wanted;
      if (size == Size{}) {
        // cv2 then maps coordinates with 1/fx, not with the sizes' ratio; plinth maps with the sizes, so
        // only scales that equal that ratio exactly give cv2's result.
        size = Size{static_cast<int>(std::lrint(s.width() * fx)), static_cast<int>(std::lrint(s.height() * fy))};
        if (static_cast<double>(size.width) / s.width() != fx || static_cast<double>(size.height) / s.height() != fy)
          argument_error("resize", "fx", "plinth takes fx, fy only where they equal the size ratio exactly (as 0.5 of an even size); give dsize");
      }
      return resize(qq, s, d, size, mode);
    });
  }, "src"_a.none(), "dsize"_a.none(), "fx"_a = 0.0, "fy"_a = 0.0, "interpolation"_a = 1, "dst"_a.none() = nb::none(), q,
  "cv2.resize, bilinear (INTER_LINEAR, INTER_LINEAR_EXACT) on uint8 images; dsize (width, height) or None with fx, fy.");
}

}  // namespace plinth::python
