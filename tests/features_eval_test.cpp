// Geometric evaluation on opencv-doc's graf1.png / graf3.png with their ground-truth homography
// (H1to3p.xml): for OpenCV 4.6's SIFT, ORB, AKAZE and KAZE, repeatability at 3 px and the matches
// that survive a 0.8 ratio test (plinth's matcher) and land within 3 px of the true position. The
// test checks that plinth's matches equal cv::BFMatcher's after the same ratio test and prints the
// table docs/features.md quotes, with a row for plinth's SURF (on the device) where it is built.
#include <opencv2/features2d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <cstdio>

#include "plinth/features.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

const std::string kData = "/usr/share/doc/opencv-doc/examples/data/";

cv::Point2f project(const cv::Matx33d& h, cv::Point2f p) {
  const cv::Vec3d q = h * cv::Vec3d(p.x, p.y, 1.0);
  return {static_cast<float>(q[0] / q[2]), static_cast<float>(q[1] / q[2])};
}

bool inside(cv::Point2f p, cv::Size s) { return p.x >= 0 && p.y >= 0 && p.x < static_cast<float>(s.width) && p.y < static_cast<float>(s.height); }

// Of the keypoints of image 1 that project into image 2 (and of image 2 that project back into
// image 1), the share with a keypoint of the other image within 3 px of the projection: the
// number of repeated ones over the smaller of the two visible counts.
double repeatability(const std::vector<cv::KeyPoint>& a, const std::vector<cv::KeyPoint>& b, const cv::Matx33d& h, cv::Size sa,
                     cv::Size sb) {
  const cv::Matx33d inv = h.inv();
  int visible_a = 0, visible_b = 0, repeated = 0;
  for (const auto& k : b) visible_b += inside(project(inv, k.pt), sa);
  for (const auto& k : a) {
    const cv::Point2f p = project(h, k.pt);
    if (!inside(p, sb)) continue;
    ++visible_a;
    for (const auto& m : b) {
      if (cv::norm(m.pt - p) <= 3.0) {
        ++repeated;
        break;
      }
    }
  }
  const int least = std::min(visible_a, visible_b);
  return least == 0 ? 0.0 : static_cast<double>(repeated) / least;
}

TEST(FeaturesEval, GrafOneToThree) {
  const cv::Mat a = cv::imread(kData + "graf1.png", cv::IMREAD_GRAYSCALE), b = cv::imread(kData + "graf3.png", cv::IMREAD_GRAYSCALE);
  cv::FileStorage fs(kData + "H1to3p.xml", cv::FileStorage::READ);
  if (a.empty() || b.empty() || !fs.isOpened()) GTEST_SKIP() << "opencv-doc's graf images are not installed";
  cv::Mat hm;
  fs["H13"] >> hm;
  const cv::Matx33d h(hm);
  struct Detector {
    const char* name;
    cv::Ptr<cv::Feature2D> f;
  };
  const Detector detectors[] = {{"SIFT", cv::SIFT::create()}, {"ORB", cv::ORB::create(5000)}, {"AKAZE", cv::AKAZE::create()},
                               {"KAZE", cv::KAZE::create()}};
  std::printf("| detector | keypoints 1 / 3 | repeatability (3 px) | ratio-test matches | correct (3 px) |\n");
  std::printf("| --- | --- | --- | --- | --- |\n");
  // One row: plinth's ratio-test matches (checked against cv::BFMatcher's), the correct ones, and
  // the repeatability of the keypoints.
  auto evaluate = [&](const char* name, const std::vector<cv::KeyPoint>& ka, const std::vector<cv::KeyPoint>& kb, const cv::Mat& da,
                      const cv::Mat& db) {
    const bool binary = da.type() == CV_8U;
    const auto knn = binary ? knn_match(queue(), std::span<const std::uint8_t>(da.ptr<std::uint8_t>(), da.total()),
                                        std::span<const std::uint8_t>(db.ptr<std::uint8_t>(), db.total()), da.cols, 2)
                            : knn_match(queue(), std::span<const float>(da.ptr<float>(), da.total()),
                                        std::span<const float>(db.ptr<float>(), db.total()), da.cols, 2);
    const auto kept = ratio_test(knn, 0.8f);
    std::vector<std::vector<cv::DMatch>> cv_knn;
    cv::BFMatcher(binary ? cv::NORM_HAMMING : cv::NORM_L2).knnMatch(da, db, cv_knn, 2);
    std::size_t cv_kept = 0;
    for (const auto& m : cv_knn) cv_kept += m.size() == 2 && m[0].distance < 0.8f * m[1].distance;
    EXPECT_EQ(kept.size(), cv_kept) << name;
    int correct = 0;
    for (const Match& m : kept) {
      correct += cv::norm(project(h, ka[static_cast<std::size_t>(m.query)].pt) - kb[static_cast<std::size_t>(m.train)].pt) <= 3.0;
    }
    EXPECT_GT(correct, 0) << name;
    std::printf("| %s | %zu / %zu | %.1f%% | %zu | %d (%.1f%%) |\n", name, ka.size(), kb.size(),
                100.0 * repeatability(ka, kb, h, a.size(), b.size()), kept.size(), correct,
                kept.empty() ? 0.0 : 100.0 * correct / static_cast<double>(kept.size()));
  };
  for (const Detector& d : detectors) {
    std::vector<cv::KeyPoint> ka, kb;
    cv::Mat da, db;
    d.f->detectAndCompute(a, cv::noArray(), ka, da);
    d.f->detectAndCompute(b, cv::noArray(), kb, db);
    evaluate(d.name, ka, kb, da, db);
  }
#ifdef PLINTH_HAS_SURF
  // plinth's SURF on the device, OpenCV's default parameters.
  auto surf_of = [&](const cv::Mat& img, std::vector<cv::KeyPoint>& kps, cv::Mat& desc) {
    const SurfFeatures f = surf(queue(), from_mat(img));
    for (const KeyPoint& k : f.keypoints) kps.emplace_back(k.x, k.y, k.size, k.angle, k.response, k.octave, k.class_id);
    desc = cv::Mat(static_cast<int>(f.keypoints.size()), f.descriptor_size, CV_32F);
    std::copy(f.descriptors.begin(), f.descriptors.end(), desc.ptr<float>());
  };
  std::vector<cv::KeyPoint> sa, sb;
  cv::Mat sda, sdb;
  surf_of(a, sa, sda);
  surf_of(b, sb, sdb);
  evaluate("SURF (plinth)", sa, sb, sda, sdb);
#endif
}

}  // namespace
}  // namespace plinth::test
