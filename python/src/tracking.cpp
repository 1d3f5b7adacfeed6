// Corners and pyramidal Lucas-Kanade with cv2's interfaces.
#include "common.hpp"

namespace plinth::python {

namespace {

constexpr int border_default = 4;

std::vector<Point2f> points_arg(nb::handle value, const char* op, const char* arg, std::vector<std::size_t>& shape) {
  const ArrayView v = array_view(value, op, arg, {Depth::f32}, 2, 3);
  if (v.shape.back() != 2 || (v.shape.size() == 3 && v.shape[1] != 1))
    argument_error(op, arg, "expected float32 points of shape (N, 1, 2) or (N, 2)");
  shape = v.shape;
  const auto* data = static_cast<const Point2f*>(v.data);
  return std::vector<Point2f>(data, data + v.shape[0]);
}

nb::object points_array(const std::vector<Point2f>& points, std::vector<std::size_t> shape) {
  std::vector<float> values;
  for (const Point2f& p : points) values.insert(values.end(), {p.x, p.y});
  shape[0] = points.size();
  return vector_to_numpy(std::move(values), shape);
}

}  // namespace

void register_tracking(nb::module_& m) {
  auto q = "queue"_a = nb::none();
  m.def("cornerMinEigenVal", [](nb::handle src, int block_size, int ksize, int border, nb::handle dst, PyQueue* queue) {
    const BorderMode mode = border_from_cv(border, "cornerMinEigenVal");
    return apply_image_op(src, dst, queue, "cornerMinEigenVal", [=](Queue& qq, const DeviceImage& s, DeviceImage& d) {
      return corner_min_eigen_val(qq, s, d, block_size, ksize, mode);
    });
  }, "src"_a.none(), "blockSize"_a, "ksize"_a = 3, "borderType"_a = border_default, "dst"_a.none() = nb::none(), q,
  "cv2.cornerMinEigenVal of a grey uint8 image: float32 responses, bit-identical.");
  m.def("cornerHarris", [](nb::handle src, int block_size, int ksize, double k, int border, nb::handle dst, PyQueue* queue) {
    const BorderMode mode = border_from_cv(border, "cornerHarris");
    return apply_image_op(src, dst, queue, "cornerHarris", [=](Queue& qq, const DeviceImage& s, DeviceImage& d) {
      return corner_harris(qq, s, d, block_size, ksize, k, mode);
    });
  }, "src"_a.none(), "blockSize"_a, "ksize"_a, "k"_a, "borderType"_a = border_default, "dst"_a.none() = nb::none(), q, "cv2.cornerHarris of a grey uint8 image.");

  m.def("goodFeaturesToTrack", [](nb::handle image, int max_corners, double quality_level, double min_distance, nb::handle mask,
                                  int block_size, bool use_harris, double k, int gradient_size, PyQueue* queue_arg) {
    GoodFeaturesParams p;
    p.max_corners = max_corners;
    p.quality_level = quality_level;
    p.min_distance = min_distance;
    p.block_size = block_size;
    p.gradient_size = gradient_size;
    p.use_harris_detector = use_harris;
    p.k = k;
    PyQueue& qq = queue_or_default(queue_arg);
    const DeviceImage src = device_image(image, qq, "goodFeaturesToTrack", "image");
    std::optional<DeviceImage> device_mask;
    if (!mask.is_none()) device_mask = device_image(mask, qq, "goodFeaturesToTrack", "mask");
    auto corners = without_gil(qq, [&] { return good_features_to_track(qq.queue, src, p, device_mask ? &*device_mask : nullptr); });
    return points_array(corners, {0, 1, 2});
  }, "image"_a.none(), "maxCorners"_a, "qualityLevel"_a, "minDistance"_a, "mask"_a.none() = nb::none(), "blockSize"_a = 3,
  "useHarrisDetector"_a = false, "k"_a = 0.04, "gradientSize"_a = 3, q,
  "cv2.goodFeaturesToTrack: an (N, 1, 2) float32 array in OpenCV's order.");

  m.def("buildOpticalFlowPyramid", [](nb::handle img, nb::handle win_size, int max_level, bool with_derivatives, PyQueue* queue_arg) {
    PyQueue& qq = queue_or_default(queue_arg);
    const DeviceImage src = device_image(img, qq, "buildOpticalFlowPyramid", "img");
    const Size win = size_arg(win_size, "buildOpticalFlowPyramid", "winSize");
    auto [levels, host] = without_gil(qq, [&] {
      OpticalFlowPyramid pyramid;
      const int l = build_optical_flow_pyramid(qq.queue, src, pyramid, win, max_level, with_derivatives);
      std::vector<HostImage> images;
      for (int i = 0; i <= l; ++i) {
        images.push_back(qq.queue.download(pyramid.levels[i]));
        if (with_derivatives) images.push_back(qq.queue.download(pyramid.derivatives[i]));
      }
      return std::pair{l, images};
    });
    nb::list out;
    for (const HostImage& h : host) out.append(to_numpy(h));
    return nb::make_tuple(levels, out);
  }, "img"_a.none(), "winSize"_a, "maxLevel"_a, "withDerivatives"_a = true, q,
  "cv2.buildOpticalFlowPyramid of a grey uint8 image: (maxLevel, [level0, derivatives0, level1, ...]); "
  "derivatives are (h, w, 2) int16 Scharr (Ix, Iy).");

  m.def("calcOpticalFlowPyrLK", [](nb::handle prev_img, nb::handle next_img, nb::handle prev_pts, nb::handle next_pts, nb::handle win_size,
                                   int max_level, nb::handle criteria, int flags, double min_eig_threshold, PyQueue* queue_arg) {
    PyrLkParams p;
    p.win_size = size_arg(win_size, "calcOpticalFlowPyrLK", "winSize");
    p.max_level = max_level;
    try {
      auto [type, count, eps] = nb::cast<std::tuple<int, int, double>>(criteria);
      p.criteria = TermCriteria{type, count, eps};
    } catch (const nb::cast_error&) {
      type_error("calcOpticalFlowPyrLK", "criteria", "expected (type, maxCount, epsilon)");
    }
    p.flags = flags;
    p.min_eig_threshold = min_eig_threshold;
    std::vector<std::size_t> shape;
    const std::vector<Point2f> prev = points_arg(prev_pts, "calcOpticalFlowPyrLK", "prevPts", shape);
    std::vector<Point2f> next;
    if (!next_pts.is_none()) {
      std::vector<std::size_t> next_shape;
      next = points_arg(next_pts, "calcOpticalFlowPyrLK", "nextPts", next_shape);
      if (next.size() != prev.size()) argument_error("calcOpticalFlowPyrLK", "nextPts", "has a different count of points than prevPts");
    }
    PyQueue& qq = queue_or_default(queue_arg);
    const DeviceImage a = device_image(prev_img, qq, "calcOpticalFlowPyrLK", "prevImg");
    const DeviceImage b = device_image(next_img, qq, "calcOpticalFlowPyrLK", "nextImg");
    std::vector<std::uint8_t> status;
    std::vector<float> err;
    without_gil(qq, [&] {
      calc_optical_flow_pyr_lk(qq.queue, a, b, prev, next, status, err, p);
      return 0;
    });
    const std::size_t n = prev.size();
    return nb::make_tuple(points_array(next, shape), vector_to_numpy(std::move(status), {n, 1}), vector_to_numpy(std::move(err), {n, 1}));
  }, "prevImg"_a.none(), "nextImg"_a.none(), "prevPts"_a, "nextPts"_a.none() = nb::none(), "winSize"_a = nb::make_tuple(21, 21), "maxLevel"_a = 3,
  "criteria"_a = nb::make_tuple(3, 30, 0.01), "flags"_a = 0, "minEigThreshold"_a = 1e-4, q,
  "cv2.calcOpticalFlowPyrLK on grey uint8 images: (nextPts, status (N, 1) uint8, err (N, 1) float32), bit-identical with OpenCV's CPU path.");
}

}  // namespace plinth::python
