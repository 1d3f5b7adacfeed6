// detect_multi_scale against OpenCV 4.6's CascadeClassifier (CPU, OpenCL off) on real photographs
// and video frames: Debian's opencv-doc samples (messi5.jpg, Megamind.avi, vtest.avi) and the
// bundled astronaut. The data set is required: a missing file fails the test with the package
// that provides it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <opencv2/core/ocl.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <opencv2/videoio.hpp>
#include <random>
#include <tuple>

#include "ops/cascade_model.hpp"
#include "ops/cascade_plan.hpp"
#include "plinth/cascade.hpp"
#include "support/test_support.hpp"

namespace plinth {
namespace {

using test::queue;

constexpr const char* kOpencvDoc = "/usr/share/doc/opencv-doc/examples/data";

bool detection_less(const Detection& a, const Detection& b) {
  return std::tie(a.rect.y, a.rect.x, a.rect.width, a.rect.height, a.neighbors) <
         std::tie(b.rect.y, b.rect.x, b.rect.width, b.rect.height, b.neighbors);
}

std::vector<Detection> opencv_detect(cv::CascadeClassifier& c, const HostImage& gray, const DetectOptions& o) {
  cv::ocl::setUseOpenCL(false);
  std::vector<cv::Rect> rects;
  std::vector<int> neighbors;
  c.detectMultiScale(test::as_mat(gray), rects, neighbors, o.scale_factor, o.min_neighbors, 0,
                     cv::Size(o.min_size.width, o.min_size.height), cv::Size(o.max_size.width, o.max_size.height));
  std::vector<Detection> out;
  for (std::size_t i = 0; i < rects.size(); ++i) {
    out.push_back({Rect{rects[i].x, rects[i].y, rects[i].width, rects[i].height}, neighbors[i]});
  }
  std::sort(out.begin(), out.end(), detection_less);
  return out;
}

double iou(const Rect& a, const Rect& b) {
  const int x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
  const int x1 = std::min(a.x + a.width, b.x + b.width), y1 = std::min(a.y + a.height, b.y + b.height);
  const double inter = std::max(0, x1 - x0) * static_cast<double>(std::max(0, y1 - y0));
  const double uni = static_cast<double>(a.width) * a.height + static_cast<double>(b.width) * b.height - inter;
  return uni > 0 ? inter / uni : 0.0;
}

// Greedy one-to-one matching at IoU >= 0.5, best pairs first.
int matched_pairs(const std::vector<Detection>& ours, const std::vector<Detection>& ref) {
  std::vector<std::tuple<double, int, int>> pairs;
  for (int i = 0; i < static_cast<int>(ours.size()); ++i) {
    for (int j = 0; j < static_cast<int>(ref.size()); ++j) {
      const double v = iou(ours[i].rect, ref[j].rect);
      if (v >= 0.5) pairs.emplace_back(v, i, j);
    }
  }
  std::sort(pairs.rbegin(), pairs.rend());
  std::vector<bool> used_o(ours.size()), used_r(ref.size());
  int n = 0;
  for (const auto& [v, i, j] : pairs) {
    if (used_o[i] || used_r[j]) continue;
    used_o[i] = used_r[j] = true;
    ++n;
  }
  return n;
}

struct Sample {
  std::string name;
  HostImage gray;
};

std::string require(const std::string& path, const char* package) {
  if (!std::filesystem::is_regular_file(path)) {
    ADD_FAILURE() << "test data missing: " << path << " (install Debian's " << package << " package)";
  }
  return path;
}

HostImage frame_of(const std::string& video, int index) {
  cv::VideoCapture capture(video);
  cv::Mat frame;
  for (int i = 0; i <= index; ++i) {
    if (!capture.read(frame)) {
      ADD_FAILURE() << "cannot read frame " << index << " of " << video;
      return {};
    }
  }
  cv::Mat gray;
  cv::cvtColor(frame, gray, cv::COLOR_BGR2GRAY);
  return test::from_mat(gray);
}

// Photographs and video frames with faces, eyes, profiles and walking people.
const std::vector<Sample>& samples() {
  static const std::vector<Sample> all = [] {
    std::vector<Sample> s;
    const std::string doc = kOpencvDoc;
    s.push_back({"astronaut.png", read_image(std::string(PLINTH_SOURCE_DIR) + "/data/astronaut.png", ReadMode::gray)});
    // Colour conversion happens on the host (read_image's grey equals cv::cvtColor).
    const std::string messi = require(doc + "/messi5.jpg", "opencv-doc");
    const std::string megamind = require(doc + "/Megamind.avi", "opencv-doc");
    const std::string vtest = require(doc + "/vtest.avi", "opencv-doc");
    if (std::filesystem::is_regular_file(messi)) s.push_back({"messi5.jpg", read_image(messi, ReadMode::gray)});
    if (std::filesystem::is_regular_file(megamind)) {
      for (int f : {0, 90, 180}) s.push_back({"Megamind.avi#" + std::to_string(f), frame_of(megamind, f)});
    }
    if (std::filesystem::is_regular_file(vtest)) {
      for (int f : {0, 400}) s.push_back({"vtest.avi#" + std::to_string(f), frame_of(vtest, f)});
    }
    return s;
  }();
  return all;
}

struct Agreement {
  int reference = 0, ours = 0, matched = 0, identical = 0;
};

// One batch call for every sample; OpenCV image by image.
Agreement agree(const std::string& name, const DetectOptions& options) {
  const std::string path = find_cascade(name);
  const Cascade cascade = Cascade::load(path);
  cv::CascadeClassifier reference(path);
  EXPECT_FALSE(reference.empty());
  std::vector<HostImage> grays;
  for (const Sample& s : samples()) grays.push_back(s.gray);
  const auto ours = detect_multi_scale(queue(), cascade, grays, options);
  Agreement a;
  for (std::size_t i = 0; i < grays.size(); ++i) {
    const auto ref = opencv_detect(reference, grays[i], options);
    a.reference += static_cast<int>(ref.size());
    a.ours += static_cast<int>(ours[i].size());
    a.matched += matched_pairs(ours[i], ref);
    for (const Detection& d : ours[i]) a.identical += std::binary_search(ref.begin(), ref.end(), d, detection_less);
  }
  return a;
}

class CascadeAgreement : public ::testing::TestWithParam<const char*> {};

// The issue's criterion: >= 99% of OpenCV's rectangles matched at IoU >= 0.5 and <= 1% of ours
// unmatched; exactness (same rectangles, same neighbour counts) is reported and expected.
TEST_P(CascadeAgreement, MatchesOpenCVOnPhotosAndVideoFrames) {
  DetectOptions options;  // scale 1.1, 3 neighbours, as detectMultiScale's defaults
  const Agreement a = agree(GetParam(), options);
  std::printf("[agreement] %-34s opencv %3d ours %3d matched %3d (%.1f%%) identical %3d over %zu images\n", GetParam(),
              a.reference, a.ours, a.matched, a.reference ? 100.0 * a.matched / a.reference : 100.0, a.identical,
              samples().size());
  EXPECT_GT(a.reference, 0) << "the data set should give OpenCV something to find";
  EXPECT_GE(a.matched, 0.99 * a.reference);
  EXPECT_LE(a.ours - a.matched, 0.01 * a.ours);
  EXPECT_EQ(a.identical, a.reference);
  EXPECT_EQ(a.ours, a.reference);

  // The same before grouping: every window that passes the cascade (clipped, neighbours 1).
  options.min_neighbors = 0;
  const Agreement raw = agree(GetParam(), options);
  std::printf("[agreement] %-34s raw windows: opencv %5d ours %5d identical %5d\n", GetParam(), raw.reference, raw.ours,
              raw.identical);
  EXPECT_EQ(raw.identical, raw.reference);
  EXPECT_EQ(raw.ours, raw.reference);
}

INSTANTIATE_TEST_SUITE_P(Cascades, CascadeAgreement,
                         ::testing::Values("frontalface_default", "frontalface_alt2", "eye", "eye_tree_eyeglasses",
                                           "fullbody", "profileface", "lbpcascade_frontalface_improved"),
                         [](const auto& param_info) { return std::string(param_info.param); });

// Every window that passes, before grouping (OpenCV's detectMultiScale with minNeighbors 0),
// for both evaluation methods.
TEST(Cascade, RawWindowsAreOpenCVsForBothMethods) {
  const HostImage& gray = samples().front().gray;
  for (const char* name : {"frontalface_default", "eye_tree_eyeglasses", "lbpcascade_frontalface_improved"}) {
    SCOPED_TRACE(name);
    const std::string path = find_cascade(name);
    const Cascade cascade = Cascade::load(path);
    cv::CascadeClassifier reference(path);
    DetectOptions o;
    o.min_neighbors = 0;
    const auto ref = opencv_detect(reference, gray, o);
    for (CascadeMethod method : {CascadeMethod::simple, CascadeMethod::staged}) {
      o.method = method;
      EXPECT_EQ(detect_multi_scale(queue(), cascade, gray, o), ref) << to_string(method);
    }
  }
}

// The staged schedule's variants give OpenCV's raw windows: warps from stage 1 (every survivor
// of stage 0), from stage 3, and never (one work-item per window to the end, as on CPUs). A crop
// of the astronaut around the face keeps the warps' emulation on CPUs quick.
TEST(Cascade, StagedScheduleVariantsGiveOpenCVsWindows) {
  const HostImage& full = samples().front().gray;
  HostImage gray(256, 256, Format{Depth::u8, 1});
  for (int y = 0; y < 256; ++y) {
    for (int x = 0; x < 256; ++x) gray.at<std::uint8_t>(x, y) = full.at<std::uint8_t>(x + 96, y);
  }
  for (const char* name : {"frontalface_default", "eye_tree_eyeglasses", "fullbody", "lbpcascade_frontalface_improved"}) {
    SCOPED_TRACE(name);
    const std::string path = find_cascade(name);
    const Cascade cascade = Cascade::load(path);
    cv::CascadeClassifier reference(path);
    DetectOptions o;
    o.min_neighbors = 0;
    const auto ref = opencv_detect(reference, gray, o);
    o.method = CascadeMethod::staged;
    for (int from : {1, 3, 1000}) {
      o.cooperative_from = from;
      EXPECT_EQ(detect_multi_scale(queue(), cascade, gray, o), ref) << "warps from stage " << from;
    }
  }
}

// A crafted two-stage cascade that many windows pass: more final windows than the first
// download holds, a stage-0 pattern that makes OpenCV skip windows, and the shortest schedules
// (stage 0, then one more stage one work-item or one warp per window).
TEST(Cascade, ManyWindowsAndShortCascades) {
  const auto stage = [](const std::string& feature, const std::string& leaves) {
    return "<_><maxWeakCount>1</maxWeakCount><stageThreshold>-0.5</stageThreshold><weakClassifiers><_><internalNodes>0 -1 " +
           feature + " 0.</internalNodes><leafValues>" + leaves + "</leafValues></_></weakClassifiers></_>";
  };
  const std::string xml =
      "<?xml version=\"1.0\"?>\n<opencv_storage>\n<cascade type_id=\"opencv-cascade-classifier\">"
      "<stageType>BOOST</stageType><featureType>HAAR</featureType><height>8</height><width>8</width>"
      "<stageParams><maxWeakCount>1</maxWeakCount></stageParams><featureParams><maxCatCount>0</maxCatCount></featureParams>"
      "<stageNum>2</stageNum><stages>" +
      stage("0", "-1. 1.") + stage("1", "1. -1.") +
      "</stages><features><_><rects><_>1 1 6 3 -1.</_><_>1 4 6 3 1.</_></rects></_>"
      "<_><rects><_>1 1 3 6 -1.</_><_>4 1 3 6 1.</_></rects></_></features></cascade>\n</opencv_storage>\n";
  const auto dir = std::filesystem::temp_directory_path() / "plinth_cascade_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "two_stages.xml").string();
  std::ofstream(path) << xml;
  const Cascade cascade = Cascade::load(path);
  cv::CascadeClassifier reference(path);
  ASSERT_FALSE(reference.empty());
  const HostImage gray = test::random_image(211, 157, Format{Depth::u8, 1}, 5);
  DetectOptions o;
  o.min_neighbors = 0;
  const auto ref = opencv_detect(reference, gray, o);
  EXPECT_GT(ref.size(), 4096u) << "the download of the first windows should not hold them all";
  for (CascadeMethod method : {CascadeMethod::simple, CascadeMethod::staged}) {
    for (int from : {1, 1000}) {
      o.method = method;
      o.cooperative_from = from;
      EXPECT_EQ(detect_multi_scale(queue(), cascade, gray, o), ref) << to_string(method) << " warps from " << from;
    }
  }
}

// The phases of a call: named, timed, and the last pass's window count is the candidates'.
TEST(Cascade, PhasesCountTheWindows) {
  const Cascade cascade = Cascade::load(find_cascade("frontalface_default"));
  const DeviceImage d = queue().upload(samples().front().gray);
  queue().set_timing(true);
  struct TimingOff {
    ~TimingOff() { queue().set_timing(false); }
  } timing_off;
  for (CascadeMethod method : {CascadeMethod::simple, CascadeMethod::staged}) {
    SCOPED_TRACE(to_string(method));
    DetectOptions o;
    o.method = method;
    o.cooperative_from = 3;
    DetectionBatch batch;
    detect_multi_scale(queue(), cascade, std::span<const DeviceImage>(&d, 1), batch, o);
    const auto& phases = batch.phases();
    ASSERT_GE(phases.size(), 5u);
    EXPECT_EQ(phases.front().name, "setup");
    EXPECT_EQ(phases.back().name, "download");
    const DetectionPhase& last_pass = phases[phases.size() - 2];
    EXPECT_EQ(last_pass.windows, batch.candidates()[0].size());
    std::uint64_t previous = ~std::uint64_t{0};
    for (const DetectionPhase& p : phases) {
      EXPECT_TRUE(p.event.valid()) << p.name;
      if (p.event.valid()) {
        EXPECT_GE(p.event.elapsed_us(), 0.0);
      }
      if (p.name.rfind("stage", 0) == 0) {
        EXPECT_LE(p.windows, previous) << p.name;  // each pass keeps some of its input
        previous = p.windows;
      }
    }
    EXPECT_GE(batch.grouping_us(), 0.0);
  }
}

TEST(Cascade, OptionsFollowOpenCV) {
  const HostImage& gray = samples().front().gray;
  const std::string path = find_cascade("frontalface_default");
  const Cascade cascade = Cascade::load(path);
  cv::CascadeClassifier reference(path);
  std::vector<DetectOptions> cases(5);
  cases[0].scale_factor = 1.3;
  cases[1].min_neighbors = 1;
  cases[2].min_size = {60, 60};
  cases[3].max_size = {80, 120};
  cases[4].scale_factor = 1.05;
  cases[4].min_neighbors = 6;
  cases[4].min_size = {50, 40};
  for (const DetectOptions& o : cases) {
    SCOPED_TRACE(std::to_string(o.scale_factor) + " " + std::to_string(o.min_neighbors));
    EXPECT_EQ(detect_multi_scale(queue(), cascade, gray, o), opencv_detect(reference, gray, o));
  }
}

TEST(Cascade, GroupRectanglesMatchesOpenCV) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<Rect> rects;
    std::vector<cv::Rect> cv_rects;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const int cluster = static_cast<int>(rng() % 4);
      const int size = 20 + cluster * 15 + static_cast<int>(rng() % 6);
      const Rect r{cluster * 40 + static_cast<int>(rng() % 7), cluster * 25 + static_cast<int>(rng() % 7), size, size};
      rects.push_back(r);
      cv_rects.emplace_back(r.x, r.y, r.width, r.height);
    }
    const int threshold = static_cast<int>(rng() % 5);
    std::vector<int> weights;
    cv::groupRectangles(cv_rects, weights, threshold, 0.2);
    std::vector<Detection> expected;
    for (std::size_t i = 0; i < cv_rects.size(); ++i) {
      expected.push_back({Rect{cv_rects[i].x, cv_rects[i].y, cv_rects[i].width, cv_rects[i].height}, weights[i]});
    }
    auto got = group_rectangles(rects, threshold, 0.2);
    std::sort(expected.begin(), expected.end(), detection_less);
    std::sort(got.begin(), got.end(), detection_less);
    EXPECT_EQ(got, expected) << "round " << round;
  }
}

