// SURF with cv2.xfeatures2d.SURF's interface, where plinth is built with it (PLINTH_HAS_SURF).
#include "common.hpp"

namespace plinth::python {

#ifdef PLINTH_HAS_SURF
namespace {

nb::object descriptors_array(SurfFeatures& f) {
  const std::size_t n = f.keypoints.size(), dim = static_cast<std::size_t>(f.descriptor_size);
  return vector_to_numpy(std::move(f.descriptors), {n, dim});
}

nb::list keypoint_list(const SurfFeatures& f) {
  nb::list out;
  for (const KeyPoint& k : f.keypoints) out.append(k);
  return out;
}

}  // namespace

void register_surf(nb::module_& m) {
  nb::class_<KeyPoint>(m, "KeyPoint", "A keypoint as cv2.KeyPoint: pt, size, angle, response, octave, class_id.")
      .def_prop_ro("pt", [](const KeyPoint& k) { return nb::make_tuple(k.x, k.y); })
      .def_rw("size", &KeyPoint::size)
      .def_rw("angle", &KeyPoint::angle)
      .def_rw("response", &KeyPoint::response)
      .def_rw("octave", &KeyPoint::octave)
      .def_rw("class_id", &KeyPoint::class_id)
      .def("__repr__", [](const KeyPoint& k) {
        return "<plinth.KeyPoint (" + std::to_string(k.x) + ", " + std::to_string(k.y) + ") size " + std::to_string(k.size) + ">";
      });

  nb::class_<SurfParams>(m, "SURF", "cv2.xfeatures2d.SURF on the device (docs/features.md, \"SURF\").")
      .def_static("create", [](double hessian_threshold, int n_octaves, int n_octave_layers, bool extended, bool upright) {
        SurfParams p{hessian_threshold, n_octaves, n_octave_layers, extended, upright};
        check_surf_params(p);
        return p;
      }, "hessianThreshold"_a = 100.0, "nOctaves"_a = 4, "nOctaveLayers"_a = 3, "extended"_a = false, "upright"_a = false,
      "cv2.xfeatures2d.SURF_create's parameters and defaults.")
      .def("descriptorSize", [](const SurfParams& p) { return p.extended ? 128 : 64; })
      .def("detectAndCompute", [](const SurfParams& p, nb::handle image, nb::handle mask, PyQueue* queue_arg) {
        if (!mask.is_none()) argument_error("SURF.detectAndCompute", "mask", "masks are not offered");
        PyQueue& qq = queue_or_default(queue_arg);
        const DeviceImage src = device_image(image, qq, "SURF.detectAndCompute", "image");
        SurfFeatures f = without_gil(qq, [&] { return surf(qq.queue, src, p); });
        nb::list points = keypoint_list(f);
        return nb::make_tuple(points, descriptors_array(f));
      }, "image"_a.none(), "mask"_a.none() = nb::none(), "queue"_a = nb::none(),
      "Keypoints (a list of KeyPoint in OpenCV's order) and descriptors ((N, 64 or 128) float32) of a grey uint8 image.")
      .def("detect", [](const SurfParams& p, nb::handle image, nb::handle mask, PyQueue* queue_arg) {
        if (!mask.is_none()) argument_error("SURF.detect", "mask", "masks are not offered");
        PyQueue& qq = queue_or_default(queue_arg);
        const DeviceImage src = device_image(image, qq, "SURF.detect", "image");
        return keypoint_list(without_gil(qq, [&] { return surf(qq.queue, src, p); }));
      }, "image"_a.none(), "mask"_a.none() = nb::none(), "queue"_a = nb::none(), "The keypoints alone.");
  m.attr("SURF_create") = m.attr("SURF").attr("create");

  // plinth's C++ CPU reference (tests compare the device with it; cv2 on Debian has no xfeatures2d).
  m.def("_surf_reference", [](const SurfParams& p, nb::handle image) {
    const HostImage host = host_view(image, "surf_reference", "image");
    SurfFeatures f = [&] {
      nb::gil_scoped_release release;
      return surf_reference(host, p);
    }();
    nb::list points = keypoint_list(f);
    return nb::make_tuple(points, descriptors_array(f));
  });
}
#else
void register_surf(nb::module_&) {}  // plinth built with PLINTH_WITH_SURF=OFF
#endif

}  // namespace plinth::python
