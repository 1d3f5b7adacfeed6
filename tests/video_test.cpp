// plinth::VideoReader and VideoWriter (FFmpeg) against cv::VideoCapture's FFmpeg backend on
// opencv-doc's videos, writer round trips, and damaged files made here from a real one.
// Built into plinth_video_tests only where FFmpeg was found (tests/CMakeLists.txt).
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <utility>
#include <vector>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

namespace fs = std::filesystem;

const std::string kData = "/usr/share/doc/opencv-doc/examples/data/";

// A fresh empty folder per test, removed afterwards.
class VideoFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("plinth_video_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    return names;
  }
  fs::path dir_;
};

VideoWriterOptions with(double fps, const std::string& codec, bool lossless) {
  VideoWriterOptions options;
  options.fps = fps;
  options.codec = codec;
  options.lossless = lossless;
  return options;
}

std::string require(const std::string& name) {
  const std::string path = kData + name;
  if (!fs::exists(path)) ADD_FAILURE() << path << " is missing (Debian package opencv-doc)";
  return path;
}

std::vector<char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spill(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// PSNR in dB of two u8 images of one shape.
double psnr(const HostImage& a, const HostImage& b) {
  double sum = 0;
  std::size_t n = 0;
  for (int y = 0; y < a.height(); ++y) {
    for (std::size_t i = 0; i < a.row_bytes(); ++i, ++n) {
      const double d = double(a.row_as<std::uint8_t>(y)[i]) - double(b.row_as<std::uint8_t>(y)[i]);
      sum += d * d;
    }
  }
  return sum == 0 ? 1e9 : 10 * std::log10(255.0 * 255.0 * double(n) / sum);
}

// Every frame, BGR and grey, against cv::VideoCapture(CAP_FFMPEG) and cvtColor(BGR2GRAY).
void expect_same_as_opencv(const std::string& path) {
  cv::VideoCapture capture(path, cv::CAP_FFMPEG);
  ASSERT_TRUE(capture.isOpened()) << path;
  VideoReader bgr(path, VideoPixels::bgr);
  VideoReader gray(path, VideoPixels::gray);
  EXPECT_EQ(bgr.info().size, (Size{int(capture.get(cv::CAP_PROP_FRAME_WIDTH)), int(capture.get(cv::CAP_PROP_FRAME_HEIGHT))}));
  EXPECT_EQ(bgr.info().fps, capture.get(cv::CAP_PROP_FPS));
  EXPECT_EQ(bgr.info().frame_count, std::int64_t(capture.get(cv::CAP_PROP_FRAME_COUNT)));
  cv::Mat expected, expected_gray;
  HostImage frame, frame_gray;
  std::int64_t n = 0;
  while (capture.read(expected)) {
    ASSERT_TRUE(bgr.read(frame)) << path << ": plinth ends at frame " << n;
    ASSERT_TRUE(gray.read(frame_gray)) << path << ": plinth (grey) ends at frame " << n;
    ASSERT_TRUE(images_equal(from_mat(expected), frame)) << path << " frame " << n;
    cv::cvtColor(expected, expected_gray, cv::COLOR_BGR2GRAY);
    ASSERT_TRUE(images_equal(from_mat(expected_gray), frame_gray)) << path << " grey frame " << n;
    ++n;
  }
  EXPECT_FALSE(bgr.read(frame)) << path << ": plinth has more frames than OpenCV's " << n;
  EXPECT_EQ(bgr.frames_read(), n);
  EXPECT_EQ(n, bgr.info().frame_count) << path;
}

TEST(Video, Supported) { EXPECT_TRUE(video_supported()); }

TEST(Video, VtestLikeOpenCV) { expect_same_as_opencv(require("vtest.avi")); }
TEST(Video, MegamindLikeOpenCV) { expect_same_as_opencv(require("Megamind.avi")); }

TEST(Video, TreeIsTruncated) {
  // tree.avi's header announces 444 frames but its data ends after 68: OpenCV stops there quietly;
  // plinth gives the same 68 frames, then says the file is truncated.
  const std::string path = require("tree.avi");
  cv::VideoCapture capture(path, cv::CAP_FFMPEG);
  VideoReader reader(path);
  EXPECT_EQ(reader.info().frame_count, std::int64_t(capture.get(cv::CAP_PROP_FRAME_COUNT)));
  cv::Mat expected;
  HostImage frame;
  int n = 0;
  while (capture.read(expected)) {
    ASSERT_TRUE(reader.read(frame)) << "frame " << n;
    ASSERT_TRUE(images_equal(from_mat(expected), frame)) << "frame " << n;
    ++n;
  }
  EXPECT_EQ(n, 68);
  try {
    reader.read(frame);
    ADD_FAILURE() << "no error at the end of a truncated file";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::format);
    EXPECT_NE(std::string(e.what()).find("68 of the 444"), std::string::npos) << e.what();
  }
}