TEST(Cascade, BatchReuseAndTinyImages) {
  const Cascade cascade = Cascade::load(find_cascade("frontalface_default"));
  cv::CascadeClassifier reference(find_cascade("frontalface_default"));
  const HostImage& astronaut = samples().front().gray;
  DetectionBatch batch;
  const DeviceImage d = queue().upload(astronaut);
  for (int round = 0; round < 2; ++round) {
    const DeviceImage small = queue().upload(test::random_image(5, 3, Format{Depth::u8, 1}, 1));
    const DeviceImage one = queue().upload(test::random_image(1, 1, Format{Depth::u8, 1}, 2));
    std::vector<DeviceImage> images{small, d, one};
    detect_multi_scale(queue(), cascade, images, batch).wait();
    const auto& r = batch.results();
    ASSERT_EQ(r.size(), 3u);
    EXPECT_TRUE(r[0].empty());
    EXPECT_EQ(r[1], opencv_detect(reference, astronaut, DetectOptions{}));
    EXPECT_TRUE(r[2].empty());
    EXPECT_FALSE(batch.candidates()[1].empty());
  }
}

// Issue 15: a factor of 1e8 made the window overflow int and the ladder loop forever.
TEST(Cascade, HugeScaleFactorsEndTheScaleLadder) {
  const Cascade cascade = Cascade::load(find_cascade("frontalface_default"));
  for (const double factor : {1e8, 1e30, 1e300}) {
    DetectOptions o;
    o.scale_factor = factor;
    const std::vector<detail::ScaleJob> jobs = detail::plan_scales(cascade.model(), Size{512, 512}, 0, o);
    ASSERT_EQ(jobs.size(), 1u) << factor;
    EXPECT_EQ(jobs[0].scale, 1.0f);
  }
  DetectOptions o;
  o.scale_factor = 1e8;
  const DeviceImage gray = queue().upload(samples().front().gray);
  DetectionBatch batch;
  detect_multi_scale(queue(), cascade, std::span<const DeviceImage>(&gray, 1), batch, o).wait();
  // OpenCV's own loop does not end at 1e8 (cvRound overflows too); a factor of 100 gives it the
  // same single scale on this photo.
  cv::CascadeClassifier reference(find_cascade("frontalface_default"));
  DetectOptions same = o;
  same.scale_factor = 100;
  EXPECT_EQ(batch.results().front(), opencv_detect(reference, samples().front().gray, same));
}

