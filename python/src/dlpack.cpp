// DLPack, the Python array API standard's data interchange (data-apis.org/array-api, "Data
// interchange mechanisms"): HostImage and DeviceImage export __dlpack__ / __dlpack_device__, and
// plinth.from_dlpack(x) imports any producer's array without a copy (CPU memory as a HostImage,
// CUDA memory as a DeviceImage). nanobind makes and reads the capsules (its nb_ndarray's
// __dlpack__, the nb::ndarray caster); this file decides devices, streams and the image rules.
//
// Streams (CUDA): an exporting DeviceImage cannot enqueue a wait on the consumer's stream (plinth's
// Event has no public CUDA event), so for any stream other than -1 it waits on the host for the work
// that produced the image (its .event) before the capsule is made: the consumer's stream then finds
// the data complete. stream=-1 (the consumer's "no synchronisation") skips that wait. On import,
// plinth is the consumer: it passes its queue's CUstream (1, the legacy default stream, where that
// handle is 0) and the producer orders its pending work before that stream.
#include <cstdint>

#include "common.hpp"

namespace plinth::python {

namespace {

// DLDeviceType values of dlpack.h.
constexpr int dl_cpu = 1, dl_cuda = 2, dl_cuda_host = 3, dl_opencl = 4, dl_cuda_managed = 13;

std::string python_type_name(nb::handle value) { return nb::type_name(value.type()).c_str(); }

bool on_cuda(const PyDeviceImage& d) { return d.context && d.context->device().backend == "cuda"; }

// The capsule of `array`, an nb_ndarray (image_ndarray; were nanobind to export a bare capsule instead,
// that capsule). copy=True and other devices are refused with BufferError, as the protocol asks of a
// producer that cannot serve them.
nb::object capsule_of(nb::handle array, const char* op, std::pair<int, int> device, nb::handle max_version,
                      nb::handle dl_device, nb::handle copy) {
  if (!copy.is_none() && nb::cast<bool>(copy))
    throw nb::buffer_error((std::string(op) + ": copy=True is not offered (plinth exports its memory as it is)").c_str());
  if (!dl_device.is_none() &&
      (nb::cast<int>(nb::int_(dl_device[0])) != device.first || nb::cast<int>(nb::int_(dl_device[1])) != device.second))
    throw nb::buffer_error((std::string(op) + ": dl_device differs from the image's device " + std::to_string(device.first) +
                            ", " + std::to_string(device.second)).c_str());
  if (PyCapsule_CheckExact(array.ptr())) return nb::borrow(array);  // unversioned: allowed for any max_version
  if (max_version.is_none()) return array.attr("__dlpack__")();
  return array.attr("__dlpack__")("max_version"_a = max_version);
}

// The producer's array behind a capsule, kept alive by the returned object (a capsule owning it).
std::pair<nb::ndarray<nb::ro>, nb::object> import_capsule(nb::handle capsule, nb::handle x, const char* op) {
  nb::ndarray<nb::ro> array;
  if (!nb::try_cast(capsule, array, false))
    type_error(op, "x", "__dlpack__ of " + python_type_name(x) + " did not give a DLPack capsule nanobind can read");
  auto* kept = new nb::ndarray<nb::ro>(array);
  nb::capsule owner(kept, [](void* p) noexcept { delete static_cast<nb::ndarray<nb::ro>*>(p); });
  return {array, owner};
}

// A CPU producer's capsule. NumPy 2 exports read-only arrays only as versioned capsules (which can say
// so): the plain request is retried with max_version; the first error stands if that fails too.
nb::object cpu_capsule(nb::handle x) {
  try {
    return x.attr("__dlpack__")();
  } catch (nb::python_error& first) {
    if (!first.matches(PyExc_BufferError)) throw;
    try {
      return x.attr("__dlpack__")("max_version"_a = nb::make_tuple(1, 0));
    } catch (nb::python_error&) {
      throw first;
    }
  }
}

}  // namespace

nb::object host_image_dlpack(nb::handle self, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                             nb::handle copy) {
  if (!stream.is_none())
    argument_error("HostImage.__dlpack__", "stream", "a host image takes stream=None (DLPack's rule for CPU arrays)");
  const HostImage& h = nb::cast<PyHostImage&>(self).image;
  nb::object array = image_ndarray(const_cast<void*>(static_cast<const void*>(h.data())), h.width(), h.height(),
                                   h.format(), h.pitch(), self, dl_cpu, 0);
  return capsule_of(array, "HostImage.__dlpack__", {dl_cpu, 0}, max_version, dl_device, copy);
}

nb::object device_image_dlpack(nb::handle self, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                               nb::handle copy) {
  const char* op = "DeviceImage.__dlpack__";
  const PyDeviceImage& d = nb::cast<PyDeviceImage&>(self);
  if (!on_cuda(d))
    throw nb::buffer_error((std::string(op) + ": only images on a CUDA device (plinth.Context('cuda')) export DLPack; "
                            "this one is on " + (d.context ? d.context->device().backend : std::string("no device")) +
                            " (download it instead)").c_str());
  long long stream_value = 1;  // None: the legacy default stream
  if (!stream.is_none()) {
    if (!nb::isinstance<nb::int_>(stream)) type_error(op, "stream", "expected None or an integer (a CUDA stream), got " + python_type_name(stream));
    stream_value = nb::cast<long long>(stream);
    // 0, which the protocol forbids as ambiguous, is what older consumers (torch before 1.11) pass for
    // the default stream: taken as the legacy default stream, as it is treated the same here.
    if (stream_value < -1)
      argument_error(op, "stream", "values below -1 are not CUDA streams in DLPack (1: legacy default, 2: per-thread default, -1: no synchronisation)");
  }
  if (stream_value != -1 && d.event.valid()) {
    nb::gil_scoped_release release;
    d.event.wait();
  }
  const DeviceImage& i = d.image;
  if (i.pitch() % depth_size(i.depth()) != 0) throw nb::buffer_error((std::string(op) + ": the image's pitch is not a whole number of elements").c_str());
  void* data = static_cast<char*>(i.native()) + i.offset();
  const int ordinal = d.context->device().index;
  nb::object array = image_ndarray(data, i.width(), i.height(), i.format(), i.pitch(), self, dl_cuda, ordinal);
  return capsule_of(array, op, {dl_cuda, ordinal}, max_version, dl_device, copy);
}

nb::tuple device_image_dlpack_device(const PyDeviceImage& d) {
  if (!d.context) return nb::make_tuple(dl_opencl, 0);
  return nb::make_tuple(on_cuda(d) ? dl_cuda : dl_opencl, d.context->device().index);
}

nb::object from_dlpack(nb::handle x, PyQueue* queue_arg) {
  const char* op = "from_dlpack";
  if (!nb::hasattr(x, "__dlpack__") || !nb::hasattr(x, "__dlpack_device__"))
    type_error(op, "x", "expected an array with __dlpack__ and __dlpack_device__ (NumPy, PyTorch, CuPy, JAX, plinth), got " + python_type_name(x));
  nb::object device = x.attr("__dlpack_device__")();
  const int device_type = nb::cast<int>(nb::int_(device[0])), device_id = nb::cast<int>(nb::int_(device[1]));
  if (device_type == dl_cpu || device_type == dl_cuda_host) {
    auto [array, owner] = import_capsule(cpu_capsule(x), x, op);
    const ImageLayout l = image_layout(array, op, "x");
    return nb::cast(PyHostImage{owner, HostImage::wrap(l.data, l.width, l.height, l.format, l.pitch)});
  }
  if (device_type != dl_cuda && device_type != dl_cuda_managed)
    type_error(op, "x", "DLPack device type " + std::to_string(device_type) + " is not supported (CPU arrays become HostImages, CUDA arrays DeviceImages)");
  PyQueue& q = queue_or_default(queue_arg);
  const Context c = q.queue.context();
  if (c.device().backend != "cuda")
    type_error(op, "x", "a CUDA array needs a CUDA queue (plinth.set_device('cuda'), or queue= on plinth.Context('cuda')); this queue is on " + c.device().backend);
  if (device_id != c.device().index)
    argument_error(op, "x", "the array is on CUDA device " + std::to_string(device_id) + ", the queue on device " + std::to_string(c.device().index));
  // The consumer's stream: the producer orders its pending work before it (DLPack's stream rule).
  const auto stream = reinterpret_cast<std::uintptr_t>(q.queue.native());
  auto [array, owner] = import_capsule(x.attr("__dlpack__")("stream"_a = stream == 0 ? std::uintptr_t{1} : stream), x, op);
  const ImageLayout l = image_layout(array, op, "x");
  const DeviceImage image = DeviceImage::wrap(c, l.data, l.width, l.height, l.format, l.pitch);
  return nb::cast(PyDeviceImage{image, {}, c, owner});
}

}  // namespace plinth::python
