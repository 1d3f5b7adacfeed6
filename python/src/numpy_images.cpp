// NumPy arrays as plinth images and back, without copies: a HostImage views the array's memory
// (its row stride is the pitch) and an array returned to Python views the HostImage's memory,
// owning a reference to it.
#include <cstdint>

#include "common.hpp"

namespace plinth::python {

namespace {

std::optional<Depth> depth_of_dtype(nb::dlpack::dtype t) {
  if (t.lanes != 1) return std::nullopt;
  const auto code = static_cast<nb::dlpack::dtype_code>(t.code);
  if (code == nb::dlpack::dtype_code::UInt) {
    switch (t.bits) { case 8: return Depth::u8; case 16: return Depth::u16; case 32: return Depth::u32; case 64: return Depth::u64; }
  } else if (code == nb::dlpack::dtype_code::Int) {
    switch (t.bits) { case 8: return Depth::s8; case 16: return Depth::s16; case 32: return Depth::s32; case 64: return Depth::s64; }
  } else if (code == nb::dlpack::dtype_code::Float) {
    switch (t.bits) { case 32: return Depth::f32; case 64: return Depth::f64; }
  }
  return std::nullopt;
}

nb::dlpack::dtype dlpack_dtype(Depth depth) {
  switch (depth) {
    case Depth::u8: return nb::dtype<std::uint8_t>();
    case Depth::s8: return nb::dtype<std::int8_t>();
    case Depth::u16: return nb::dtype<std::uint16_t>();
    case Depth::s16: return nb::dtype<std::int16_t>();
    case Depth::u32: return nb::dtype<std::uint32_t>();
    case Depth::s32: return nb::dtype<std::int32_t>();
    case Depth::u64: return nb::dtype<std::uint64_t>();
    case Depth::s64: return nb::dtype<std::int64_t>();
    case Depth::f32: return nb::dtype<float>();
    case Depth::f64: return nb::dtype<double>();
  }
  return nb::dtype<std::uint8_t>();
}

std::string python_type_name(nb::handle value) { return nb::type_name(value.type()).c_str(); }

// The array behind `value` without conversion or copy; TypeError for anything that is not one.
nb::ndarray<nb::ro> array_of(nb::handle value, const char* op, const char* arg, bool writable) {
  nb::ndarray<nb::ro> array;
  if (!nb::try_cast(value, array, false) || array.device_type() != nb::device::cpu::value)
    type_error(op, arg, "expected a NumPy array (host memory), got " + python_type_name(value));
  if (writable) {
    nb::ndarray<> check;
    if (!nb::try_cast(value, check, false)) argument_error(op, arg, "the array is read-only");
  }
  return array;
}

// The NumPy name of a DLPack dtype (float16, complex64, bool, ...), for messages.
std::string dtype_name(nb::dlpack::dtype t) {
  std::string kind;
  switch (static_cast<nb::dlpack::dtype_code>(t.code)) {
    case nb::dlpack::dtype_code::Int: kind = "int"; break;
    case nb::dlpack::dtype_code::UInt: kind = "uint"; break;
    case nb::dlpack::dtype_code::Float: kind = "float"; break;
    case nb::dlpack::dtype_code::Complex: kind = "complex"; break;
    case nb::dlpack::dtype_code::Bfloat: kind = "bfloat"; break;
    case nb::dlpack::dtype_code::Bool: return "bool";
    default: return "of DLPack type code " + std::to_string(t.code) + " (" + std::to_string(t.bits) + " bits)";
  }
  return kind + std::to_string(t.bits) + (t.lanes != 1 ? "x" + std::to_string(t.lanes) : "");
}

}  // namespace

[[noreturn]] void argument_error(const char* op, const char* arg, const std::string& message) {
  throw Error(ErrorCode::invalid_argument, op, arg, message);
}
[[noreturn]] void type_error(const char* op, const char* arg, const std::string& message) {
  throw Error(ErrorCode::unsupported_type, op, arg, message);
}

nb::object numpy_dtype(Depth depth) {
  static const char* names[] = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64"};
  return nb::module_::import_("numpy").attr("dtype")(names[static_cast<int>(depth)]);
}

ImageLayout image_layout(const nb::ndarray<nb::ro>& array, const char* op, const char* arg) {
  const auto depth = depth_of_dtype(array.dtype());
  if (!depth) type_error(op, arg, "dtype " + dtype_name(array.dtype()) + " is not an image depth (uint8, int8, uint16, int16, uint32, int32, uint64, int64, float32, float64)");
  const std::size_t ndim = array.ndim();
  if (ndim != 2 && ndim != 3)
    argument_error(op, arg, "expected an image of shape (height, width) or (height, width, channels), got " + std::to_string(ndim) + " dimensions");
  const auto height = static_cast<std::int64_t>(array.shape(0)), width = static_cast<std::int64_t>(array.shape(1));
  const std::int64_t channels = ndim == 3 ? static_cast<std::int64_t>(array.shape(2)) : 1;
  if (channels < 1 || channels > 4) argument_error(op, arg, "an image has 1 to 4 channels, got " + std::to_string(channels));
  if (width < 1 || height < 1) argument_error(op, arg, "the image is empty");
  if (width > max_image_dimension || height > max_image_dimension)
    throw Error(ErrorCode::out_of_range, op, arg, "the image is larger than " + std::to_string(max_image_dimension) + " pixels on a side");
  // Strides in elements: channels adjacent, pixels adjacent, rows any distance at least a row apart.
  const bool packed = (ndim == 2 || channels == 1 || array.stride(2) == 1) && (width == 1 || array.stride(1) == channels);
  const std::int64_t row_stride = array.stride(0);
  if (!packed || (height > 1 && row_stride < width * channels))
    argument_error(op, arg, "the array's pixels are not contiguous within rows (strides in elements: " +
                                std::to_string(row_stride) + ", " + std::to_string(array.stride(1)) +
                                "); pass numpy.ascontiguousarray(...)");
  const std::size_t element = depth_size(*depth);
  if (reinterpret_cast<std::uintptr_t>(array.data()) % element != 0) argument_error(op, arg, "the array's data is not aligned to its element size");
  const std::size_t pitch = height > 1 ? static_cast<std::size_t>(row_stride) * element : static_cast<std::size_t>(width * channels) * element;
  return {const_cast<void*>(array.data()), static_cast<int>(width), static_cast<int>(height),
          Format{*depth, static_cast<int>(channels)}, pitch};
}

HostImage host_view(nb::handle value, const char* op, const char* arg, bool writable) {
  const ImageLayout l = image_layout(array_of(value, op, arg, writable), op, arg);
  return HostImage::wrap(l.data, l.width, l.height, l.format, l.pitch);
}

nb::object image_ndarray(void* data, int width, int height, Format format, std::size_t pitch, nb::handle owner,
                         int device_type, int device_id) {
  const std::size_t element = depth_size(format.depth);
  const std::size_t shape[3] = {static_cast<std::size_t>(height), static_cast<std::size_t>(width),
                                static_cast<std::size_t>(format.channels)};
  const std::int64_t strides[3] = {static_cast<std::int64_t>(pitch / element), format.channels, 1};
  const std::size_t ndim = format.channels == 1 ? 2 : 3;
#if NB_VERSION_MAJOR >= 3
  using Framework = nb::array_api;  // an nb_ndarray (versioned capsules on request); no framework is a bare capsule
#else
  using Framework = nb::no_framework;  // nanobind 2: an nb_ndarray
#endif
  return nb::cast(nb::ndarray<Framework>(data, ndim, shape, owner, strides, dlpack_dtype(format.depth), device_type, device_id),
                  nb::rv_policy::reference);
}

nb::object to_numpy(const HostImage& image) {
  auto* owned = new HostImage(image);
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<HostImage*>(p); });
  return to_numpy(image, owner);
}