TEST(Cascade, RejectsBadArguments) {
  const Cascade cascade = Cascade::load(find_cascade("frontalface_default"));
  const DeviceImage gray = queue().upload(test::random_image(64, 64, Format{Depth::u8, 1}, 3));
  const DeviceImage rgb = queue().upload(test::random_image(64, 64, Format{Depth::u8, 3}, 3));
  const DeviceImage f32 = queue().upload(test::random_image(64, 64, Format{Depth::f32, 1}, 3));
  DetectionBatch batch;
  const auto run = [&](const DeviceImage& img, DetectOptions o) {
    std::vector<DeviceImage> v{img};
    detect_multi_scale(queue(), cascade, v, batch, o);
  };
  DetectOptions o;
  EXPECT_TRUE(test::throws_code([&] { run(rgb, o); }, ErrorCode::unsupported_type));
  EXPECT_TRUE(test::throws_code([&] { run(f32, o); }, ErrorCode::unsupported_type));
  o.scale_factor = 1.0;
  EXPECT_TRUE(test::throws_code([&] { run(gray, o); }, ErrorCode::invalid_argument));
  o.scale_factor = 1.0 + 1e-9;
  EXPECT_TRUE(test::throws_code([&] { run(gray, o); }, ErrorCode::out_of_range));
  o = DetectOptions{};
  o.min_neighbors = -1;
  EXPECT_TRUE(test::throws_code([&] { run(gray, o); }, ErrorCode::invalid_argument));
  o = DetectOptions{};
  o.min_size = {-1, 5};
  EXPECT_TRUE(test::throws_code([&] { run(gray, o); }, ErrorCode::invalid_argument));
  o = DetectOptions{};
  o.cooperative_from = -1;
  EXPECT_TRUE(test::throws_code([&] { run(gray, o); }, ErrorCode::invalid_argument));
  std::vector<DeviceImage> none;
  EXPECT_TRUE(test::throws_code([&] { detect_multi_scale(queue(), cascade, none, batch); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(test::throws_code([&] { detect_multi_scale(queue(), Cascade{}, std::span<const DeviceImage>(&gray, 1), batch); },
                                ErrorCode::invalid_argument));
  EXPECT_TRUE(test::throws_code([&] { DetectionBatch fresh; fresh.results(); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(test::throws_code([&] { find_cascade("no_such_cascade_anywhere"); }, ErrorCode::io));
  o = DetectOptions{};
  o.method = CascadeMethod::staged;
  EXPECT_NO_THROW(run(gray, o));
  EXPECT_EQ(parse_cascade_method("staged"), CascadeMethod::staged);
  EXPECT_TRUE(test::throws_code([&] { parse_cascade_method("fast"); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth
