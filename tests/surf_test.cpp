// SURF: the CPU reference on its own (a blob found where it is, keypoints and descriptors that
// follow a 90-degree rotation of the image), the device against the reference (same keypoint
// count; >= 99% of keypoints within 1 px, size within 1, angle within 2 degrees, response within
// 10% relative; >= 95% of descriptors whose nearest reference descriptor is their own), and bad
// input. Inputs are data/astronaut.png made smaller and opencv-doc's graf1.png (OpenCV can't be
// asked: SURF is nonfree). In plinth_tests (OpenCV core and imgproc only), so that it also runs on
// the GPU machine; images are read with plinth's own I/O.
#include <opencv2/imgproc.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plinth/error.hpp"
#include "plinth/features.hpp"
#include "plinth/io.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

// A grey image file, or an empty Mat when it cannot be read.
cv::Mat read_gray(const std::string& path) {
  try {
    return as_mat(read_image(path, ReadMode::gray)).clone();
  } catch (const Error&) {
    return {};
  }
}

cv::Mat astronaut(int size) {
  const cv::Mat full = read_gray(std::string(PLINTH_SOURCE_DIR) + "/data/astronaut.png");
  if (full.empty()) return {};
  cv::Mat out;
  cv::resize(full, out, cv::Size(size, size), 0, 0, cv::INTER_AREA);
  return out;
}

float angle_difference(float a, float b) {
  const float d = std::fabs(a - b);
  return std::min(d, 360.0f - d);
}

float squared(const float* a, const float* b, int dim) {
  float s = 0;
  for (int k = 0; k < dim; ++k) s += (a[k] - b[k]) * (a[k] - b[k]);
  return s;
}

// The device's features against the reference's, with the tolerances.
void expect_agree(const SurfFeatures& ref, const SurfFeatures& got, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(ref.keypoints.size(), got.keypoints.size());
  ASSERT_EQ(ref.descriptor_size, got.descriptor_size);
  ASSERT_EQ(got.descriptors.size(), got.keypoints.size() * static_cast<std::size_t>(got.descriptor_size));
  const std::size_t n = ref.keypoints.size();
  std::size_t close = 0, matched = 0, identical = 0;
  const int dim = ref.descriptor_size;
  for (std::size_t k = 0; k < n; ++k) {
    const KeyPoint& a = ref.keypoints[k];
    const KeyPoint& b = got.keypoints[k];
    close += std::hypot(a.x - b.x, a.y - b.y) <= 1.0f && std::fabs(a.size - b.size) <= 1.0f && angle_difference(a.angle, b.angle) <= 2.0f &&
             std::fabs(a.response - b.response) <= 0.1f * std::fabs(a.response) && a.octave == b.octave && a.class_id == b.class_id;
    std::size_t best = 0;
    float best_d = INFINITY;
    for (std::size_t j = 0; j < n; ++j) {
      const float d = squared(&got.descriptors[k * dim], &ref.descriptors[j * dim], dim);
      if (d < best_d) {
        best_d = d;
        best = j;
      }
    }
    matched += best == k;
    identical += a == b && std::equal(&got.descriptors[k * dim], &got.descriptors[(k + 1) * dim], &ref.descriptors[k * dim]);
  }
  std::printf("%s: %zu keypoints, %zu within tolerance, %zu descriptors matched, %zu identical (keypoint and descriptor)\n", what, n,
              close, matched, identical);
  EXPECT_GE(close, n * 99 / 100) << "of " << n;
  EXPECT_GE(matched, n * 95 / 100) << "of " << n;
}

TEST(Surf, ReferenceFindsABlobAtItsCentre) {
  // A dark disc of radius 8 on a bright background: the strongest keypoint is the disc, at its
  // centre, with a filter a little larger than its diameter (the blob response peaks where the
  // filter's centre lobe, size/3 wide, spans the disc: size about 3 * 16 / 2 ... 3 * 16).
  cv::Mat img(96, 96, CV_8U, cv::Scalar(200));
  cv::circle(img, cv::Point(47, 50), 8, cv::Scalar(40), cv::FILLED, cv::LINE_AA);
  const SurfFeatures f = surf_reference(from_mat(img));
  ASSERT_FALSE(f.keypoints.empty());
  const KeyPoint& k = f.keypoints[0];
  EXPECT_NEAR(k.x, 47.0f, 1.0f);
  EXPECT_NEAR(k.y, 50.0f, 1.0f);
  EXPECT_GE(k.size, 16.0f);
  EXPECT_LE(k.size, 48.0f);
  EXPECT_EQ(k.class_id, 1);  // a dark blob: positive Laplacian
  for (std::size_t i = 1; i < f.keypoints.size(); ++i) EXPECT_GE(f.keypoints[i - 1].response, f.keypoints[i].response);
  float norm = 0;
  for (int d = 0; d < 64; ++d) norm += f.descriptors[static_cast<std::size_t>(d)] * f.descriptors[static_cast<std::size_t>(d)];
  EXPECT_NEAR(norm, 1.0f, 1e-5f);
}

