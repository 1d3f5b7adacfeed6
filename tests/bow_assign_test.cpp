// bow_assign against a CPU reference written for clarity (distances in double, a linear scan keeping
// the lowest index of equal distances): every method of bow_methods(), both layouts, batches with
// empty images, ties, NaN descriptors, array slices and the argument errors. The comparison with
// cv::BOWImgDescriptorExtractor itself is in features_opencv_test.cpp (it needs features2d).
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "plinth/bow.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

struct Data {
  int dim = 0;
  std::vector<float> desc;   // n x dim
  std::vector<float> vocab;  // k x dim
  std::vector<int> starts;
  int n() const { return static_cast<int>(desc.size()) / dim; }
  int k() const { return static_cast<int>(vocab.size()) / dim; }
};

Data random_data(int n, int k, int dim, std::vector<int> starts, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  Data d;
  d.dim = dim;
  d.desc.resize(static_cast<std::size_t>(n) * dim);
  d.vocab.resize(static_cast<std::size_t>(k) * dim);
  for (float& v : d.desc) v = u(rng);
  for (float& v : d.vocab) v = u(rng);
  d.starts = std::move(starts);
  return d;
}

double distance(const Data& d, int i, int j) {
  double s = 0;
  for (int t = 0; t < d.dim; ++t) {
    const double e = static_cast<double>(d.desc[static_cast<std::size_t>(i) * d.dim + t]) - d.vocab[static_cast<std::size_t>(j) * d.dim + t];
    s += e * e;
  }
  return s;
}

// The reference label: the first of the smallest distances.
int reference_label(const Data& d, int i) {
  int best = 0;
  for (int j = 1; j < d.k(); ++j) {
    if (distance(d, i, j) < distance(d, i, best)) best = j;
  }
  return best;
}

