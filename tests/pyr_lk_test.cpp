// calc_optical_flow_pyr_lk (OpenCV's methods: opencv, opencv_int_sums, opencv_fused, opencv_item, auto) against OpenCV 4.6's cv::calcOpticalFlowPyrLK, bit for
// bit (the pyramids: tests/optical_flow_pyramid_test.cpp): next points, status and
// err, over window sizes, pyramid depths, points near and outside the borders, initial flow,
// min-eigenvalue output and real video frames. Method seed against a known synthetic translation.
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

// A textured frame: seeded noise smoothed so that gradients vary at several scales.
cv::Mat textured(int width, int height, std::uint32_t seed) {
  const HostImage noise = random_image(width, height, Format{Depth::u8, 1}, seed);
  cv::Mat smooth, fine;
  cv::GaussianBlur(as_mat(noise), smooth, cv::Size(0, 0), 2.5);
  cv::GaussianBlur(as_mat(noise), fine, cv::Size(0, 0), 0.8);
  cv::Mat out;
  cv::addWeighted(smooth, 3.0, fine, 0.5, -200.0, out);
  return out;
}

// The frame moved by (dx, dy) with a slight rotation (bilinear resampling).
cv::Mat moved(const cv::Mat& src, double dx, double dy, double degrees) {
  cv::Mat m = cv::getRotationMatrix2D(cv::Point2f(static_cast<float>(src.cols) * 0.5f, static_cast<float>(src.rows) * 0.5f), degrees, 1.0);
  m.at<double>(0, 2) += dx;
  m.at<double>(1, 2) += dy;
  cv::Mat out;
  cv::warpAffine(src, out, m, src.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT_101);
  return out;
}

// Random points over the frame, points on and just past every border, far outside, NaN.
std::vector<Point2f> test_points(int width, int height, int count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> ux(0.0f, static_cast<float>(width - 1)), uy(0.0f, static_cast<float>(height - 1));
  std::vector<Point2f> pts;
  for (int i = 0; i < count; ++i) pts.push_back({ux(rng), uy(rng)});
  const float w = static_cast<float>(width), h = static_cast<float>(height);
  for (float x : {-30.0f, -11.0f, -3.5f, -0.25f, 0.0f, 0.5f, 2.0f, 9.75f, w - 10.0f, w - 2.5f, w - 1.0f, w - 0.5f, w, w + 4.0f,
                  w + 12.0f, w + 40.0f}) {
    pts.push_back({x, uy(rng)});
    pts.push_back({ux(rng), x * h / w});
  }
  pts.push_back({1e10f, 5.0f});
  pts.push_back({-7.0f, -7.0f});
  pts.push_back({w + 30.0f, h + 30.0f});
  pts.push_back({std::nanf(""), 10.0f});
  return pts;
}