nb::object to_numpy(const HostImage& image, nb::handle owner) {
  const std::size_t element = depth_size(image.depth());
  const std::size_t shape[3] = {static_cast<std::size_t>(image.height()), static_cast<std::size_t>(image.width()),
                                static_cast<std::size_t>(image.channels())};
  const std::int64_t strides[3] = {static_cast<std::int64_t>(image.pitch() / element), image.channels(), 1};
  const std::size_t ndim = image.channels() == 1 ? 2 : 3;
  return nb::cast(nb::ndarray<nb::numpy>(image.data(), ndim, shape, owner, strides, dlpack_dtype(image.depth())));
}

ArrayView array_view(nb::handle value, const char* op, const char* arg, std::initializer_list<Depth> allowed,
                     int min_ndim, int max_ndim) {
  const auto array = array_of(value, op, arg, false);
  const auto depth = depth_of_dtype(array.dtype());
  bool ok = false;
  std::string names;
  for (Depth d : allowed) {
    ok = ok || (depth && *depth == d);
    names += (names.empty() ? "" : ", ") + std::string(to_string(d));
  }
  if (!ok) type_error(op, arg, "dtype " + nb::cast<std::string>(value.attr("dtype").attr("name")) + " is not accepted here (" + names + ")");
  const int ndim = static_cast<int>(array.ndim());
  if (ndim < min_ndim || ndim > max_ndim)
    argument_error(op, arg, "expected " + std::to_string(min_ndim) + (min_ndim == max_ndim ? "" : " to " + std::to_string(max_ndim)) +
                                " dimensions, got " + std::to_string(ndim));
  ArrayView view{const_cast<void*>(array.data()), 1, *depth, {}};
  std::int64_t expected = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    if (array.shape(i) != 1 && array.stride(i) != expected)
      argument_error(op, arg, "the array is not C-contiguous; pass numpy.ascontiguousarray(...)");
    expected *= static_cast<std::int64_t>(array.shape(i));
  }
  for (int i = 0; i < ndim; ++i) {
    view.size *= array.shape(i);
    view.shape.push_back(array.shape(i));
  }
  return view;
}

}  // namespace plinth::python
