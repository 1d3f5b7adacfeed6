// Operations on 1-D and 2-D arrays: sorting (keys, pairs), top-k, stream compaction, brute-force
// matching (cv2.BFMatcher), k-means (cv2.kmeans) and bag-of-words histograms.
#include <cstring>

#include "common.hpp"

namespace plinth::python {

namespace {

struct Matcher {
  int norm = 4;  // cv2.NORM_L2
  bool cross_check = false;
};

constexpr int norm_l2 = 4, norm_hamming = 6;

struct Descriptors {
  ArrayView view;
  int dim = 0;
};

Descriptors descriptors_arg(nb::handle value, const Matcher& m, const char* op, const char* arg) {
  const Depth depth = m.norm == norm_l2 ? Depth::f32 : Depth::u8;
  Descriptors d{array_view(value, op, arg, {depth}, 2, 2), 0};
  d.dim = static_cast<int>(d.view.shape[1]);
  return d;
}

template <class T>
std::span<const T> span_of(const ArrayView& v) {
  return {static_cast<const T*>(v.data), v.size};
}

DeviceArray upload_values(Queue& queue, const ArrayView& v) {
  DeviceArray array(queue.context(), static_cast<std::int64_t>(v.size), Format{v.depth, 1});
  upload_array(queue, v.data, v.size * depth_size(v.depth), array).wait();
  return array;
}

const std::initializer_list<Depth> key_depths = {Depth::u32, Depth::s32, Depth::f32};

}  // namespace

void register_arrays(nb::module_& m) {
  auto q = "queue"_a = nb::none();

  m.def("sort", [](nb::handle keys, bool descending, PyQueue* queue_arg) {
    const ArrayView v = array_view(keys, "sort", "keys", key_depths);
    if (v.size == 0) argument_error("sort", "keys", "the array is empty");
    PyQueue& qq = queue_or_default(queue_arg);
    auto sorted = without_gil(qq, [&] {
      DeviceArray in = upload_values(qq.queue, v);
      sort_keys(qq.queue, in, in, descending ? SortOrder::descending : SortOrder::ascending);
      return download_array<std::uint32_t>(qq.queue, in);  // the keys' bits, typed below
    });
    return vector_to_numpy(std::move(sorted)).attr("view")(numpy_dtype(v.depth));
  }, "keys"_a, "descending"_a = false, q,
  "Stable sort of a 1-D uint32, int32 or float32 array (float32 in IEEE totalOrder, NaN last).");

  m.def("argsort", [](nb::handle keys, bool descending, PyQueue* queue_arg) {
    const ArrayView v = array_view(keys, "argsort", "keys", key_depths);
    if (v.size == 0) argument_error("argsort", "keys", "the array is empty");
    PyQueue& qq = queue_or_default(queue_arg);
    auto indices = without_gil(qq, [&] {
      DeviceArray in = upload_values(qq.queue, v);
      std::vector<std::int32_t> iota(v.size);
      for (std::size_t i = 0; i < v.size; ++i) iota[i] = static_cast<std::int32_t>(i);
      DeviceArray values = upload_array<std::int32_t>(qq.queue, iota);
      DeviceArray keys_out(qq.queue.context(), in.size(), in.format()), values_out(qq.queue.context(), in.size(), values.format());
      sort_pairs(qq.queue, in, values, keys_out, values_out, descending ? SortOrder::descending : SortOrder::ascending);
      return download_array<std::int32_t>(qq.queue, values_out);
    });
    return vector_to_numpy(std::move(indices));
  }, "keys"_a, "descending"_a = false, q, "Indices (int32) of a stable sort, as numpy.argsort(kind='stable').");

  m.def("top_k", [](nb::handle keys, int k, bool largest, PyQueue* queue_arg) {
    const ArrayView v = array_view(keys, "top_k", "keys", key_depths);
    if (v.size == 0) argument_error("top_k", "keys", "the array is empty");
    PyQueue& qq = queue_or_default(queue_arg);
    auto [values, indices] = without_gil(qq, [&] {
      DeviceArray in = upload_values(qq.queue, v);
      DeviceArray keys_out(qq.queue.context(), std::max(k, 1), in.format()), indices_out(qq.queue.context(), std::max(k, 1), Format{Depth::s32, 1});
      top_k(qq.queue, in, k, keys_out, indices_out, largest ? SortOrder::descending : SortOrder::ascending);
      std::vector<std::uint32_t> raw = download_array<std::uint32_t>(qq.queue, keys_out);
      return std::pair{raw, download_array<std::int32_t>(qq.queue, indices_out)};
    });
    nb::object typed = vector_to_numpy(std::move(values)).attr("view")(numpy_dtype(v.depth));
    return nb::make_tuple(typed, vector_to_numpy(std::move(indices)));
  }, "keys"_a, "k"_a, "largest"_a = true, q,
  "The k largest (or smallest) keys of a 1-D array and their int32 indices, best first, ties by index.");

  m.def("sort_pairs", [](nb::handle keys, nb::handle values, bool descending, PyQueue* queue_arg) {
    const ArrayView k = array_view(keys, "sort_pairs", "keys", key_depths);
    const ArrayView v = array_view(values, "sort_pairs", "values", key_depths);
    if (k.size == 0) argument_error("sort_pairs", "keys", "the array is empty");
    if (v.size != k.size) argument_error("sort_pairs", "values", "has " + std::to_string(v.size) + " elements, keys " + std::to_string(k.size));
    PyQueue& qq = queue_or_default(queue_arg);
    auto [sorted_keys, sorted_values] = without_gil(qq, [&] {
      DeviceArray kin = upload_values(qq.queue, k), vin = upload_values(qq.queue, v);
      DeviceArray kout(qq.queue.context(), kin.size(), kin.format()), vout(qq.queue.context(), vin.size(), vin.format());
      sort_pairs(qq.queue, kin, vin, kout, vout, descending ? SortOrder::descending : SortOrder::ascending);
      return std::pair{download_array<std::uint32_t>(qq.queue, kout), download_array<std::uint32_t>(qq.queue, vout)};
    });
    return nb::make_tuple(vector_to_numpy(std::move(sorted_keys)).attr("view")(numpy_dtype(k.depth)),
                          vector_to_numpy(std::move(sorted_values)).attr("view")(numpy_dtype(v.depth)));
  }, "keys"_a, "values"_a, "descending"_a = false, q,
  "Stable sort of 1-D keys (uint32, int32, float32) carrying values (uint32, int32, float32) with them: "
  "(sorted keys, values in that order).");

  m.def("compact", [](nb::handle values, nb::handle flags, PyQueue* queue_arg) {
    const ArrayView v = array_view(values, "compact", "values", key_depths);
    const ArrayView f = array_view(flags, "compact", "flags", {Depth::u8});
    if (v.size == 0) argument_error("compact", "values", "the array is empty");
    if (f.size != v.size) argument_error("compact", "flags", "has " + std::to_string(f.size) + " elements, values " + std::to_string(v.size));
    PyQueue& qq = queue_or_default(queue_arg);
    auto kept = without_gil(qq, [&] {
      DeviceArray in = upload_values(qq.queue, v), marks = upload_values(qq.queue, f);
      DeviceArray out(qq.queue.context(), in.size(), in.format()), count(qq.queue.context(), 1, Format{Depth::u32, 1});
      compact(qq.queue, in, marks, out, count);
      std::vector<std::uint32_t> all = download_array<std::uint32_t>(qq.queue, out);
      all.resize(download_array<std::uint32_t>(qq.queue, count)[0]);
      return all;
    });
    return vector_to_numpy(std::move(kept)).attr("view")(numpy_dtype(v.depth));
  }, "values"_a, "flags"_a, q,
  "Stable stream compaction: the values (1-D uint32, int32 or float32) whose uint8 flag is non-zero, in order "
  "(numpy's values[flags != 0]).");

  nb::class_<Match>(m, "DMatch", "One match, as cv2.DMatch (imgIdx 0).")
      .def_rw("queryIdx", &Match::query)
      .def_rw("trainIdx", &Match::train)
      .def_rw("distance", &Match::distance)
      .def_prop_ro("imgIdx", [](const Match&) { return 0; })
      .def("__repr__", [](const Match& x) {
        return "<plinth.DMatch queryIdx=" + std::to_string(x.query) + " trainIdx=" + std::to_string(x.train) + " distance=" + std::to_string(x.distance) + ">";
      });

  nb::class_<Matcher>(m, "BFMatcher", "cv2.BFMatcher: brute-force matching, NORM_L2 (float32) or NORM_HAMMING (uint8).")
      .def("__init__", [](Matcher* self, int norm, bool cross_check) {
        if (norm != norm_l2 && norm != norm_hamming) argument_error("BFMatcher", "normType", "plinth offers NORM_L2 (4) and NORM_HAMMING (6), got " + std::to_string(norm));
        new (self) Matcher{norm, cross_check};
      }, "normType"_a = norm_l2, "crossCheck"_a = false)
      .def("match", [](const Matcher& self, nb::handle query, nb::handle train, PyQueue* queue_arg) {
        const Descriptors qd = descriptors_arg(query, self, "match", "queryDescriptors"), td = descriptors_arg(train, self, "match", "trainDescriptors");
        if (qd.dim != td.dim) argument_error("match", "trainDescriptors", "has another descriptor length than queryDescriptors");
        PyQueue& qq = queue_or_default(queue_arg);
        auto matches = without_gil(qq, [&] {
          return self.norm == norm_l2 ? match(qq.queue, span_of<float>(qd.view), span_of<float>(td.view), qd.dim, self.cross_check)
                                      : match(qq.queue, span_of<std::uint8_t>(qd.view), span_of<std::uint8_t>(td.view), qd.dim, self.cross_check);
        });
        nb::list out;
        for (const Match& x : matches) out.append(x);
        return out;
      }, "queryDescriptors"_a, "trainDescriptors"_a, q, "The nearest train descriptor of each query: a list of DMatch.")
      .def("knnMatch", [](const Matcher& self, nb::handle query, nb::handle train, int k, PyQueue* queue_arg) {
        const Descriptors qd = descriptors_arg(query, self, "knnMatch", "queryDescriptors"), td = descriptors_arg(train, self, "knnMatch", "trainDescriptors");
        if (qd.dim != td.dim) argument_error("knnMatch", "trainDescriptors", "has another descriptor length than queryDescriptors");
        if (self.cross_check) argument_error("knnMatch", "crossCheck", "knnMatch with crossCheck is not offered");
        PyQueue& qq = queue_or_default(queue_arg);
        auto matches = without_gil(qq, [&] {
          return self.norm == norm_l2 ? knn_match(qq.queue, span_of<float>(qd.view), span_of<float>(td.view), qd.dim, k)
                                      : knn_match(qq.queue, span_of<std::uint8_t>(qd.view), span_of<std::uint8_t>(td.view), qd.dim, k);
        });
        nb::list out;
        for (const auto& row : matches) {
          nb::list r;
          for (const Match& x : row) r.append(x);
          out.append(r);
        }
        return out;
      }, "queryDescriptors"_a, "trainDescriptors"_a, "k"_a, q, "The k nearest train descriptors of each query, nearest first.");

  m.def("kmeans", [](nb::handle data, int k, nb::handle best_labels, nb::handle criteria, int attempts, int flags, std::uint64_t seed, PyQueue* queue_arg) {
    const ArrayView v = array_view(data, "kmeans", "data", {Depth::f32}, 2, 2);
    const int dim = static_cast<int>(v.shape[1]);
    KmeansOptions o;
    try {
      auto [type, count, eps] = nb::cast<std::tuple<int, int, double>>(criteria);
      if (type & 1) o.max_count = count;
      if (type & 2) o.epsilon = eps;
    } catch (const nb::cast_error&) {
      type_error("kmeans", "criteria", "expected (type, maxCount, epsilon)");
    }
    o.attempts = attempts;
    o.seed = seed;
    o.init = (flags & 1) ? KmeansInit::initial_labels : (flags & 2) ? KmeansInit::plus_plus : KmeansInit::random;
    std::vector<std::int32_t> initial;
    if (o.init == KmeansInit::initial_labels) {
      if (best_labels.is_none()) argument_error("kmeans", "bestLabels", "KMEANS_USE_INITIAL_LABELS needs bestLabels");
      const ArrayView l = array_view(best_labels, "kmeans", "bestLabels", {Depth::s32}, 1, 2);
      initial.assign(static_cast<const std::int32_t*>(l.data), static_cast<const std::int32_t*>(l.data) + l.size);
    }
    PyQueue& qq = queue_or_default(queue_arg);
    KmeansResult r = without_gil(qq, [&] { return kmeans(qq.queue, span_of<float>(v), dim, k, o, initial); });
    const std::size_t n = r.labels.size();
    return nb::make_tuple(r.compactness, vector_to_numpy(std::move(r.labels), {n, 1}),
                          vector_to_numpy(std::move(r.centers), {static_cast<std::size_t>(k), static_cast<std::size_t>(dim)}));
  }, "data"_a, "K"_a, "bestLabels"_a.none(), "criteria"_a, "attempts"_a, "flags"_a, "seed"_a = 0, q,
  "cv2.kmeans of float32 samples (n, dim): (compactness, labels (n, 1) int32, centers (K, dim) float32). "
  "flags: KMEANS_RANDOM_CENTERS, KMEANS_PP_CENTERS or KMEANS_USE_INITIAL_LABELS; `seed` replaces cv2's RNG state.");

  m.def("bow_assign", [](nb::handle descriptors, nb::handle vocabulary, nb::handle image_starts, PyQueue* queue_arg) {
    const ArrayView d = array_view(descriptors, "bow_assign", "descriptors", {Depth::f32}, 2, 2);
    const ArrayView v = array_view(vocabulary, "bow_assign", "vocabulary", {Depth::f32}, 2, 2);
    const int dim = static_cast<int>(d.shape[1]);
    if (v.shape[1] != d.shape[1]) argument_error("bow_assign", "vocabulary", "has another descriptor length than descriptors");
    std::vector<std::int32_t> starts{0, static_cast<std::int32_t>(d.shape[0])};
    if (!image_starts.is_none()) {
      const ArrayView s = array_view(image_starts, "bow_assign", "image_starts", {Depth::s32});
      starts.assign(static_cast<const std::int32_t*>(s.data), static_cast<const std::int32_t*>(s.data) + s.size);
    }
    PyQueue& qq = queue_or_default(queue_arg);
    BowResult r = without_gil(qq, [&] { return bow_assign(qq.queue, span_of<float>(d), starts, span_of<float>(v), dim); });
    nb::list histograms;
    for (auto& h : r.histograms) histograms.append(vector_to_numpy(std::move(h)));
    return nb::make_tuple(histograms, vector_to_numpy(std::move(r.labels)));
  }, "descriptors"_a, "vocabulary"_a, "image_starts"_a.none() = nb::none(), q,
  "Bag-of-words histograms as cv2.BOWImgDescriptorExtractor computes them: (list of float32 histograms, one per image "
  "(empty for an image without descriptors), int32 word of each descriptor). image_starts: offsets of each image's "
  "descriptors plus the total (default: one image).");
}

}  // namespace plinth::python
