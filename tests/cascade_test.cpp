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
  for (const char* name : {"frontalface_default", "eye", "lbpcascade_frontalface_improved", "frontalface_alt2", "eye_tree_eyeglasses", "fullbody", "profileface"}) {
    const std::string path = find_cascade(name);
    const Cascade cascade = Cascade::load(path);
    for (int mn : {0, 3}) {
      for (CascadeMethod method : {CascadeMethod::simple, CascadeMethod::staged}) {
        DetectOptions o;
        o.min_neighbors = mn;
        if (const char* e = std::getenv("WIN")) { o.min_size = {std::atoi(e), std::atoi(e)}; o.max_size = o.min_size; }
        o.method = method;
        if (method == CascadeMethod::staged && !cascade.model().order_free_sums) continue;
        const auto ours = detect_multi_scale(queue(), cascade, gray, o);
        const auto ref = opencv_detect(path, gray, o);
        int same = 0;
        for (const auto& d : ours) same += std::find(ref.begin(), ref.end(), d) != ref.end();
        if (mn == 0 && method == CascadeMethod::simple) {
          for (const auto& d : ours) if (std::find(ref.begin(), ref.end(), d) == ref.end()) std::printf("  ours only %d,%d %dx%d n%d\n", d.rect.x, d.rect.y, d.rect.width, d.rect.height, d.neighbors);
          for (const auto& d : ref) if (std::find(ours.begin(), ours.end(), d) == ours.end()) std::printf("  cv only %d,%d %dx%d n%d\n", d.rect.x, d.rect.y, d.rect.width, d.rect.height, d.neighbors);
        }
        std::printf("%s mn=%d %s: ours %zu opencv %zu identical %d\n", name, mn, std::string(to_string(method)).c_str(),
                    ours.size(), ref.size(), same);
      }
    }
  }
}

}  // namespace
}  // namespace plinth
#include "ops/cascade_plan.hpp"
#include "ops/resize_jobs.hpp"
#include "core/context_state.hpp"
namespace plinth {
TEST(CascadeDev, AtlasResize) {
  const HostImage gray = read_image(std::string(PLINTH_SOURCE_DIR) + "/data/astronaut.png", ReadMode::gray);
  const Cascade cascade = Cascade::load(find_cascade("eye"));
  auto jobs = detail::plan_scales(cascade.model(), gray.size(), 0, DetectOptions{});
  auto plan = detail::pack_plan({gray.size()}, jobs);
  DeviceImage atlas(test::context(), plan.atlas.width, plan.atlas.height, Format{Depth::u8, 1});
  std::vector<detail::ResizeJob> rj;
  for (auto& j : plan.jobs) rj.push_back({j.size, (std::int64_t)j.atlas_y * atlas.pitch_elements() + j.atlas_x});
  auto table = detail::pack_resize_jobs(rj);
  auto buf = detail::context_state(test::context())->device->allocate(table.size() * 4);
  detail::queue_state(queue()).impl->write_rect(*buf, detail::BufferRect{0, table.size() * 4}, table.data(), table.size() * 4, table.size() * 4, 1, true);
  const DeviceImage src = queue().upload(gray);
  detail::launch_resize_jobs(queue(), src, *atlas.buffer(), (int)atlas.pitch_elements(), rj, *buf, Interpolation::linear_exact);
  HostImage a = queue().download(atlas);
  for (auto& j : plan.jobs) {
    cv::Mat ref; cv::resize(test::as_mat(gray), ref, cv::Size(j.size.width, j.size.height), 0, 0, cv::INTER_LINEAR_EXACT);
    HostImage got = a.view(Rect{j.atlas_x, j.atlas_y, j.size.width, j.size.height}).clone();
    cv::Mat d; cv::absdiff(ref, test::as_mat(got), d);
    std::printf("scale %.4f size %dx%d at %d,%d step %d nx %d ny %d: diff %d\n", j.scale, j.size.width, j.size.height, j.atlas_x, j.atlas_y, j.step, j.nx, j.ny, cv::countNonZero(d));
  }
}
}
namespace plinth {
TEST(CascadeDev, IntegralBig) {
  const HostImage img = test::random_image(1000, 1700, Format{Depth::u8, 1}, 5);
  IntegralOptions io; io.sum_depth = Depth::s32; io.sqsum_depth = Depth::s32;
  auto r = integral(queue(), img, true, false, io);
  cv::Mat s, q;
  cv::integral(test::as_mat(img), s, q, CV_32S, CV_64F);
  long bad_s = 0, bad_q = 0;
  for (int y = 0; y <= img.height(); ++y) for (int x = 0; x <= img.width(); ++x) {
    if (r.sum.at<int>(x, y) != s.at<int>(y, x)) ++bad_s;
    if ((std::uint32_t)r.sqsum.at<int>(x, y) != (std::uint32_t)(std::uint64_t)q.at<double>(y, x)) ++bad_q;
  }
  std::printf("bad sum %ld sq %ld\n", bad_s, bad_q);
  cv::Mat s2, q2; cv::integral(test::as_mat(img), s2, q2, CV_32S, CV_32S);
  long bad2 = 0; for (int y = 0; y <= img.height(); ++y) for (int x = 0; x <= img.width(); ++x) if ((std::uint32_t)q2.at<int>(y,x) != (std::uint32_t)(std::uint64_t)q.at<double>(y, x)) ++bad2;
  std::printf("opencv s32 sq vs f64 mod 2^32 mismatches %ld\n", bad2);
}
}
