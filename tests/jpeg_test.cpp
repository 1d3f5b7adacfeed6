// JPEG files (src/io/jpeg.cpp): read_image against cv::imread, the specification, on the fuzz
// seeds, on opencv-doc's photos where installed and on files written here with libjpeg (sizes
// that are not multiples of the blocks, every chroma subsampling, progressive, restart intervals,
// EXIF orientations); and the refusals of truncated, corrupt and CMYK files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csetjmp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include <jpeglib.h>

#include "plinth/io.hpp"
#include "support/test_support.hpp"

namespace plinth::test {
namespace {

namespace fs = std::filesystem;

struct EncodeOptions {
  int width = 37, height = 21;
  int components = 3;                  // 1 grey, 3 colour, 4 CMYK
  int h_sampling = 2, v_sampling = 2;  // of the first component (4:2:0 by default)
  bool progressive = false;
  int restart_rows = 0;
  std::vector<std::string> app1;  // APP1 segments' payloads, in order
};

// A smooth pattern with some edges, so that every block has AC energy.
std::vector<unsigned char> pattern(int width, int height, int components) {
  std::vector<unsigned char> out(static_cast<std::size_t>(width) * height * components);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < components; ++c) {
        const int v = (x * (3 + c) + y * (5 - c) + ((x / 4 + y / 3) % 2) * 60 + c * 40) % 256;
        out[(static_cast<std::size_t>(y) * width + x) * components + c] = static_cast<unsigned char>(v);
      }
    }
  }
  return out;
}

struct EncodeError {
  jpeg_error_mgr base;
  std::jmp_buf jump;
};

// libjpeg's compressor into memory; a failure there is the test's own fault.
std::string encode(const EncodeOptions& o) {
  jpeg_compress_struct info{};
  EncodeError errors{};
  info.err = jpeg_std_error(&errors.base);
  errors.base.error_exit = [](j_common_ptr common) { std::longjmp(reinterpret_cast<EncodeError*>(common->err)->jump, 1); };
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  const std::vector<unsigned char> pixels = pattern(o.width, o.height, o.components);
  if (setjmp(errors.jump) != 0) {
    jpeg_destroy_compress(&info);
    std::free(buffer);
    return {};
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = static_cast<JDIMENSION>(o.width);
  info.image_height = static_cast<JDIMENSION>(o.height);
  info.input_components = o.components;
  info.in_color_space = o.components == 1 ? JCS_GRAYSCALE : o.components == 3 ? JCS_RGB : JCS_CMYK;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, 90, TRUE);
  if (o.components == 3) {
    info.comp_info[0].h_samp_factor = o.h_sampling;
    info.comp_info[0].v_samp_factor = o.v_sampling;
  }
  if (o.progressive) jpeg_simple_progression(&info);
  info.restart_in_rows = o.restart_rows;
  jpeg_start_compress(&info, TRUE);
  for (const std::string& app1 : o.app1) {
    jpeg_write_marker(&info, JPEG_APP0 + 1, reinterpret_cast<const JOCTET*>(app1.data()), static_cast<unsigned>(app1.size()));
  }
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<unsigned char*>(pixels.data()) +
                   static_cast<std::size_t>(info.next_scanline) * o.width * o.components;
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  std::string out(reinterpret_cast<const char*>(buffer), size);
  std::free(buffer);
  return out;
}

// An EXIF APP1 payload whose first directory holds one entry, the orientation.
std::string exif(int orientation, bool intel) {
  std::string out("Exif\0\0", 6);
  const auto u16 = [&](int v) {
    const char lo = static_cast<char>(v & 0xff), hi = static_cast<char>(v >> 8);
    out += intel ? std::string{lo, hi} : std::string{hi, lo};
  };
  const auto u32 = [&](int v) {
    if (intel) {
      u16(v & 0xffff), u16(v >> 16);
    } else {
      u16(v >> 16), u16(v & 0xffff);
    }
  };
  out += intel ? "II" : "MM";
  u16(42);
  u32(8);            // the first directory follows the header
  u16(1);            // one entry
  u16(0x0112), u16(3), u32(1), u16(orientation), u16(0);  // Orientation, SHORT, count 1, value
  u32(0);            // no next directory
  return out;
}

