// Cascade detection with cv2.CascadeClassifier's interface.
#include "common.hpp"

namespace plinth::python {

namespace {

DetectOptions detect_options(double scale_factor, int min_neighbors, nb::handle min_size, nb::handle max_size) {
  DetectOptions o;
  o.scale_factor = scale_factor;
  o.min_neighbors = min_neighbors;
  o.min_size = size_arg(min_size, "detectMultiScale", "minSize");
  o.max_size = size_arg(max_size, "detectMultiScale", "maxSize");
  return o;
}

// Rectangles as cv2 gives them: an (N, 4) int32 array of x, y, width, height (N may be 0).
nb::object rects_array(const std::vector<Detection>& found) {
  std::vector<std::int32_t> values;
  for (const Detection& d : found) values.insert(values.end(), {d.rect.x, d.rect.y, d.rect.width, d.rect.height});
  return vector_to_numpy(std::move(values), {found.size(), 4});
}

nb::object neighbors_array(const std::vector<Detection>& found) {
  std::vector<std::int32_t> values;
  for (const Detection& d : found) values.push_back(d.neighbors);
  return vector_to_numpy(std::move(values), {found.size()});
}

std::vector<std::vector<Detection>> detect_all(const Cascade& cascade, const std::vector<nb::handle>& images, PyQueue* queue_arg,
                                                const DetectOptions& options) {
  PyQueue& q = queue_or_default(queue_arg);
  std::vector<DeviceImage> device;
  std::vector<HostImage> host;
  for (nb::handle image : images) {
    if (nb::isinstance<PyDeviceImage>(image)) device.push_back(nb::cast<PyDeviceImage&>(image).image);
    else host.push_back(host_view(image, "detectMultiScale", "image"));
  }
  return without_gil(q, [&] {
    for (const HostImage& h : host) device.push_back(q.queue.upload(h));
    DetectionBatch batch;
    detect_multi_scale(q.queue, cascade, device, batch, options);
    return batch.results();
  });
}

}  // namespace

void register_detect(nb::module_& m) {
  nb::class_<Cascade>(m, "CascadeClassifier", "A Viola-Jones cascade from OpenCV's XML (Haar, LBP, the old format).")
      .def("__init__", [](Cascade* self, std::string filename) { new (self) Cascade(Cascade::load(find_cascade(filename))); },
           "filename"_a, "Loads a cascade file, or a name from opencv-data ('frontalface_alt2', 'haarcascade_eye', ...).")
      .def("empty", &Cascade::empty)
      .def_prop_ro("window_size", [](const Cascade& c) { return nb::make_tuple(c.window_size().width, c.window_size().height); })
      .def_prop_ro("feature_type", [](const Cascade& c) { return c.feature_type() == CascadeFeatureType::haar ? "haar" : "lbp"; })
      .def("detectMultiScale", [](const Cascade& c, nb::handle image, double scale_factor, int min_neighbors, int, nb::handle min_size,
                                  nb::handle max_size, PyQueue* queue) {
        return rects_array(detect_all(c, {image}, queue, detect_options(scale_factor, min_neighbors, min_size, max_size))[0]);
      }, "image"_a.none(), "scaleFactor"_a = 1.1, "minNeighbors"_a = 3, "flags"_a = 0, "minSize"_a = nb::make_tuple(0, 0),
      "maxSize"_a = nb::make_tuple(0, 0), "queue"_a = nb::none(),
      "cv2.CascadeClassifier.detectMultiScale on a grey uint8 image (NumPy or DeviceImage): an (N, 4) int32 "
      "array of x, y, width, height. flags is ignored, as OpenCV ignores it for current cascades.")
      .def("detectMultiScale2", [](const Cascade& c, nb::handle image, double scale_factor, int min_neighbors, int, nb::handle min_size,
                                   nb::handle max_size, PyQueue* queue) {
        auto found = detect_all(c, {image}, queue, detect_options(scale_factor, min_neighbors, min_size, max_size))[0];
        return nb::make_tuple(rects_array(found), neighbors_array(found));
      }, "image"_a.none(), "scaleFactor"_a = 1.1, "minNeighbors"_a = 3, "flags"_a = 0, "minSize"_a = nb::make_tuple(0, 0),
      "maxSize"_a = nb::make_tuple(0, 0), "queue"_a = nb::none(), "As detectMultiScale, with numDetections: (rects, neighbors).")
      .def("detectMultiScaleBatch", [](const Cascade& c, nb::list images, double scale_factor, int min_neighbors, nb::handle min_size,
                                       nb::handle max_size, PyQueue* queue) {
        std::vector<nb::handle> handles(images.begin(), images.end());
        if (handles.empty()) return nb::list();
        nb::list out;
        for (const auto& found : detect_all(c, handles, queue, detect_options(scale_factor, min_neighbors, min_size, max_size)))
          out.append(rects_array(found));
        return out;
      }, "images"_a, "scaleFactor"_a = 1.1, "minNeighbors"_a = 3, "minSize"_a = nb::make_tuple(0, 0), "maxSize"_a = nb::make_tuple(0, 0),
      "queue"_a = nb::none(), "detectMultiScale over a list of grey images (sizes may differ) in one device pass: a list of (N, 4) arrays.");

  m.def("find_cascade", [](std::string name) { return find_cascade(name); }, "name"_a,
        "The path of a cascade: an existing file as it is, else a name ('frontalface_alt2', 'haarcascade_eye.xml', "
        "...) looked up in PLINTH_CASCADE_DIR, then opencv-data's directories.");

  m.def("groupRectangles", [](nb::handle rects, int group_threshold, double eps) {
    const ArrayView v = array_view(rects, "groupRectangles", "rectList", {Depth::s32}, 2, 2);
    if (v.shape[1] != 4) argument_error("groupRectangles", "rectList", "expected an (N, 4) array");
    const auto* data = static_cast<const std::int32_t*>(v.data);
    std::vector<Rect> list;
    for (std::size_t i = 0; i < v.shape[0]; ++i) list.push_back(Rect{data[4 * i], data[4 * i + 1], data[4 * i + 2], data[4 * i + 3]});
    auto found = group_rectangles(list, group_threshold, eps);
    return nb::make_tuple(rects_array(found), neighbors_array(found));
  }, "rectList"_a, "groupThreshold"_a, "eps"_a = 0.2, "cv2.groupRectangles on an (N, 4) int32 array: (rects, weights).");
}

}  // namespace plinth::python