TEST(Video, Names) {
  EXPECT_TRUE(is_video_file("a/b.MP4"));
  EXPECT_TRUE(is_video_file("clip.avi"));
  EXPECT_FALSE(is_video_file("photo.png"));
  EXPECT_FALSE(is_video_file("dir.avi/frame"));
  EXPECT_FALSE(is_video_file("avi"));
}

TEST_F(VideoFiles, LosslessRoundTrip) {
  // BGR frames of a real video, then grey ones: FFV1 gives every pixel back.
  VideoReader reader(require("Megamind.avi"));
  std::vector<HostImage> frames;
  for (HostImage f; frames.size() < 8 && reader.read(f);) frames.push_back(f.clone());
  for (const char* name : {"bgr.avi", "bgr.mkv"}) {
    VideoWriterOptions options;
    options.lossless = true;
    options.fps = 12.5;
    VideoWriter writer(file(name), reader.info().size, options);
    for (const HostImage& f : frames) writer.write(f);
    EXPECT_FALSE(fs::exists(file(name))) << "the file must appear only when complete";
    writer.close();
    EXPECT_EQ(writer.frames_written(), 8);
    EXPECT_EQ(writer.codec(), "ffv1");
    VideoReader back(file(name));
    EXPECT_EQ(back.info().size, reader.info().size);
    EXPECT_EQ(back.info().fps, 12.5);
    HostImage f;
    for (const HostImage& expected : frames) {
      ASSERT_TRUE(back.read(f)) << name;
      ASSERT_TRUE(images_equal(expected, f)) << name << " frame " << back.frames_read() - 1;
    }
    EXPECT_FALSE(back.read(f)) << name;
  }
  // Grey in, grey back (odd sides: FFV1 has no 4:2:0 constraint).
  const HostImage noise = random_image(161, 97, Format{Depth::u8, 1}, 7);
  VideoWriterOptions options;
  options.lossless = true;
  VideoWriter writer(file("gray.mkv"), noise.size(), options);
  writer.write(noise);
  writer.write(noise);
  writer.close();
  VideoReader back(file("gray.mkv"), VideoPixels::gray);
  HostImage f;
  int n = 0;
  while (back.read(f)) {
    EXPECT_TRUE(images_equal(noise, f));
    ++n;
  }
  EXPECT_EQ(n, 2);
  EXPECT_EQ(listing().size(), 3u) << "temporary files left behind";
  // Made with the permissions of any new file (0666 less the umask), not a temporary file's 0600.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(static_cast<unsigned>(fs::status(file("gray.mkv")).permissions()), 0666u & ~static_cast<unsigned>(mask));
}

TEST_F(VideoFiles, LossyRoundTrip) {
  // The default encoders: libx264 (or mpeg4) in .mp4, mpeg4 in .avi; and MJPEG (full-range
  // 4:2:0, which it needs) asked for by name; near-lossless on real frames.
  VideoReader reader(require("vtest.avi"));
  std::vector<HostImage> frames;
  for (HostImage f; frames.size() < 15 && reader.read(f);) frames.push_back(f.clone());
  for (const auto& [name, codec] : {std::pair{"out.mp4", ""}, std::pair{"out.avi", ""}, std::pair{"mjpeg.avi", "mjpeg"}}) {
    VideoWriterOptions options;
    options.fps = 10;
    options.codec = codec;
    VideoWriter writer(file(name), reader.info().size, options);
    for (const HostImage& f : frames) writer.write(f);
    writer.close();
    VideoReader back(file(name));
    EXPECT_EQ(back.info().size, reader.info().size);
    EXPECT_EQ(back.info().fps, 10.0) << name;
    HostImage f;
    std::size_t n = 0;
    while (back.read(f)) {
      ASSERT_LT(n, frames.size()) << name;
      EXPECT_GT(psnr(frames[n], f), 30.0) << name << " frame " << n << " (" << writer.codec() << ")";
      ++n;
    }
    EXPECT_EQ(n, frames.size()) << name;
    cv::VideoCapture capture(file(name), cv::CAP_FFMPEG);
    EXPECT_EQ(capture.get(cv::CAP_PROP_FRAME_COUNT), double(frames.size())) << name << ": OpenCV's count";
  }
  EXPECT_EQ(listing().size(), 3u);
}