TEST(Surf, ReferenceFollowsARotation) {
  // Turning the image by 90 degrees clockwise maps (x, y) to (h - 1 - y, x) and adds 90 degrees to
  // every angle (angles grow clockwise in image coordinates); the descriptor is invariant. The first
  // octave samples every pixel, so its keypoints carry over (the coarser octaves' grids of step 2,
  // 4, ... do not map onto themselves); rounding in the orientation's sampling makes a few differ.
  const cv::Mat img = astronaut(160);
  if (img.empty()) GTEST_SKIP() << "data/astronaut.png is missing";
  cv::Mat turned;
  cv::rotate(img, turned, cv::ROTATE_90_CLOCKWISE);
  SurfParams p;
  p.hessian_threshold = 400;
  const SurfFeatures a = surf_reference(from_mat(img), p);
  const SurfFeatures b = surf_reference(from_mat(turned), p);
  ASSERT_GT(a.keypoints.size(), 20u);
  std::size_t considered = 0, found = 0, angled = 0, described = 0;
  for (std::size_t i = 0; i < a.keypoints.size(); ++i) {
    const KeyPoint& k = a.keypoints[i];
    if (k.octave != 0) continue;
    ++considered;
    const float x = static_cast<float>(img.rows - 1) - k.y, y = k.x;
    for (std::size_t j = 0; j < b.keypoints.size(); ++j) {
      const KeyPoint& m = b.keypoints[j];
      if (std::hypot(m.x - x, m.y - y) > 1.0f || m.size != k.size) continue;
      ++found;
      angled += angle_difference(std::fmod(k.angle + 90.0f, 360.0f), m.angle) <= 3.0f;
      std::size_t best = 0;
      float best_d = INFINITY;
      for (std::size_t q = 0; q < b.keypoints.size(); ++q) {
        const float d = squared(&a.descriptors[i * 64], &b.descriptors[q * 64], 64);
        if (d < best_d) {
          best_d = d;
          best = q;
        }
      }
      described += best == j;
      break;
    }
  }
  ASSERT_GT(considered, 20u);
  EXPECT_GE(found, considered * 9 / 10) << considered << " keypoints";
  EXPECT_GE(angled, found * 9 / 10);
  EXPECT_GE(described, found * 8 / 10);
  std::printf("rotation: %zu first-octave keypoints, %zu found again, %zu angles within 3 degrees, %zu descriptors matched\n", considered,
              found, angled, described);
}

TEST(Surf, DeviceAgreesWithReference) {
  const cv::Mat img = astronaut(200);
  if (img.empty()) GTEST_SKIP() << "data/astronaut.png is missing";
  const HostImage host = from_mat(img);
  SurfParams p;
  const SurfFeatures ref = surf_reference(host, p);
  ASSERT_GT(ref.keypoints.size(), 100u);
  expect_agree(ref, surf(queue(), host, p), "defaults");
}

TEST(Surf, DeviceAgreesWithReferenceOnGraf) {
  // A full-size photograph (800x640): thousands of keypoints over all four octaves.
  const cv::Mat img = read_gray("/usr/share/doc/opencv-doc/examples/data/graf1.png");
  if (img.empty()) GTEST_SKIP() << "opencv-doc's graf1.png is not installed";
  const HostImage host = from_mat(img);
  const SurfFeatures ref = surf_reference(host);
  ASSERT_GT(ref.keypoints.size(), 1000u);
  expect_agree(ref, surf(queue(), host), "graf1");
}

TEST(Surf, DeviceAgreesExtendedUprightAndFewerLayers) {
  const cv::Mat img = astronaut(128);
  if (img.empty()) GTEST_SKIP() << "data/astronaut.png is missing";
  const HostImage host = from_mat(img);
  SurfParams p;
  p.extended = true;
  expect_agree(surf_reference(host, p), surf(queue(), host, p), "extended");
  p.extended = false;
  p.upright = true;
  const SurfFeatures up = surf(queue(), host, p);
  for (const KeyPoint& k : up.keypoints) EXPECT_EQ(k.angle, 270.0f);
  expect_agree(surf_reference(host, p), up, "upright");
  p.upright = false;
  p.n_octaves = 2;
  p.n_octave_layers = 2;
  p.hessian_threshold = 50;
  expect_agree(surf_reference(host, p), surf(queue(), host, p), "2 octaves of 2 layers");
}