class JpegFile {
 public:
  explicit JpegFile(const std::string& bytes) {
    static int counter = 0;
    path_ = (fs::temp_directory_path() /
             ("plinth_jpeg_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".jpg"))
                .string();
    std::ofstream(path_, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  JpegFile(const JpegFile&) = delete;
  JpegFile& operator=(const JpegFile&) = delete;
  ~JpegFile() { fs::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// read_image in each mode against cv::imread with the flags that mean the same.
void expect_as_imread(const std::string& path) {
  SCOPED_TRACE(path);
  const cv::Mat as_is = cv::imread(path, cv::IMREAD_UNCHANGED);
  ASSERT_FALSE(as_is.empty()) << "OpenCV cannot read it";
  cv::Mat expected_unchanged = as_is;
  if (as_is.channels() == 3) cv::cvtColor(as_is, expected_unchanged, cv::COLOR_BGR2RGB);
  EXPECT_TRUE(images_equal(from_mat(expected_unchanged), read_image(path, ReadMode::unchanged)));
  EXPECT_TRUE(images_equal(from_mat(cv::imread(path, cv::IMREAD_GRAYSCALE)), read_image(path, ReadMode::gray)));
  cv::Mat rgb;
  cv::cvtColor(cv::imread(path, cv::IMREAD_COLOR), rgb, cv::COLOR_BGR2RGB);
  EXPECT_TRUE(images_equal(from_mat(rgb), read_image(path, ReadMode::rgb)));
}

TEST(JpegFiles, TheFuzzSeedsAndOpencvPhotosDecodeAsImreadDecodesThem) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(PLINTH_SOURCE_DIR) / "fuzz/corpus/image")) {
    if (entry.path().extension() == ".jpg") files.push_back(entry.path());
  }
  ASSERT_GE(files.size(), 4u);
  const fs::path photos = "/usr/share/doc/opencv-doc/examples/data";
  if (fs::is_directory(photos)) {
    for (const auto& entry : fs::directory_iterator(photos)) {
      if (entry.path().extension() == ".jpg") files.push_back(entry.path());
    }
  }
  for (const fs::path& file : files) expect_as_imread(file.string());
}

TEST(JpegFiles, WrittenFilesOfEveryLayoutDecodeAsImreadDecodesThem) {
  std::vector<EncodeOptions> cases;
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {7, 3}, {16, 16}, {37, 21}, {130, 67}}) {
    for (const auto& [hs, vs] : std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {1, 2}, {2, 2}}) {
      EncodeOptions o;
      o.width = w, o.height = h, o.h_sampling = hs, o.v_sampling = vs;
      cases.push_back(o);
    }
    EncodeOptions grey;
    grey.width = w, grey.height = h, grey.components = 1;
    cases.push_back(grey);
  }
  EncodeOptions progressive;
  progressive.width = 130, progressive.height = 67, progressive.progressive = true;
  cases.push_back(progressive);
  progressive.components = 1;
  cases.push_back(progressive);
  EncodeOptions restarts;
  restarts.width = 130, restarts.height = 67, restarts.restart_rows = 1;
  cases.push_back(restarts);
  for (const EncodeOptions& o : cases) {
    SCOPED_TRACE(std::to_string(o.width) + "x" + std::to_string(o.height) + " components " + std::to_string(o.components) +
                 " sampling " + std::to_string(o.h_sampling) + "x" + std::to_string(o.v_sampling) +
                 (o.progressive ? " progressive" : ""));
    const std::string bytes = encode(o);
    ASSERT_FALSE(bytes.empty());
    JpegFile file(bytes);
    expect_as_imread(file.path());
  }
}

constexpr char kXmp[] = "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>";

TEST(JpegFiles, ExifOrientationIsAppliedAsImreadAppliesIt) {
  for (int orientation = 1; orientation <= 8; ++orientation) {
    for (const bool intel : {true, false}) {
      for (const int components : {1, 3}) {
        SCOPED_TRACE("orientation " + std::to_string(orientation) + (intel ? " II" : " MM") + " components " +
                     std::to_string(components));
        EncodeOptions o;
        o.components = components;
        o.app1 = {exif(orientation, intel)};
        JpegFile file(encode(o));
        expect_as_imread(file.path());
        const HostImage turned = read_image(file.path(), ReadMode::gray);
        EXPECT_EQ(turned.width(), orientation >= 5 ? o.height : o.width);
      }
    }
  }
  // An XMP segment before the EXIF one, and orientations out of range.
  for (const auto& segments : std::vector<std::vector<std::string>>{
           {std::string(kXmp, sizeof kXmp - 1), exif(6, true)}, {exif(0, true)}, {exif(9, false)}}) {
    EncodeOptions o;
    o.app1 = segments;
    JpegFile file(encode(o));
    expect_as_imread(file.path());
  }
}

TEST(JpegFiles, TruncatedAndCorruptFilesAreRefused) {
  EncodeOptions o;
  o.width = 130, o.height = 67;
  const std::string whole = encode(o);
  ASSERT_GT(whole.size(), 400u);
  // libjpeg would fill what is missing with grey and warn; plinth refuses such a file.
  for (const std::size_t keep : {whole.size() / 2, whole.size() - 2}) {
    JpegFile file(whole.substr(0, keep));
    const std::string path = file.path();
    EXPECT_TRUE(throws_code([&] { read_image(path); }, ErrorCode::format)) << keep;
  }
  // An end-of-image marker in the middle of the entropy-coded data.
  std::string cut = whole;
  cut.replace(cut.size() / 2, 2, "\xff\xd9");
  JpegFile file(cut);
  EXPECT_TRUE(throws_code([&] { read_image(file.path()); }, ErrorCode::format));
  try {
    read_image(file.path());
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(file.path()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("JPEG"), std::string::npos) << e.what();
  }
}

TEST(JpegFiles, CmykIsRefusedAsUnsupported) {
  EncodeOptions o;
  o.components = 4;
  JpegFile file(encode(o));
  EXPECT_TRUE(throws_code([&] { read_image(file.path()); }, ErrorCode::unsupported_type));
}

}  // namespace
}  // namespace plinth::test
