#pragma once
// Shared pieces of the Python module: the Python-side queue, device image and event objects, the
// NumPy <-> HostImage views and the cv2 constant translations. Each area registers its functions
// through one register_* function (module.cpp calls them).

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <plinth/plinth.hpp>

namespace plinth::python {

namespace nb = nanobind;
using namespace nb::literals;

// A plinth::Queue and the host objects its asynchronous transfers still read or write (kept alive
// until finish() or the transfer's Event.wait()). Calls made with the GIL released hold `lock`, so
// that Python threads sharing a queue take turns.
struct PyQueue {
  explicit PyQueue(const Context& context) : queue(context) {}
  ~PyQueue();
  Queue queue;
  std::mutex lock;
  std::vector<nb::object> in_flight;
};

// The completion of enqueued work, with what it keeps alive.
struct PyEvent {
  Event event;
  nb::object keep_alive;
};

// A device image, the event of the work that last wrote it, its context (for the CUDA array
// interface) and, for an image adopted from another library, that library's array (kept alive).
struct PyDeviceImage {
  DeviceImage image;
  Event event;
  std::optional<Context> context;
  nb::object owner;
};

// A host image seen from Python: the array it views (kept alive; a NumPy array, or for
// from_dlpack the producer's tensor) and the plinth view.
struct PyHostImage {
  nb::object array;
  HostImage image;
};

// The queue an operation runs on: the one given, else the module's default queue (made on first
// use on the default device, or by set_device).
PyQueue& queue_or_default(PyQueue* queue);
Context default_context();

// Runs `work` with the GIL released and the queue's lock held.
template <class F>
auto without_gil(PyQueue& queue, F&& work) {
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> guard(queue.lock);
  return work();
}

// ---- NumPy <-> images (numpy_images.cpp) ----
// A HostImage viewing a NumPy array's memory (no copy): shape (h, w) or (h, w, c) with c 1-4,
// elements and channels contiguous, rows `strides[0]` bytes apart. Anything else is an Error:
// unsupported_type (TypeError) for a wrong type or dtype, invalid_argument (ValueError) for the
// shape or strides. `writable` also refuses read-only arrays.
HostImage host_view(nb::handle array, const char* op, const char* arg, bool writable = false);
// The geometry of an image array of any DLPack producer (same rules and messages as host_view).
struct ImageLayout {
  void* data = nullptr;
  int width = 0, height = 0;
  Format format;
  std::size_t pitch = 0;
};
ImageLayout image_layout(const nb::ndarray<nb::ro>& array, const char* op, const char* arg);
// A nanobind.nb_ndarray over image memory on a DLPack device (1 CPU, 2 CUDA), kept alive by `owner`:
// what the images' __dlpack__ exports through (its own __dlpack__ makes the capsule).
nb::object image_ndarray(void* data, int width, int height, Format format, std::size_t pitch, nb::handle owner,
                         int device_type, int device_id);
// A NumPy array viewing the image's memory (no copy; strides from the pitch), keeping it alive.
nb::object to_numpy(const HostImage& image);
// The same for memory that `owner` keeps alive (a HostImage viewing a NumPy array).
nb::object to_numpy(const HostImage& image, nb::handle owner);
// A one-dimensional array of n values of T, owning `values`.
template <class T>
nb::object vector_to_numpy(std::vector<T> values, std::vector<std::size_t> shape = {}) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  if (shape.empty()) shape = {owned->size()};
  return nb::cast(nb::ndarray<nb::numpy, T>(owned->data(), shape.size(), shape.data(), owner));
}
nb::object numpy_dtype(Depth depth);
// A 1-D C-contiguous array of one of the dtypes in `allowed` (its data and element count).
struct ArrayView {
  void* data = nullptr;
  std::size_t size = 0;
  Depth depth = Depth::u8;
  std::vector<std::size_t> shape;
};
ArrayView array_view(nb::handle array, const char* op, const char* arg, std::initializer_list<Depth> allowed,
                     int min_ndim = 1, int max_ndim = 1);

// ---- Operations on host arrays or device images (image_ops.cpp) ----
using MultiOp = std::function<Event(Queue&, std::span<const DeviceImage>, std::vector<DeviceImage>&)>;
// The general form: several sources (all NumPy or all DeviceImage), `outputs` results (a tuple when
// more than one).
// `dst` (one output only): None, or a DeviceImage (device sources; written in place and returned) or a
// writable NumPy array (host sources; the result is downloaded into it and it is returned).
nb::object apply_multi(std::span<const nb::handle> srcs, PyQueue* queue, const char* op, std::size_t outputs,
                       const MultiOp& run, nb::handle dst = nb::none());
using ImageOp = std::function<Event(Queue&, const DeviceImage&, DeviceImage&)>;
// NumPy in: upload, run, download, NumPy out (synchronous, GIL released). DeviceImage in: enqueue
// on the queue and return a DeviceImage carrying the event (asynchronous).
nb::object apply_image_op(nb::handle src, nb::handle dst, PyQueue* queue, const char* op, const ImageOp& run);
using ImageOp2 = std::function<Event(Queue&, const DeviceImage&, const DeviceImage&, DeviceImage&)>;
nb::object apply_image_op2(nb::handle a, nb::handle b, nb::handle dst, PyQueue* queue, const char* op, const ImageOp2& run);
// The device image of `src` (uploaded when it is a NumPy array; the upload waited for).
DeviceImage device_image(nb::handle src, PyQueue& queue, const char* op, const char* arg);

// ---- cv2 constants ----
// A depth argument: None or -1 (the op's default), a cv2 depth code (CV_8U .. CV_64F), a name
// ("u8", "u32", "f32", ...) or a NumPy dtype.
std::optional<Depth> parse_depth_arg(nb::handle value, const char* op, const char* arg);
// cv2's BORDER_* codes (BORDER_ISOLATED is accepted and changes nothing: plinth never reads
// outside a view).
BorderMode border_from_cv(int code, const char* op);
Size size_arg(nb::handle value, const char* op, const char* arg);
// Numbers (a list or an array of 1 or 2 dimensions) as float32 values; `shape` receives the shape.
std::vector<float> float_values(nb::handle value, const char* op, const char* arg, std::vector<std::size_t>* shape = nullptr);

// ---- DLPack (dlpack.cpp) ----
nb::object host_image_dlpack(nb::handle self, nb::handle stream, nb::handle max_version, nb::handle dl_device, nb::handle copy);
nb::object device_image_dlpack(nb::handle self, nb::handle stream, nb::handle max_version, nb::handle dl_device, nb::handle copy);
nb::tuple device_image_dlpack_device(const PyDeviceImage& image);
nb::object from_dlpack(nb::handle x, PyQueue* queue);

[[noreturn]] void argument_error(const char* op, const char* arg, const std::string& message);
[[noreturn]] void type_error(const char* op, const char* arg, const std::string& message);

void register_errors(nb::module_& m);
void register_core(nb::module_& m);
void register_image_ops(nb::module_& m);
void register_detect(nb::module_& m);
void register_tracking(nb::module_& m);
void register_arrays(nb::module_& m);
void register_surf(nb::module_& m);

}  // namespace plinth::python