TEST(Surf, EveryMethodGivesTheSameResultBitForBit) {
  // The methods change how the work is spread, not the arithmetic or its order: the first
  // kernels (per_pixel), the row Hessian alone (hessian_rows) and the strips (the default) agree
  // with each other exactly, on any device, and with the reference within the tolerances.
  // Upright too (its window is read along other axes).
  const cv::Mat img = astronaut(200);
  if (img.empty()) GTEST_SKIP() << "data/astronaut.png is missing";
  const HostImage host = from_mat(img);
  const DeviceImage device = queue().upload(host);
  for (const bool upright : {false, true}) {
    SurfParams p;
    p.upright = upright;
    const SurfFeatures strips = surf(queue(), device, p, nullptr, SurfMethod::strips);
    ASSERT_GT(strips.keypoints.size(), 100u);
    expect_agree(surf_reference(host, p), strips, upright ? "strips, upright" : "strips");
    for (const SurfMethod m : {SurfMethod::per_pixel, SurfMethod::hessian_rows, SurfMethod::automatic}) {
      const SurfFeatures other = surf(queue(), device, p, nullptr, m);
      EXPECT_EQ(other.keypoints, strips.keypoints) << static_cast<int>(m) << (upright ? " upright" : "");
      EXPECT_EQ(other.descriptors, strips.descriptors) << static_cast<int>(m) << (upright ? " upright" : "");
    }
  }
}

TEST(Surf, DeviceRedoesAnOverfullList) {
  // Noise with threshold 0 gives more keypoints than the first list holds (4096 at this size).
  const HostImage noise = random_image(400, 400, Format{Depth::u8, 1}, 17);
  SurfParams p;
  p.hessian_threshold = 0;
  p.n_octaves = 1;
  const SurfFeatures ref = surf_reference(noise, p);
  ASSERT_GT(ref.keypoints.size(), 4096u);
  expect_agree(ref, surf(queue(), noise, p), "noise, threshold 0");
}

TEST(Surf, NoKeypointsIsAnEmptyResult) {
  const HostImage flat = from_mat(cv::Mat(64, 80, CV_8U, cv::Scalar(128)));
  const SurfFeatures ref = surf_reference(flat);
  const SurfFeatures got = surf(queue(), flat);
  EXPECT_TRUE(ref.keypoints.empty());
  EXPECT_TRUE(got.keypoints.empty());
  EXPECT_TRUE(got.descriptors.empty());
  EXPECT_EQ(got.descriptor_size, 64);
  // A threshold above every response: none either.
  const cv::Mat img = astronaut(64);
  if (img.empty()) return;
  SurfParams p;
  p.hessian_threshold = 1e12;
  EXPECT_TRUE(surf(queue(), from_mat(img), p).keypoints.empty());
}

TEST(Surf, BadInput) {
  const HostImage ok = from_mat(cv::Mat(64, 64, CV_8U, cv::Scalar(10)));
  EXPECT_THROW(surf(queue(), HostImage()), Error);
  EXPECT_THROW(surf_reference(HostImage()), Error);
  const int least = surf_min_image_size(SurfParams{});
  EXPECT_EQ(least, 23);
  const HostImage small = from_mat(cv::Mat(least - 1, 100, CV_8U, cv::Scalar(10)));
  EXPECT_THROW(surf(queue(), small), Error);
  EXPECT_THROW(surf_reference(small), Error);
  EXPECT_NO_THROW(surf(queue(), from_mat(cv::Mat(least, least, CV_8U, cv::Scalar(10)))));
  EXPECT_THROW(surf(queue(), from_mat(cv::Mat(64, 64, CV_8UC3, cv::Scalar(10, 20, 30)))), Error);
  EXPECT_THROW(surf(queue(), from_mat(cv::Mat(64, 64, CV_32F, cv::Scalar(1)))), Error);
  const SurfParams bad[] = {{-1, 4, 3, false, false}, {NAN, 4, 3, false, false}, {100, 0, 3, false, false},
                            {100, 4, 0, false, false}, {100, surf_max_octaves + 1, 3, false, false},
                            {100, 4, surf_max_octave_layers + 1, false, false}};
  for (const SurfParams& p : bad) {
    EXPECT_THROW(surf(queue(), ok, p), Error);
    EXPECT_THROW(surf_reference(ok, p), Error);
  }
}

}  // namespace
}  // namespace plinth::test