TEST_F(VideoFiles, WriterRefusals) {
  const Size size{64, 48};
  EXPECT_TRUE(throws_code([&] { VideoWriter w(file("a.xyz"), size); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { VideoWriter w(file("a.mp4"), size, with(0, "", false)); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { VideoWriter w(file("a.mp4"), size, with(25, "no-such-codec", false)); },
                          ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { VideoWriter w(file("a.mp4"), size, with(25, "", true)); },
                          ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { VideoWriter w(file("odd.avi"), Size{65, 48}); }, ErrorCode::invalid_argument));
  EXPECT_TRUE(throws_code([&] { VideoWriter w(file("missing/dir/a.mp4"), size); }, ErrorCode::io));
  {
    VideoWriter w(file("frames.avi"), size);
    EXPECT_TRUE(throws_code([&] { w.write(HostImage(32, 48, Format{Depth::u8, 3})); }, ErrorCode::invalid_argument));
    EXPECT_TRUE(throws_code([&] { w.write(HostImage(64, 48, Format{Depth::f32, 1})); }, ErrorCode::unsupported_type));
    w.write(HostImage(64, 48, Format{Depth::u8, 1}));
    // Destroyed without close(): abandoned.
  }
  EXPECT_TRUE(listing().empty()) << "a refused or abandoned writer left " << listing().front();
}

TEST_F(VideoFiles, ExistingOutputReplacedOnlyWhenComplete) {
  spill(file("keep.mp4"), {'o', 'l', 'd'});
  {
    VideoWriter w(file("keep.mp4"), Size{64, 48});
    w.write(HostImage(64, 48, Format{Depth::u8, 3}));
  }
  EXPECT_EQ(slurp(file("keep.mp4")), (std::vector<char>{'o', 'l', 'd'})) << "an abandoned writer touched the old file";
  EXPECT_EQ(listing().size(), 1u);
}

TEST_F(VideoFiles, ReaderErrors) {
  EXPECT_TRUE(throws_code([&] { VideoReader r(file("none.avi")); }, ErrorCode::io));
  spill(file("text.avi"), std::vector<char>(4000, 'x'));
  EXPECT_TRUE(throws_code([&] { VideoReader r(file("text.avi")); }, ErrorCode::format));
  spill(file("empty.mp4"), {});
  EXPECT_TRUE(throws_code([&] { VideoReader r(file("empty.mp4")); }, ErrorCode::format));

  // Audio only: a WAV file of silence has no video stream.
  std::vector<char> wav = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ', 16, 0, 0, 0,
                           1, 0, 1, 0, 0x40, 0x1f, 0, 0, (char)0x80, 0x3e, 0, 0, 2, 0, 16, 0, 'd', 'a', 't', 'a'};
  const std::uint32_t samples = 16000;
  const std::uint32_t data_bytes = samples * 2;
  for (int i = 0; i < 4; ++i) wav.push_back(char((data_bytes >> (8 * i)) & 0xff));
  wav.resize(wav.size() + data_bytes, 0);
  const std::uint32_t riff = std::uint32_t(wav.size() - 8);
  for (int i = 0; i < 4; ++i) wav[4 + i] = char((riff >> (8 * i)) & 0xff);
  spill(file("audio.wav"), wav);
  try {
    VideoReader r(file("audio.wav"));
    ADD_FAILURE() << "opened a file without video";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::format);
    EXPECT_NE(std::string(e.what()).find("no video stream"), std::string::npos) << e.what();
  }
}

