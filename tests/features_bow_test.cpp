// bow_assign against OpenCV itself: cv::BOWImgDescriptorExtractor (a brute-force L2 matcher against
// the vocabulary, counts divided by the descriptor count) on the same descriptors and vocabulary.
#include <opencv2/features2d.hpp>
#include <random>

#include "plinth/bow.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

cv::Mat random_mat(int rows, int cols, std::uint32_t seed) {
  cv::Mat m(rows, cols, CV_32F);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) m.at<float>(i, j) = u(rng);
  }
  return m;
}

TEST(FeaturesBow, HistogramsEqualBOWImgDescriptorExtractor) {
  const int dim = 64, k = 50;
  const cv::Mat vocab = random_mat(k, dim, 1);
  // Three images of different sizes, each checked against OpenCV's histogram of that image alone.
  const std::vector<int> sizes{1, 77, 403};
  std::vector<float> all;
  std::vector<std::int32_t> starts{0};
  std::vector<cv::Mat> images;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    images.push_back(random_mat(sizes[i], dim, 10 + static_cast<std::uint32_t>(i)));
    all.insert(all.end(), images.back().ptr<float>(), images.back().ptr<float>() + images.back().total());
    starts.push_back(starts.back() + sizes[i]);
  }
  cv::BOWImgDescriptorExtractor extractor(cv::BFMatcher::create(cv::NORM_L2));
  extractor.setVocabulary(vocab);
  const std::vector<float> v(vocab.ptr<float>(), vocab.ptr<float>() + vocab.total());
  for (const BowMethodInfo& m : bow_methods()) {
    BowOptions options;
    options.method = m.method;
    const BowResult r = bow_assign(queue(), all, starts, v, dim, options);
    for (std::size_t i = 0; i < images.size(); ++i) {
      cv::Mat expected;
      extractor.compute(images[i], expected);
      ASSERT_EQ(expected.cols, k);
      ASSERT_EQ(r.histograms[i].size(), static_cast<std::size_t>(k));
      for (int j = 0; j < k; ++j) {
        EXPECT_EQ(r.histograms[i][static_cast<std::size_t>(j)], expected.at<float>(0, j))
            << m.name << " image " << i << " word " << j;
      }
    }
  }
}

TEST(FeaturesBow, LabelsEqualBFMatcher) {
  const int dim = 128, k = 200;
  const cv::Mat vocab = random_mat(k, dim, 2), desc = random_mat(500, dim, 3);
  std::vector<cv::DMatch> matches;
  cv::BFMatcher(cv::NORM_L2).match(desc, vocab, matches);
  const std::vector<float> v(vocab.ptr<float>(), vocab.ptr<float>() + vocab.total());
  const std::vector<float> d(desc.ptr<float>(), desc.ptr<float>() + desc.total());
  const std::vector<std::int32_t> starts{0, 500};
  for (const BowMethodInfo& m : bow_methods()) {
    if (m.method == BowMethod::constant) continue;  // 100 KiB of centroids
    BowOptions options;
    options.method = m.method;
    const BowResult r = bow_assign(queue(), d, starts, v, dim, options);
    for (int i = 0; i < 500; ++i) ASSERT_EQ(r.labels[static_cast<std::size_t>(i)], matches[static_cast<std::size_t>(i)].trainIdx) << m.name << " " << i;
  }
}

}  // namespace
}  // namespace plinth::test
