// Devices, contexts, queues, events, device images and host image views.
#include "common.hpp"

namespace plinth::python {

using namespace nb::literals;

namespace {

PyQueue* default_queue = nullptr;  // made on first use; deliberately never destroyed (interpreter exit)

nb::dict device_dict(const DeviceInfo& d) {
  nb::dict info;
  info["backend"] = d.backend;
  info["index"] = d.index;
  info["name"] = d.name;
  info["vendor"] = d.vendor;
  info["platform"] = d.platform;
  info["type"] = std::string(to_string(d.type));
  info["compute_units"] = d.compute_units;
  info["global_memory"] = d.global_memory;
  info["has_fp64"] = d.has_fp64;
  return info;
}

Depth dtype_depth(nb::handle dtype) {
  const auto depth = parse_depth_arg(dtype, "DeviceImage", "dtype");
  if (!depth) argument_error("DeviceImage", "dtype", "a dtype is required");
  return *depth;
}

// The CUDA array interface (version 3) of numba.readthedocs.io/en/stable/cuda/cuda_array_interface.html.
// Untested where this was written (no CUDA device): checked by the lead's GPU run only.
const char* typestr(Depth depth) {
  static const char* names[] = {"|u1", "|i1", "<u2", "<i2", "<u4", "<i4", "<u8", "<i8", "<f4", "<f8"};
  return names[static_cast<int>(depth)];
}

nb::dict cuda_array_interface(const PyDeviceImage& d) {
  if (!d.context || d.context->device().backend != "cuda")
    throw nb::attribute_error("__cuda_array_interface__: only images on a CUDA device (plinth.Context('cuda')) have it");
  if (d.event.valid()) {
    nb::gil_scoped_release release;
    d.event.wait();  // "stream" is left out: the data is ready
  }
  const DeviceImage& i = d.image;
  const std::size_t element = depth_size(i.depth());
  nb::dict cai;
  cai["version"] = 3;
  cai["typestr"] = typestr(i.depth());
  cai["data"] = nb::make_tuple(reinterpret_cast<std::uintptr_t>(i.native()) + i.offset(), false);
  cai["shape"] = i.channels() == 1 ? nb::make_tuple(i.height(), i.width()) : nb::make_tuple(i.height(), i.width(), i.channels());
  cai["strides"] = i.channels() == 1 ? nb::make_tuple(i.pitch(), element)
                                     : nb::make_tuple(i.pitch(), element * i.channels(), element);
  return cai;
}

PyDeviceImage from_cuda_array(nb::object array, std::optional<Context> context) {
  const char* op = "DeviceImage.from_cuda_array";
  const Context c = context ? *context : default_context();
  if (c.device().backend != "cuda") type_error(op, "context", "needs a CUDA context (plinth.Context('cuda')); this one is " + c.device().backend);
  if (!nb::hasattr(array, "__cuda_array_interface__")) type_error(op, "array", "has no __cuda_array_interface__");
  nb::dict cai = nb::cast<nb::dict>(array.attr("__cuda_array_interface__"));
  const std::string type = nb::cast<std::string>(cai["typestr"]);
  std::optional<Depth> depth;
  for (int k = 0; k <= static_cast<int>(Depth::f64); ++k)
    if (type.substr(1) == std::string(typestr(static_cast<Depth>(k))).substr(1)) depth = static_cast<Depth>(k);
  if (!depth || (type[0] == '>')) type_error(op, "array", "typestr " + type + " is not a plinth depth");
  const auto shape = nb::cast<std::vector<std::int64_t>>(cai["shape"]);
  if (shape.size() != 2 && shape.size() != 3) argument_error(op, "array", "expected shape (h, w) or (h, w, c)");
  const std::int64_t channels = shape.size() == 3 ? shape[2] : 1;
  const auto element = static_cast<std::int64_t>(depth_size(*depth));
  std::int64_t pitch = shape[1] * channels * element;
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    const auto strides = nb::cast<std::vector<std::int64_t>>(cai["strides"]);
    if ((shape.size() == 3 && strides[2] != element) || strides[1] != channels * element || strides[0] < pitch)
      argument_error(op, "array", "its pixels are not contiguous within rows");
    pitch = strides[0];
  }
  const auto data = nb::cast<std::pair<std::uintptr_t, bool>>(cai["data"]);
  DeviceImage image = DeviceImage::wrap(c, reinterpret_cast<void*>(data.first), static_cast<int>(shape[1]),
                                        static_cast<int>(shape[0]), Format{*depth, static_cast<int>(channels)},
                                        static_cast<std::size_t>(pitch));
  return PyDeviceImage{image, {}, c, array};
}

}  // namespace

