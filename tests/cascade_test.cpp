// detect_multi_scale against OpenCV 4.6's CascadeClassifier (CPU, OpenCL off).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <opencv2/core/ocl.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <opencv2/videoio.hpp>

#include "ops/cascade_model.hpp"
#include "plinth/cascade.hpp"
#include "support/test_support.hpp"

namespace plinth {
namespace {

using test::queue;

std::vector<Detection> opencv_detect(const std::string& cascade, const HostImage& gray, const DetectOptions& o) {
  cv::ocl::setUseOpenCL(false);
  cv::CascadeClassifier c(cascade);
  EXPECT_FALSE(c.empty()) << cascade;
  std::vector<cv::Rect> rects;
  std::vector<int> neighbors;
  c.detectMultiScale(test::as_mat(gray), rects, neighbors, o.scale_factor, o.min_neighbors, 0,
                     cv::Size(o.min_size.width, o.min_size.height), cv::Size(o.max_size.width, o.max_size.height));
  std::vector<Detection> out;
  for (std::size_t i = 0; i < rects.size(); ++i) out.push_back({Rect{rects[i].x, rects[i].y, rects[i].width, rects[i].height}, neighbors[i]});
  std::sort(out.begin(), out.end(), [](const Detection& a, const Detection& b) {
    return std::tie(a.rect.y, a.rect.x, a.rect.width, a.rect.height, a.neighbors) <
           std::tie(b.rect.y, b.rect.x, b.rect.width, b.rect.height, b.neighbors);
  });
  return out;
}

TEST(CascadeDev, Astronaut) {
  const HostImage gray = read_image(std::string(PLINTH_SOURCE_DIR) + "/data/astronaut.png", ReadMode::gray);
  for (const char* name : {"frontalface_default", "eye", "lbpcascade_frontalface_improved", "frontalface_alt2", "eye_tree_eyeglasses"}) {
    const std::string path = find_cascade(name);
    const Cascade cascade = Cascade::load(path);
    for (int mn : {0, 3}) {
      for (CascadeMethod method : {CascadeMethod::simple, CascadeMethod::staged}) {
        DetectOptions o;
        o.min_neighbors = mn;
        o.method = method;
        if (method == CascadeMethod::staged && !cascade.model().order_free_sums) continue;
        const auto ours = detect_multi_scale(queue(), cascade, gray, o);
        const auto ref = opencv_detect(path, gray, o);
        int same = 0;
        for (const auto& d : ours) same += std::find(ref.begin(), ref.end(), d) != ref.end();
        std::printf("%s mn=%d %s: ours %zu opencv %zu identical %d\n", name, mn, std::string(to_string(method)).c_str(),
                    ours.size(), ref.size(), same);
      }
    }
  }
}

}  // namespace
}  // namespace plinth