// A label is right when its distance is the smallest to within float rounding of the methods'
// different summation orders (returns the reference label when it is not).
::testing::AssertionResult label_ok(const Data& d, int i, int label) {
  const int ref = reference_label(d, i);
  if (label == ref) return ::testing::AssertionSuccess();
  if (label < 0 || label >= d.k()) return ::testing::AssertionFailure() << "descriptor " << i << ": label " << label << ", reference " << ref;
  const double best = distance(d, i, ref), got = distance(d, i, label);
  const double tol = 1e-5 * (best + 1.0);
  if (got - best <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "descriptor " << i << ": label " << label << " at " << got << ", reference " << ref << " at " << best;
}

bool applies(BowMethod m, const Data& d) {
  if (m == BowMethod::constant) return static_cast<std::size_t>(d.k()) * d.dim * 4 <= 65536;
  if (m == BowMethod::fused || m == BowMethod::fused_pipelined) return d.dim % 16 == 0 && d.dim >= 32 && d.dim <= 128;
  return true;
}

std::vector<float> transposed(const Data& d) {
  std::vector<float> t(d.desc.size());
  for (int i = 0; i < d.n(); ++i) {
    for (int c = 0; c < d.dim; ++c) t[static_cast<std::size_t>(c) * d.n() + i] = d.desc[static_cast<std::size_t>(i) * d.dim + c];
  }
  return t;
}

// Runs the device form and checks labels, counts and histograms against the reference.
void check_method(const Data& d, BowMethod method, bool transposed_input) {
  SCOPED_TRACE(std::string(to_string(method)) + (transposed_input ? " (dimension-major input)" : ""));
  const DeviceArray desc = upload_array<float>(queue(), transposed_input ? transposed(d) : d.desc);
  const DeviceArray vocab = upload_array<float>(queue(), d.vocab);
  const DeviceArray starts = upload_array<std::int32_t>(queue(), d.starts);
  const int images = static_cast<int>(d.starts.size()) - 1;
  DeviceArray labels(context(), d.n(), Format{Depth::s32, 1});
  fill_array_bytes(queue(), labels, 0x7f).wait();  // poison
  BowOutputs out;
  out.labels = &labels;
  out.counts = DeviceArray(context(), static_cast<std::int64_t>(images) * d.k(), Format{Depth::s32, 1});
  fill_array_bytes(queue(), out.counts, 0x7f).wait();
  BowOptions options;
  options.method = method;
  options.transposed_input = transposed_input;
  bow_assign(queue(), desc, vocab, starts, d.dim, out, options).wait();
  const auto got_labels = download_array<std::int32_t>(queue(), labels);
  const auto counts = download_array<std::int32_t>(queue(), out.counts);
  const auto hist = download_array<float>(queue(), out.histograms);

  std::vector<std::int32_t> expected_counts(counts.size(), 0);
  int wrong = 0;
  for (int img = 0; img < images; ++img) {
    for (int i = d.starts[img]; i < d.starts[img + 1]; ++i) {
      const auto r = label_ok(d, i, got_labels[i]);
      if (!r && ++wrong <= 5) ADD_FAILURE() << r.message();
      if (got_labels[i] >= 0 && got_labels[i] < d.k()) ++expected_counts[static_cast<std::size_t>(img) * d.k() + got_labels[i]];
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(counts, expected_counts);  // the counts of the labels written
  for (int img = 0; img < images; ++img) {
    const int ni = d.starts[img + 1] - d.starts[img];
    const float scale = ni > 0 ? static_cast<float>(1.0 / ni) : 0.0f;  // OpenCV's convertTo scale
    for (int j = 0; j < d.k(); ++j) {
      const std::size_t at = static_cast<std::size_t>(img) * d.k() + j;
      ASSERT_EQ(hist[at], static_cast<float>(counts[at]) * scale) << "image " << img << " word " << j;
    }
  }
}

TEST(BowAssign, EveryMethodMatchesTheReference) {
  // 1000 descriptors in four images (one empty), 37 words: no multiple of any tile.
  const Data d = random_data(1000, 37, 64, {0, 300, 300, 999, 1000}, 11);
  for (const BowMethodInfo& m : bow_methods()) {
    if (applies(m.method, d)) check_method(d, m.method, false);
  }
}

TEST(BowAssign, LongDescriptorsAndSeveralCentroidChunks) {
  // SURF's extended length and k past two chunks of the fused kernel's 128 centroids.
  const Data d = random_data(333, 300, 128, {0, 333}, 12);
  for (const BowMethodInfo& m : bow_methods()) {
    if (applies(m.method, d)) check_method(d, m.method, false);
  }
}

TEST(BowAssign, DimensionMajorInput) {
  const Data d = random_data(257, 20, 64, {0, 100, 257}, 13);
  for (const BowMethodInfo& m : bow_methods()) check_method(d, m.method, true);
}

TEST(BowAssign, ShortDescriptorsWithoutFused) {
  const Data d = random_data(130, 9, 12, {0, 130}, 14);
  for (const BowMethodInfo& m : bow_methods()) {
    if (applies(m.method, d)) check_method(d, m.method, false);
  }
  BowOptions options;
  options.method = BowMethod::fused;
  EXPECT_TRUE(throws_code([&] { bow_assign(queue(), d.desc, d.starts, d.vocab, d.dim, options); }, ErrorCode::invalid_argument));
}

TEST(BowAssign, EqualDistancesGoToTheLowestIndex) {
  Data d = random_data(300, 40, 64, {0, 300}, 15);
  // Words 7, 19 and 33 are the same point; every descriptor lies near it or on it.
  for (int j : {19, 33}) std::copy_n(d.vocab.begin() + 7 * 64, 64, d.vocab.begin() + j * 64);
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  for (int i = 0; i < d.n(); ++i) {
    for (int t = 0; t < 64; ++t) d.desc[static_cast<std::size_t>(i) * 64 + t] = d.vocab[7 * 64 + t] + (i % 3 == 0 ? 0.0f : noise(rng));
  }
  for (const BowMethodInfo& m : bow_methods()) {
    if (!applies(m.method, d)) continue;
    BowOptions options;
    options.method = m.method;
    const BowResult r = bow_assign(queue(), d.desc, d.starts, d.vocab, 64, options);
    for (int i = 0; i < d.n(); ++i) ASSERT_EQ(r.labels[i], 7) << to_string(m.method) << " descriptor " << i;
    EXPECT_EQ(r.histograms[0][7], 1.0f);
  }
}

TEST(BowAssign, HostFormEmptyImagesAndNoDescriptors) {
  const Data d = random_data(50, 8, 12, {0, 0, 50, 50}, 16);
  const BowResult r = bow_assign(queue(), d.desc, d.starts, d.vocab, 12);
  ASSERT_EQ(r.histograms.size(), 3u);
  EXPECT_TRUE(r.histograms[0].empty());
  EXPECT_TRUE(r.histograms[2].empty());
  ASSERT_EQ(r.histograms[1].size(), 8u);
  double total = 0;
  for (float v : r.histograms[1]) total += v;
  EXPECT_NEAR(total, 1.0, 1e-6);
  const std::vector<float> none;
  const std::vector<std::int32_t> starts{0, 0};
  const BowResult empty = bow_assign(queue(), none, starts, d.vocab, 12);
  ASSERT_EQ(empty.histograms.size(), 1u);
  EXPECT_TRUE(empty.histograms[0].empty());
  EXPECT_TRUE(empty.labels.empty());
}

TEST(BowAssign, NaNDescriptorsAreLabelledMinusOneOnTheDeviceAndRefusedOnTheHost) {
  Data d = random_data(100, 10, 64, {0, 100}, 17);
  d.desc[5 * 64 + 3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(throws_code([&] { bow_assign(queue(), d.desc, d.starts, d.vocab, 64); }, ErrorCode::invalid_argument));
  for (BowMethod m : {BowMethod::baseline, BowMethod::fused, BowMethod::fused_pipelined}) {
    const DeviceArray desc = upload_array<float>(queue(), d.desc);
    const DeviceArray vocab = upload_array<float>(queue(), d.vocab);
    const DeviceArray starts = upload_array<std::int32_t>(queue(), d.starts);
    DeviceArray labels;
    BowOutputs out;
    out.labels = &labels;
    BowOptions options;
    options.method = m;
    bow_assign(queue(), desc, vocab, starts, 64, out, options).wait();
    const auto l = download_array<std::int32_t>(queue(), labels);
    const auto c = download_array<std::int32_t>(queue(), out.counts);
    EXPECT_EQ(l[5], -1) << to_string(m);
    int total = 0;
    for (int v : c) total += v;
    EXPECT_EQ(total, 99) << to_string(m);
  }
}

TEST(BowAssign, SlicesOfLargerArrays) {
  const Data d = random_data(200, 16, 64, {0, 120, 200}, 18);
  std::vector<float> padded(64 * 3, 9.0f);
  padded.insert(padded.end(), d.desc.begin(), d.desc.end());
  const DeviceArray all = upload_array<float>(queue(), padded);
  const DeviceArray vocab = upload_array<float>(queue(), d.vocab);
  const DeviceArray starts = upload_array<std::int32_t>(queue(), d.starts);
  for (BowMethod m : {BowMethod::baseline, BowMethod::local, BowMethod::fused, BowMethod::fused_pipelined}) {
    DeviceArray labels;
    BowOutputs out;
    out.labels = &labels;
    BowOptions options;
    options.method = m;
    bow_assign(queue(), all.slice(64 * 3, 200 * 64), vocab, starts, 64, out, options).wait();
    const auto l = download_array<std::int32_t>(queue(), labels);
    for (int i = 0; i < d.n(); ++i) ASSERT_TRUE(label_ok(d, i, l[i])) << to_string(m);
  }
}

TEST(BowAssign, Errors) {
  const Data d = random_data(20, 4, 16, {0, 20}, 19);
  const DeviceArray desc = upload_array<float>(queue(), d.desc);
  const DeviceArray vocab = upload_array<float>(queue(), d.vocab);
  const DeviceArray starts = upload_array<std::int32_t>(queue(), d.starts);
  const DeviceArray ints = upload_array<std::int32_t>(queue(), std::vector<std::int32_t>(64, 0));
  BowOutputs out;
  EXPECT_TRUE(throws_code([&] { bow_assign(queue(), desc, vocab, starts, 6, out); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { bow_assign(queue(), desc, vocab, starts, 24, out); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { bow_assign(queue(), ints, vocab, starts, 16, out); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(throws_code([&] { bow_assign(queue(), desc, vocab, starts.slice(0, 1), 16, out); }, ErrorCode::invalid_argument));
  BowOutputs wrong;
  wrong.counts = DeviceArray(context(), 3, Format{Depth::s32, 1});
  EXPECT_TRUE(throws_code([&] { bow_assign(queue(), desc, vocab, starts, 16, wrong); }, ErrorCode::invalid_argument));
  BowOptions constant;
  constant.method = BowMethod::constant;
  const Data big = random_data(4, 300, 64, {0, 4}, 20);  // 75 KiB of centroids
  EXPECT_TRUE(throws_code([&] { bow_assign(queue(), big.desc, big.starts, big.vocab, 64, constant); }, ErrorCode::invalid_argument));
  const std::vector<std::int32_t> bad_starts{0, 30, 20};
  EXPECT_TRUE(throws_code([&] { bow_assign(queue(), d.desc, bad_starts, d.vocab, 16); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { parse_bow_method("gpu9"); }, ErrorCode::invalid_argument));
  for (const BowMethodInfo& m : bow_methods()) EXPECT_EQ(parse_bow_method(m.name), m.method);
}

TEST(BowAssign, PipelinedLabelsEqualFusedBitForBit) {
  // The same fma chains in the same order: identical labels and counts, not merely near ones.
  // Shapes: k not a multiple of the 128-word chunk (zero-padded words), several chunks, dim 128
  // (groups of 128 work-items, two float4s each per slice), dim 32 and 48, a partial last tile.
  struct Shape {
    int n, k, dim;
  };
  for (const Shape& sh : {Shape{300, 1000, 64}, Shape{129, 300, 128}, Shape{200, 130, 32}, Shape{77, 5, 48}}) {
    const Data d = random_data(sh.n, sh.k, sh.dim, {0, sh.n / 3, sh.n}, 21);
    const DeviceArray desc = upload_array<float>(queue(), d.desc);
    const DeviceArray vocab = upload_array<float>(queue(), d.vocab);
    const DeviceArray starts = upload_array<std::int32_t>(queue(), d.starts);
    std::vector<std::int32_t> got[2], counts[2];
    for (int v = 0; v < 2; ++v) {
      DeviceArray labels;
      BowOutputs out;
      out.labels = &labels;
      BowOptions options;
      options.method = v == 0 ? BowMethod::fused : BowMethod::fused_pipelined;
      bow_assign(queue(), desc, vocab, starts, sh.dim, out, options).wait();
      got[v] = download_array<std::int32_t>(queue(), labels);
      counts[v] = download_array<std::int32_t>(queue(), out.counts);
    }
    EXPECT_EQ(got[0], got[1]) << sh.n << " x " << sh.dim << ", k " << sh.k;
    EXPECT_EQ(counts[0], counts[1]) << sh.n << " x " << sh.dim << ", k " << sh.k;
    for (int i = 0; i < d.n(); ++i) ASSERT_TRUE(label_ok(d, i, got[1][static_cast<std::size_t>(i)]));
  }
}

}  // namespace
}  // namespace plinth::test