PyQueue::~PyQueue() {
  try {
    queue.finish();  // host memory of transfers in flight is released only after they complete
  } catch (...) {
  }
}

PyQueue& queue_or_default(PyQueue* queue) {
  if (queue) return *queue;
  if (!default_queue) default_queue = new PyQueue(Context());
  return *default_queue;
}

Context default_context() { return queue_or_default(nullptr).queue.context(); }

void register_core(nb::module_& m) {
  m.def("list_devices", [] {
    nb::list out;
    for (const DeviceInfo& d : list_devices()) out.append(device_dict(d));
    return out;
  }, "Every device plinth can use (CUDA, then OpenCL), as dicts: backend, index, name, vendor, platform, type, ...");

  nb::class_<Context>(m, "Context", "A device opened for plinth's work. Copies share the device.")
      .def(nb::init<std::string_view>(), "device"_a = "",
           "Opens the device chosen by `device` ('gpu', 'cpu', 'cuda', 'opencl:1', a name, ...); empty: "
           "PLINTH_DEVICE, else the first GPU, else the CPU.")
      .def_prop_ro("device", [](const Context& c) { return device_dict(c.device()); }, "The device, as a dict.")
      .def("__repr__", [](const Context& c) { return "<plinth.Context " + c.device().backend + ":" + std::to_string(c.device().index) + " " + c.device().name + ">"; });

  m.def("set_device", [](std::string_view selector) {
    // The previous default queue is left alive (never freed): calls running on it in other threads, and
    // references from default_queue(), stay valid.
    default_queue = new PyQueue(Context(selector));
    return default_queue->queue.context();
  }, "device"_a, "Makes a new default queue on the device chosen by `device`; returns its Context.");
  m.def("default_queue", [] { return &queue_or_default(nullptr); }, nb::rv_policy::reference,
        "The queue the operations use when none is given.");

  nb::class_<PyEvent>(m, "Event", "The completion and device timing of enqueued work.")
      .def("wait", [](PyEvent& e) {
        if (e.event.valid()) {
          nb::gil_scoped_release release;
          e.event.wait();
        }
        e.keep_alive = nb::none();
      }, "Blocks (the GIL released) until the work is done.")
      .def_prop_ro("valid", [](const PyEvent& e) { return e.event.valid(); })
      .def_prop_ro("elapsed_us", [](const PyEvent& e) { nb::gil_scoped_release r; return e.event.elapsed_us(); },
                   "Device time from the first launch's start to the last one's end (waits; the queue's timing must be on).")
      .def_prop_ro("start_ns", [](const PyEvent& e) { nb::gil_scoped_release r; return e.event.start_ns(); })
      .def_prop_ro("end_ns", [](const PyEvent& e) { nb::gil_scoped_release r; return e.event.end_ns(); });

  nb::class_<PyQueue>(m, "Queue", "An in-order command queue. Work on one queue runs in submission order.")
      .def("__init__", [](PyQueue* self, std::optional<Context> context, bool timing) {
        new (self) PyQueue(context ? *context : default_context());
        self->queue.set_timing(timing);
      }, "context"_a = nb::none(), "timing"_a = false,
      "A new queue on `context` (default: the default queue's context). timing=True records device timestamps "
      "(Event.elapsed_us), at some host cost per call.")
      .def_prop_ro("context", [](PyQueue& q) { return q.queue.context(); })
      .def_prop_rw("timing", [](PyQueue& q) { return q.queue.timing(); }, [](PyQueue& q, bool on) { q.queue.set_timing(on); },
                   "Whether commands record device timestamps (off by default; Event.elapsed_us needs it).")
      .def("finish", [](PyQueue& q) {
        without_gil(q, [&] { q.queue.finish(); return 0; });
        q.in_flight.clear();
      }, "Waits (the GIL released) for everything enqueued so far.")
      .def("upload", [](PyQueue& q, nb::handle array, bool blocking) {
        const HostImage host = host_view(array, "upload", "src");
        PyDeviceImage out{DeviceImage(q.queue.context(), host.width(), host.height(), host.format()), {}, q.queue.context(), {}};
        out.event = without_gil(q, [&] {
          Event e = q.queue.upload(host, out.image);
          if (blocking) e.wait();
          return e;
        });
        if (!blocking) q.in_flight.push_back(nb::borrow(array));
        return out;
      }, "array"_a, "blocking"_a = true,
      "Copies a NumPy image to a new DeviceImage. With blocking=False the copy is only enqueued: the array "
      "must not change until the DeviceImage's event (or finish()) completes; the queue keeps it alive.")
      .def("download", [](PyQueue& q, const PyDeviceImage& src, nb::object out, bool blocking) -> nb::object {
        HostImage host;
        if (out.is_none()) {
          host = HostImage(src.image.width(), src.image.height(), src.image.format());
          out = to_numpy(host);
        } else {
          host = host_view(out, "download", "out", true);
          if (host.size() != src.image.size() || host.format() != src.image.format())
            argument_error("download", "out", "the array's shape or dtype differs from the device image's");
        }
        Event e = without_gil(q, [&] {
          Event done = q.queue.download(src.image, host);
          if (blocking) done.wait();
          return done;
        });
        if (blocking) return out;
        q.in_flight.push_back(out);
        return nb::make_tuple(out, PyEvent{e, out});
      }, "image"_a.none(), "out"_a = nb::none(), "blocking"_a = true,
      "Copies a DeviceImage into a new NumPy array (or into `out`, same shape and dtype, without a copy "
      "of the array). With blocking=False returns (array, Event): read the array after the event.");

  nb::class_<PyDeviceImage>(m, "DeviceImage", "An image in device memory (rows padded to a pitch).")
      .def("__init__", [](PyDeviceImage* self, int width, int height, nb::handle dtype, int channels, std::optional<Context> context) {
        const Context c = context ? *context : default_context();
        new (self) PyDeviceImage{DeviceImage(c, width, height, Format{dtype_depth(dtype), channels}), {}, c, {}};
      }, "width"_a, "height"_a, "dtype"_a = "u8", "channels"_a = 1, "context"_a = nb::none(),
      "Allocates an image (contents undefined).")
      .def_prop_ro("width", [](const PyDeviceImage& d) { return d.image.width(); })
      .def_prop_ro("height", [](const PyDeviceImage& d) { return d.image.height(); })
      .def_prop_ro("channels", [](const PyDeviceImage& d) { return d.image.channels(); })
      .def_prop_ro("pitch", [](const PyDeviceImage& d) { return d.image.pitch(); }, "Bytes from one row to the next.")
      .def_prop_ro("dtype", [](const PyDeviceImage& d) { return numpy_dtype(d.image.depth()); })
      .def_prop_ro("shape", [](const PyDeviceImage& d) {
        return d.image.channels() == 1 ? nb::make_tuple(d.image.height(), d.image.width())
                                       : nb::make_tuple(d.image.height(), d.image.width(), d.image.channels());
      }, "(height, width) or (height, width, channels), as the NumPy array it downloads to.")
      .def_prop_ro("event", [](const PyDeviceImage& d) { return PyEvent{d.event, nb::none()}; },
                   "The event of the operation that produced this image.")
      .def("download", [](const PyDeviceImage& d, PyQueue* queue) {
        PyQueue& q = queue_or_default(queue);
        HostImage host = without_gil(q, [&] { return q.queue.download(d.image); });
        return to_numpy(host);
      }, "queue"_a = nb::none(), "A NumPy copy of the image (waits).")
      .def_prop_ro("__cuda_array_interface__", &cuda_array_interface,
                   "On a CUDA device: the image for CuPy, PyTorch and Numba without a copy (waits for its event "
                   "first). Absent on OpenCL devices.")
      .def("__dlpack__", &device_image_dlpack, nb::kw_only(), "stream"_a.none() = nb::none(), "max_version"_a.none() = nb::none(),
           "dl_device"_a.none() = nb::none(), "copy"_a.none() = nb::none(),
           "DLPack export on a CUDA device (torch.from_dlpack, cupy.from_dlpack; no copy). Unless stream is -1 it "
           "first waits for the work that produced the image; BufferError on OpenCL devices.")
      .def("__dlpack_device__", &device_image_dlpack_device, "(2, CUDA ordinal) on CUDA, (4, index) on OpenCL (kDLOpenCL; no export).")
      .def_static("from_cuda_array", &from_cuda_array, "array"_a, "context"_a = nb::none(),
                  "Adopts a CUDA array (anything with __cuda_array_interface__: CuPy, PyTorch, Numba) of shape "
                  "(h, w) or (h, w, c) without a copy, on a CUDA context (default: the default queue's); the "
                  "array is kept alive. Its producer's work must be complete (e.g. torch.cuda.synchronize()).")
      .def("__repr__", [](const PyDeviceImage& d) {
        return "<plinth.DeviceImage " + std::to_string(d.image.width()) + "x" + std::to_string(d.image.height()) + " " +
               std::string(to_string(d.image.depth())) + "C" + std::to_string(d.image.channels()) + ">";
      });

  m.def("from_dlpack", &from_dlpack, "x"_a, "queue"_a = nb::none(),
        "Adopts any DLPack array (NumPy, PyTorch, CuPy, JAX, plinth) of shape (h, w) or (h, w, c) without a copy: "
        "CPU memory becomes a HostImage, CUDA memory a DeviceImage (only on a CUDA queue: `queue`, default the "
        "default queue, whose stream the producer's pending work is ordered before). The array is kept alive.");

  m.def("page_locked", [](int width, int height, nb::handle dtype, int channels, std::optional<Context> context) {
        const Context c = context ? *context : default_context();
        return to_numpy(HostImage::page_locked(c, width, height, Format{dtype_depth(dtype), channels}));
      }, "width"_a, "height"_a, "dtype"_a = "u8", "channels"_a = 1, "context"_a = nb::none(),
      "A NumPy array of shape (height, width) or (height, width, channels) in page-locked (pinned) host memory "
      "on a CUDA context (default: the default queue's), plain memory on OpenCL; rows padded to 64 bytes, "
      "contents undefined. Uploads from it (frames copied in with numpy.copyto) skip the driver's staging copy; "
      "allocating it is slow, so keep and reuse it.");

  nb::class_<PyHostImage>(m, "HostImage", "A plinth view of a NumPy image's memory, without a copy.")
      .def("__init__", [](PyHostImage* self, nb::object array) {
        HostImage view = host_view(array, "HostImage", "array");
        new (self) PyHostImage{array, view};
      }, "array"_a, "Views `array` (shape (h, w) or (h, w, c), contiguous rows); the array is kept alive.")
      .def_prop_ro("width", [](const PyHostImage& h) { return h.image.width(); })
      .def_prop_ro("height", [](const PyHostImage& h) { return h.image.height(); })
      .def_prop_ro("channels", [](const PyHostImage& h) { return h.image.channels(); })
      .def_prop_ro("pitch", [](const PyHostImage& h) { return h.image.pitch(); }, "Bytes between rows (the array's strides[0]).")
      .def_prop_ro("dtype", [](const PyHostImage& h) { return numpy_dtype(h.image.depth()); })
      .def_prop_ro("data_ptr", [](const PyHostImage& h) { return reinterpret_cast<std::uintptr_t>(h.image.data()); },
                   "Address of the first pixel (equals the array's ctypes.data).")
      .def("__dlpack__", &host_image_dlpack, nb::kw_only(), "stream"_a.none() = nb::none(), "max_version"_a.none() = nb::none(),
           "dl_device"_a.none() = nb::none(), "copy"_a.none() = nb::none(),
           "DLPack export of the host memory (numpy.from_dlpack, torch.from_dlpack; no copy). stream must be None.")
      .def("__dlpack_device__", [](const PyHostImage&) { return nb::make_tuple(1, 0); }, "(1, 0): CPU memory (kDLCPU).")
      .def("numpy", [](nb::handle self) {
        return to_numpy(nb::cast<PyHostImage&>(self).image, self);
      }, "A NumPy array over the same memory (no copy).");
}

}  // namespace plinth::python