// Offsets of a four-byte tag in an AVI's header (the first 64 KiB).
std::vector<std::size_t> find_tag(const std::vector<char>& bytes, const char* tag) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i + 4 <= std::min<std::size_t>(bytes.size(), 65536); ++i) {
    if (std::equal(tag, tag + 4, bytes.begin() + std::ptrdiff_t(i))) at.push_back(i);
  }
  return at;
}

TEST_F(VideoFiles, UnknownCodec) {
  // vtest.avi's codec tag (DIV3 in the stream header, div3 in the format) renamed to one no
  // decoder knows.
  std::vector<char> bytes = slurp(require("vtest.avi"));
  std::size_t patched = 0;
  for (const char* tag : {"DIV3", "div3"}) {
    for (std::size_t at : find_tag(bytes, tag)) {
      std::copy_n("QQQQ", 4, bytes.begin() + std::ptrdiff_t(at));
      ++patched;
    }
  }
  ASSERT_GT(patched, 0u);
  spill(file("unknown.avi"), bytes);
  try {
    VideoReader r(file("unknown.avi"));
    HostImage f;
    r.read(f);
    ADD_FAILURE() << "decoded an unknown codec";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::format) << e.what();
    EXPECT_NE(std::string(e.what()).find("QQQQ"), std::string::npos) << e.what();
  }
}

TEST_F(VideoFiles, FrameSizeBeyondLimits) {
  // The width in vtest.avi's headers (768 in avih and in the BITMAPINFOHEADER after strf)
  // raised beyond plinth's largest side: refused before decoding.
  std::vector<char> bytes = slurp(require("vtest.avi"));
  const auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes[at + std::size_t(i)] = char((v >> (8 * i)) & 0xff);
  };
  const std::vector<std::size_t> avih = find_tag(bytes, "avih"), strf = find_tag(bytes, "strf");
  ASSERT_FALSE(avih.empty());
  ASSERT_FALSE(strf.empty());
  put32(avih[0] + 8 + 32, 300000);  // dwWidth
  put32(strf[0] + 8 + 4, 300000);   // biWidth
  spill(file("huge.avi"), bytes);
  EXPECT_TRUE(throws_code([&] { VideoReader r(file("huge.avi")); }, ErrorCode::out_of_range));
}

TEST_F(VideoFiles, Truncated) {
  // The first quarter of vtest.avi: opens (the header is whole) and reads frames until the cut,
  // then says the file is truncated instead of ending quietly.
  std::vector<char> bytes = slurp(require("vtest.avi"));
  bytes.resize(bytes.size() / 4 + 1234);
  spill(file("cut.avi"), bytes);
  VideoReader r(file("cut.avi"));
  HostImage f;
  try {
    while (r.read(f)) {
    }
    ADD_FAILURE() << "read a truncated file to its end quietly (" << r.frames_read() << " frames)";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::format) << e.what();
    EXPECT_GT(r.frames_read(), 100);
    EXPECT_LT(r.frames_read(), 795);
  }
}

TEST_F(VideoFiles, TruncatedMp4) {
  // An MP4 cut before its index (moov at the end, as libavformat writes it) cannot be opened.
  {
    VideoWriter w(file("whole.mp4"), Size{64, 48}, with(10, "mpeg4", false));
    for (int i = 0; i < 5; ++i) w.write(random_image(64, 48, Format{Depth::u8, 3}, std::uint32_t(i)));
    w.close();
  }
  std::vector<char> bytes = slurp(file("whole.mp4"));
  bytes.resize(bytes.size() * 2 / 3);
  spill(file("cut.mp4"), bytes);
  EXPECT_TRUE(throws_code([&] { VideoReader r(file("cut.mp4")); }, ErrorCode::format));
}

TEST_F(VideoFiles, Corrupt) {
  // Garbage written over the middle of vtest.avi's frame data: the decoder or the demuxer
  // must say so for some frame; reading quietly to the end with the right count would hide it.
  std::vector<char> bytes = slurp(require("vtest.avi"));
  std::mt19937 random(5);
  for (std::size_t i = bytes.size() / 3; i < bytes.size() / 3 + 200000; ++i) bytes[i] = char(random());
  spill(file("bad.avi"), bytes);
  VideoReader r(file("bad.avi"));
  HostImage f;
  EXPECT_TRUE(throws_code([&] {
    while (r.read(f)) {
    }
  }, ErrorCode::format));
}

}  // namespace
}  // namespace plinth::test
