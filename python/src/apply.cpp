// Running an operation on NumPy arrays (synchronously: upload, enqueue, download) or on
// DeviceImages (asynchronously: enqueue, return DeviceImages carrying the event), and the
// translation of cv2's argument conventions.
#include "common.hpp"

#include <cmath>

namespace plinth::python {

namespace {

nb::object wrap_outputs(std::vector<nb::object> outputs) {
  if (outputs.size() == 1) return outputs[0];
  nb::list list;
  for (auto& o : outputs) list.append(o);
  return nb::tuple(list);
}

}  // namespace

nb::object apply_multi(std::span<const nb::handle> srcs, PyQueue* queue_arg, const char* op, std::size_t outputs,
                       const MultiOp& run, nb::handle dst) {
  PyQueue& q = queue_or_default(queue_arg);
  static const char* names[] = {"src1", "src2", "src3"};
  const bool on_device = nb::isinstance<PyDeviceImage>(srcs[0]);
  std::vector<DeviceImage> device_srcs;
  std::vector<HostImage> host_srcs;
  for (std::size_t i = 0; i < srcs.size(); ++i) {
    const char* arg = srcs.size() == 1 ? "src" : names[i];
    if (nb::isinstance<PyDeviceImage>(srcs[i]) != on_device)
      type_error(op, arg, "pass NumPy arrays or DeviceImages, not both");
    if (on_device) device_srcs.push_back(nb::cast<PyDeviceImage&>(srcs[i]).image);
    else host_srcs.push_back(host_view(srcs[i], op, arg));
  }
  std::vector<DeviceImage> outs(outputs);
  std::vector<nb::object> results;
  const bool given = dst.is_valid() && !dst.is_none();
  if (given && on_device != nb::isinstance<PyDeviceImage>(dst))
    type_error(op, "dst", on_device ? "expected a DeviceImage for device sources" : "expected a NumPy array for NumPy sources");
  if (on_device) {
    if (given) outs[0] = nb::cast<PyDeviceImage&>(dst).image;  // the op writes into it (or says why not)
    const Event event = without_gil(q, [&] { return run(q.queue, device_srcs, outs); });
    if (given) {
      nb::cast<PyDeviceImage&>(dst).event = event;
      return nb::borrow(dst);
    }
    for (auto& o : outs) results.push_back(nb::cast(PyDeviceImage{o, event, q.queue.context(), {}}));
  } else {
    const HostImage into = given ? host_view(dst, op, "dst", true) : HostImage();
    std::vector<HostImage> host_outs = without_gil(q, [&] {
      for (const HostImage& h : host_srcs) device_srcs.push_back(q.queue.upload(h));
      run(q.queue, device_srcs, outs);
      std::vector<HostImage> downloaded;
      if (given) {
        if (outs[0].size() != into.size() || outs[0].format() != into.format())
          argument_error(op, "dst", "the array's shape or dtype differs from the result's");
        q.queue.download(outs[0], into).wait();
        return downloaded;
      }
      for (const DeviceImage& o : outs) downloaded.push_back(q.queue.download(o));
      return downloaded;
    });
    if (given) return nb::borrow(dst);
    for (const HostImage& h : host_outs) results.push_back(to_numpy(h));
  }
  return wrap_outputs(std::move(results));
}

nb::object apply_image_op(nb::handle src, nb::handle dst, PyQueue* queue, const char* op, const ImageOp& run) {
  const nb::handle srcs[] = {src};
  return apply_multi(srcs, queue, op, 1, [&](Queue& q, std::span<const DeviceImage> in, std::vector<DeviceImage>& out) {
    return run(q, in[0], out[0]);
  }, dst);
}

nb::object apply_image_op2(nb::handle a, nb::handle b, nb::handle dst, PyQueue* queue, const char* op, const ImageOp2& run) {
  const nb::handle srcs[] = {a, b};
  return apply_multi(srcs, queue, op, 1, [&](Queue& q, std::span<const DeviceImage> in, std::vector<DeviceImage>& out) {
    return run(q, in[0], in[1], out[0]);
  }, dst);
}

DeviceImage device_image(nb::handle src, PyQueue& queue, const char* op, const char* arg) {
  if (nb::isinstance<PyDeviceImage>(src)) return nb::cast<PyDeviceImage&>(src).image;
  const HostImage host = host_view(src, op, arg);
  return without_gil(queue, [&] { return queue.queue.upload(host); });
}

std::optional<Depth> parse_depth_arg(nb::handle value, const char* op, const char* arg) {
  if (value.is_none()) return std::nullopt;
  if (nb::isinstance<nb::int_>(value)) {
    static const Depth cv_depths[] = {Depth::u8, Depth::s8, Depth::u16, Depth::s16, Depth::s32, Depth::f32, Depth::f64};
    int code = 0;
    if (!nb::try_cast(value, code)) argument_error(op, arg, "not a cv2 depth code (CV_8U=0 .. CV_64F=6, -1 for the default)");
    if (code == -1) return std::nullopt;
    if (code < 0 || code > 6) argument_error(op, arg, "not a cv2 depth code (CV_8U=0 .. CV_64F=6, -1 for the default): " + std::to_string(code));
    return cv_depths[code];
  }
  std::string name;
  if (nb::isinstance<nb::str>(value)) name = nb::cast<std::string>(value);
  if (name.size() > 3 || name.empty()) {  // a NumPy dtype, type or name ("uint8", numpy.float32)
    nb::object dtype;
    try {
      dtype = nb::module_::import_("numpy").attr("dtype")(value);
    } catch (nb::python_error&) {
      type_error(op, arg, "not a depth: expected a cv2 depth code, a name such as 'u8' or 'f32', or a NumPy dtype");
    }
    static const std::pair<const char*, const char*> names[] = {
        {"uint8", "u8"}, {"int8", "s8"}, {"uint16", "u16"}, {"int16", "s16"}, {"uint32", "u32"},
        {"int32", "s32"}, {"uint64", "u64"}, {"int64", "s64"}, {"float32", "f32"}, {"float64", "f64"}};
    const std::string numpy_name = nb::cast<std::string>(dtype.attr("name"));
    name.clear();
    for (const auto& [numpy, plinth] : names)
      if (numpy_name == numpy) name = plinth;
    if (name.empty()) type_error(op, arg, "dtype " + numpy_name + " is not a plinth depth");
  }
  return parse_depth(name);
}

BorderMode border_from_cv(int code, const char* op) {
  switch (code & ~16) {  // BORDER_ISOLATED (16): plinth never reads outside a view anyway
    case 0: return BorderMode::constant;
    case 1: return BorderMode::replicate;
    case 2: return BorderMode::reflect;
    case 3: return BorderMode::wrap;
    case 4: return BorderMode::reflect_101;
  }
  argument_error(op, "borderType", "not a border plinth offers (BORDER_CONSTANT, _REPLICATE, _REFLECT, _WRAP, _REFLECT_101): " + std::to_string(code));
}

Size size_arg(nb::handle value, const char* op, const char* arg) {
  try {
    auto pair = nb::cast<std::pair<int, int>>(value);
    return Size{pair.first, pair.second};
  } catch (const nb::cast_error&) {
    type_error(op, arg, "expected (width, height), got " + std::string(nb::type_name(value.type()).c_str()));
  }
}

std::vector<float> float_values(nb::handle value, const char* op, const char* arg, std::vector<std::size_t>* shape) {
  nb::object array;
  try {
    array = nb::module_::import_("numpy").attr("ascontiguousarray")(value, "dtype"_a = "float32");
  } catch (nb::python_error&) {
    type_error(op, arg, "expected numbers (a list or an array)");
  }
  const ArrayView view = array_view(array, op, arg, {Depth::f32}, 1, 2);
  if (shape) *shape = view.shape;
  const float* data = static_cast<const float*>(view.data);
  return std::vector<float>(data, data + view.size);
}

}  // namespace plinth::python