bool same_float(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// OpenCV's algorithm on the device: every method must give OpenCV's bits.
constexpr PyrLkMethod kOpenCvMethods[] = {PyrLkMethod::opencv, PyrLkMethod::opencv_int_sums, PyrLkMethod::opencv_fused,
                                          PyrLkMethod::opencv_item, PyrLkMethod::automatic};

struct Track {
  cv::Size win{21, 21};
  int max_level = 3;
  int flags = 0;
  cv::TermCriteria criteria{cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 30, 0.01};
  double min_eig = 1e-4;
};

// Tracks with both libraries and compares every output bit for bit. OpenCV leaves err unwritten
// for points lost after their first window check; its err array is zeroed first, as plinth
// writes 0 there. Returns the number of points tracked.
int compare(const cv::Mat& prev, const cv::Mat& next, const std::vector<Point2f>& pts, const Track& r,
            const std::vector<Point2f>& initial = {}) {
  std::vector<cv::Point2f> cv_pts, cv_next;
  for (const Point2f& p : pts) cv_pts.emplace_back(p.x, p.y);
  for (const Point2f& p : initial) cv_next.emplace_back(p.x, p.y);
  std::vector<uchar> cv_status;
  std::vector<float> cv_err(pts.size(), 0.0f);
  cv::calcOpticalFlowPyrLK(prev, next, cv_pts, cv_next, cv_status, cv_err, r.win, r.max_level, r.criteria, r.flags, r.min_eig);

  PyrLkParams params;
  params.win_size = {r.win.width, r.win.height};
  params.max_level = r.max_level;
  params.criteria = TermCriteria{r.criteria.type, r.criteria.maxCount, r.criteria.epsilon};
  params.flags = r.flags;
  params.min_eig_threshold = r.min_eig;
  int tracked = 0;
  const DeviceImage d_prev = queue().upload(from_mat(prev)), d_next = queue().upload(from_mat(next));
  for (PyrLkMethod method : kOpenCvMethods) {
    SCOPED_TRACE("method " + std::string(to_string(method)));
    params.method = method;
    std::vector<Point2f> next_pts = initial;
    std::vector<std::uint8_t> status;
    std::vector<float> err;
    calc_optical_flow_pyr_lk(queue(), d_prev, d_next, pts, next_pts, status, err, params);
    EXPECT_EQ(next_pts.size(), pts.size());
    EXPECT_EQ(status.size(), pts.size());
    EXPECT_EQ(err.size(), pts.size());
    int reported = 0;
    tracked = 0;
    for (std::size_t i = 0; i < pts.size() && i < next_pts.size(); ++i) {
      tracked += cv_status[i];
      const bool ok = same_float(cv_next[i].x, next_pts[i].x) && same_float(cv_next[i].y, next_pts[i].y) &&
                      cv_status[i] == status[i] && same_float(cv_err[i], err[i]);
      if (!ok && reported++ < 5) {
        ADD_FAILURE() << "point " << i << " (" << pts[i].x << ", " << pts[i].y << "): OpenCV (" << cv_next[i].x << ", "
                      << cv_next[i].y << ") status " << int(cv_status[i]) << " err " << cv_err[i] << "; plinth ("
                      << next_pts[i].x << ", " << next_pts[i].y << ") status " << int(status[i]) << " err " << err[i];
      }
    }
    EXPECT_EQ(reported, 0) << reported << " of " << pts.size() << " points differ";
  }
  return tracked;
}

std::string describe(cv::Size win, int level) {
  return "win " + std::to_string(win.width) + "x" + std::to_string(win.height) + " maxLevel " + std::to_string(level);
}

TEST(PyrLk, WindowSizesMatchOpenCV) {
  const cv::Mat prev = textured(160, 120, 1);
  const cv::Mat next = moved(prev, 2.6, -1.7, 1.5);
  const std::vector<Point2f> pts = test_points(prev.cols, prev.rows, 400, 2);
  for (cv::Size win : {cv::Size{3, 3}, cv::Size{5, 5}, cv::Size{7, 7}, cv::Size{8, 8}, cv::Size{9, 13}, cv::Size{12, 9},
                       cv::Size{15, 15}, cv::Size{16, 16}, cv::Size{21, 21}, cv::Size{24, 17}, cv::Size{31, 31},
                       cv::Size{41, 41}}) {  // 41x41: the largest window of the integer-sum methods
    SCOPED_TRACE(describe(win, 2));
    Track r;
    r.win = win;
    r.max_level = 2;
    EXPECT_GT(compare(prev, next, pts, r), 60);
  }
}

TEST(PyrLk, LevelsMatchOpenCV) {
  const cv::Mat prev = textured(203, 151, 3);
  const cv::Mat next = moved(prev, -7.3, 4.1, -2.0);
  const std::vector<Point2f> pts = test_points(prev.cols, prev.rows, 400, 4);
  for (int max_level = 0; max_level <= 5; ++max_level) {
    for (cv::Size win : {cv::Size{7, 7}, cv::Size{21, 21}}) {
      SCOPED_TRACE(describe(win, max_level));
      Track r;
      r.win = win;
      r.max_level = max_level;
      compare(prev, next, pts, r);
    }
  }
}

TEST(PyrLk, FlagsAndCriteriaMatchOpenCV) {
  const cv::Mat prev = textured(150, 110, 5);
  const cv::Mat next = moved(prev, 3.2, 2.4, 3.0);
  const std::vector<Point2f> pts = test_points(prev.cols, prev.rows, 400, 6);
  std::vector<Point2f> guess;
  for (const Point2f& p : pts) guess.push_back({p.x + 2.5f, p.y + 2.0f});
  {
    SCOPED_TRACE("min eigenvalues");
    Track r;
    r.flags = cv::OPTFLOW_LK_GET_MIN_EIGENVALS;
    compare(prev, next, pts, r);
  }
  {
    SCOPED_TRACE("initial flow");
    Track r;
    r.flags = cv::OPTFLOW_USE_INITIAL_FLOW;
    compare(prev, next, pts, r, guess);
  }
  {
    SCOPED_TRACE("initial flow and min eigenvalues");
    Track r;
    r.flags = cv::OPTFLOW_USE_INITIAL_FLOW | cv::OPTFLOW_LK_GET_MIN_EIGENVALS;
    compare(prev, next, pts, r, guess);
  }
  const cv::TermCriteria criteria[] = {{cv::TermCriteria::COUNT, 3, 0.0},
                                       {cv::TermCriteria::EPS, 0, 0.1},
                                       {cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 200, 1e-4},
                                       {cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 0, 0.01},
                                       {cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 10, 20.0}};
  for (const cv::TermCriteria& c : criteria) {
    SCOPED_TRACE("criteria type " + std::to_string(c.type) + " count " + std::to_string(c.maxCount) + " eps " +
                 std::to_string(c.epsilon));
    Track r;
    r.criteria = c;
    compare(prev, next, pts, r);
  }
  for (double threshold : {0.0, 1e-2, 0.5}) {
    SCOPED_TRACE("minEigThreshold " + std::to_string(threshold));
    Track r;
    r.min_eig = threshold;
    compare(prev, next, pts, r);
  }
}

// Flat and nearly flat frames: points lost for small eigenvalues; a frame pair that does not
// match: points lost in the iterations.
TEST(PyrLk, LostPointsMatchOpenCV) {
  cv::Mat flat(90, 120, CV_8U, cv::Scalar(77));
  cv::Mat ramp(90, 120, CV_8U);
  for (int y = 0; y < ramp.rows; ++y) {
    for (int x = 0; x < ramp.cols; ++x) ramp.at<uchar>(y, x) = static_cast<uchar>((x * 2 + (y > 45 ? 1 : 0)) & 255);
  }
  const cv::Mat other = textured(120, 90, 8);
  const std::vector<Point2f> pts = test_points(120, 90, 60, 9);
  Track r;
  compare(flat, flat, pts, r);
  compare(ramp, moved(ramp, 1.5, 0.0, 0.0), pts, r);
  compare(textured(120, 90, 7), other, pts, r);
}

HostImage frame(const std::string& name) {
  return read_image(std::string(PLINTH_SOURCE_DIR) + "/data/" + name, ReadMode::gray);
}

TEST(PyrLk, VideoFramesMatchOpenCV) {
  for (const char* video : {"vtest", "megamind", "tree"}) {
    SCOPED_TRACE(video);
    const HostImage a = frame(std::string("klt_") + video + "_a.png");
    const HostImage b = frame(std::string("klt_") + video + "_b.png");
    // Corners of the first frame, plus a grid (flat areas too).
    std::vector<cv::Point2f> corners;
    cv::goodFeaturesToTrack(as_mat(a), corners, 400, 0.01, 5.0);
    std::vector<Point2f> pts;
    for (const cv::Point2f& c : corners) pts.push_back({c.x, c.y});
    for (int y = 4; y < a.height(); y += 23) {
      for (int x = 3; x < a.width(); x += 29) pts.push_back({static_cast<float>(x), static_cast<float>(y)});
    }
    Track r;
    EXPECT_GT(compare(as_mat(a), as_mat(b), pts, r), static_cast<int>(corners.size()) / 2);
    r.win = {15, 15};
    r.max_level = 4;
    compare(as_mat(a), as_mat(b), pts, r);
  }
}

TEST(PyrLk, DeviceApiReusesPyramidsAndMatchesHostForm) {
  const cv::Mat prev = textured(128, 96, 11), next = moved(prev, 1.25, -0.5, 0.0);
  const std::vector<Point2f> pts = test_points(128, 96, 50, 12);
  PyrLkParams params;
  params.win_size = {11, 11};
  std::vector<Point2f> want_next;
  std::vector<std::uint8_t> want_status;
  std::vector<float> want_err;
  const DeviceImage d_prev = queue().upload(from_mat(prev)), d_next = queue().upload(from_mat(next));
  calc_optical_flow_pyr_lk(queue(), d_prev, d_next, pts, want_next, want_status, want_err, params);

  OpticalFlowPyramid p0, p1;
  // Built twice: the second build reuses the first's allocations.
  for (int pass = 0; pass < 2; ++pass) {
    build_optical_flow_pyramid(queue(), d_prev, p0, params.win_size, params.max_level);
    build_optical_flow_pyramid(queue(), d_next, p1, params.win_size, params.max_level, false);
    const auto n = static_cast<std::int64_t>(pts.size());
    DeviceArray a(context(), n, Format{Depth::f32, 2}), b(context(), n, Format{Depth::f32, 2});
    DeviceArray st(context(), n, Format{Depth::u8, 1}), er(context(), n, Format{Depth::f32, 1});
    upload_array(queue(), pts.data(), pts.size() * sizeof(Point2f), a);
    fill_array_bytes(queue(), b, 0x7f);
    fill_array_bytes(queue(), st, 0x55);
    fill_array_bytes(queue(), er, 0x7f);
    calc_optical_flow_pyr_lk(queue(), p0, p1, a, b, st, er, params).wait();
    std::vector<Point2f> got(pts.size());
    download_array(queue(), b, got.data(), got.size() * sizeof(Point2f)).wait();
    EXPECT_EQ(download_array<std::uint8_t>(queue(), st), want_status);
    const std::vector<float> got_err = download_array<float>(queue(), er);
    for (std::size_t i = 0; i < pts.size(); ++i) {
      EXPECT_TRUE(same_float(got[i].x, want_next[i].x) && same_float(got[i].y, want_next[i].y)) << i;
      EXPECT_TRUE(same_float(got_err[i], want_err[i])) << i;
    }
  }
}

TEST(PyrLk, BadArgumentsThrow) {
  const DeviceImage img = queue().upload(from_mat(textured(40, 30, 13)));
  OpticalFlowPyramid pyr, flat;
  build_optical_flow_pyramid(queue(), img, pyr, {5, 5}, 1);
  build_optical_flow_pyramid(queue(), img, flat, {5, 5}, 1, false);
  DeviceArray pts(context(), 4, Format{Depth::f32, 2}), nxt(context(), 4, Format{Depth::f32, 2});
  DeviceArray st(context(), 4, Format{Depth::u8, 1}), er(context(), 4, Format{Depth::f32, 1});
  DeviceArray short_st(context(), 3, Format{Depth::u8, 1}), wrong(context(), 8, Format{Depth::f32, 1});
  PyrLkParams params;
  params.win_size = {5, 5};
  EXPECT_TRUE(throws_code([&] { calc_optical_flow_pyr_lk(queue(), pyr, pyr, pts, nxt, short_st, er, params); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { calc_optical_flow_pyr_lk(queue(), pyr, pyr, wrong, nxt, st, er, params); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { calc_optical_flow_pyr_lk(queue(), flat, pyr, pts, nxt, st, er, params); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { calc_optical_flow_pyr_lk(queue(), pyr, pyr, pts, pts, st, er, params); }, ErrorCode::invalid_argument));
  PyrLkParams big = params;
  big.win_size = {7, 7};  // larger than the pyramids' padding
  EXPECT_TRUE(throws_code([&] { calc_optical_flow_pyr_lk(queue(), pyr, pyr, pts, nxt, st, er, big); }, ErrorCode::invalid_argument));
  PyrLkParams bad_flags = params;
  bad_flags.flags = 1;
  EXPECT_TRUE(throws_code([&] { calc_optical_flow_pyr_lk(queue(), pyr, pyr, pts, nxt, st, er, bad_flags); }, ErrorCode::invalid_argument));
  OpticalFlowPyramid other;
  build_optical_flow_pyramid(queue(), queue().upload(from_mat(textured(41, 30, 14))), other, {5, 5}, 1);
  EXPECT_TRUE(throws_code([&] { calc_optical_flow_pyr_lk(queue(), pyr, other, pts, nxt, st, er, params); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([] { parse_pyr_lk_method("fast"); }, ErrorCode::invalid_argument));
  for (PyrLkMethod m : {PyrLkMethod::automatic, PyrLkMethod::opencv, PyrLkMethod::opencv_int_sums, PyrLkMethod::opencv_fused,
                        PyrLkMethod::opencv_item, PyrLkMethod::seed}) {
    EXPECT_EQ(parse_pyr_lk_method(to_string(m)), m);
  }
  // A window whose integer sums could overflow a work-item's int: opencv_int_sums refuses it.
  PyrLkParams huge;
  huge.win_size = {43, 43};  // its local memory fits; a work-item would sum 62 products
  huge.method = PyrLkMethod::opencv_int_sums;
  OpticalFlowPyramid wide;
  build_optical_flow_pyramid(queue(), img, wide, huge.win_size, 0);
  EXPECT_TRUE(throws_code([&] { calc_optical_flow_pyr_lk(queue(), wide, wide, pts, nxt, st, er, huge); }, ErrorCode::out_of_range));
  // The integer-sum methods read a pixel's derivative pair as one 4-byte word: derivatives wrapped
  // 2 bytes off their pixels are refused (opencv, which reads them by halves, takes them).
  OpticalFlowPyramid shifted = pyr;
  const DeviceImage& d0 = pyr.derivatives[0];
  shifted.derivatives[0] = DeviceImage::wrap(context(), d0.native(), d0.width() - 1, d0.height(), d0.format(), d0.pitch(), d0.offset() + 2);
  for (PyrLkMethod m : {PyrLkMethod::opencv_int_sums, PyrLkMethod::opencv_fused}) {
    PyrLkParams p = params;
    p.method = m;
    EXPECT_TRUE(throws_code([&] { calc_optical_flow_pyr_lk(queue(), shifted, pyr, pts, nxt, st, er, p); }, ErrorCode::invalid_argument));
  }
  // The host form: no points gives empty outputs.
  std::vector<Point2f> none_next{{1.0f, 2.0f}};
  std::vector<std::uint8_t> none_status{1};
  std::vector<float> none_err{1.0f};
  calc_optical_flow_pyr_lk(queue(), img, img, std::span<const Point2f>(), none_next, none_status, none_err, params);
  EXPECT_TRUE(none_next.empty() && none_status.empty() && none_err.empty());
}

// Method seed is not OpenCV's algorithm: it must recover a known translation of a textured frame.
TEST(PyrLkSeed, TracksKnownTranslation) {
  const cv::Mat prev = textured(320, 240, 21);
  const double dx = 5.3, dy = -3.6;
  const cv::Mat next = moved(prev, dx, dy, 0.0);
  std::vector<Point2f> pts;
  for (int y = 60; y < 190; y += 9) {
    for (int x = 60; x < 270; x += 9) pts.push_back({static_cast<float>(x), static_cast<float>(y)});
  }
  for (int subsampling : {2, 4}) {
    SCOPED_TRACE("subsampling " + std::to_string(subsampling));
    PyrLkParams params;
    params.method = PyrLkMethod::seed;
    params.win_size = {15, 15};  // OpenCV's method, too, misses 0.1 px on most points of this texture with 7x7
    params.max_level = 2;
    params.seed_subsampling = subsampling;
    std::vector<Point2f> next_pts;
    std::vector<std::uint8_t> status;
    std::vector<float> err;
    calc_optical_flow_pyr_lk(queue(), queue().upload(from_mat(prev)), queue().upload(from_mat(next)), pts, next_pts, status,
                             err, params);
    int tracked = 0, accurate = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      if (!status[i]) continue;
      ++tracked;
      const double ex = next_pts[i].x - pts[i].x - dx, ey = next_pts[i].y - pts[i].y - dy;
      if (std::hypot(ex, ey) < 0.1) ++accurate;
      EXPECT_LT(err[i], 10.0f);
    }
    EXPECT_GT(tracked, static_cast<int>(pts.size()) * 9 / 10);
    EXPECT_GT(accurate, tracked * 9 / 10) << accurate << " of " << tracked;
  }
}

TEST(PyrLkSeed, LosesPointsOnFlatFramesAndOutside) {
  cv::Mat flat(120, 160, CV_8U, cv::Scalar(90));
  const std::vector<Point2f> pts{{80.0f, 60.0f}, {-50.0f, 10.0f}, {std::nanf(""), 3.0f}, {400.0f, 60.0f}};
  PyrLkParams params;
  params.method = PyrLkMethod::seed;
  params.win_size = {7, 7};
  std::vector<Point2f> next_pts;
  std::vector<std::uint8_t> status;
  std::vector<float> err;
  calc_optical_flow_pyr_lk(queue(), queue().upload(from_mat(flat)), queue().upload(from_mat(flat)), pts, next_pts, status, err,
                           params);
  for (std::size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(status[i], 0) << i;
}

}  // namespace
}  // namespace plinth::test
