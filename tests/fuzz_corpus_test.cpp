// The fuzz targets' inputs in the normal suite (fuzz/targets.hpp runs each as its fuzzer does):
// every seed in fuzz/corpus/<target>/ must be accepted, so the fuzzers start from valid files;
// every input in fuzz/regressions/<target>/ (a crash a fuzzer once found) must be accepted or
// refused with a plinth::Error, and under the sanitizer build (docs/RELIABILITY.md) must raise
// no report.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../fuzz/targets.hpp"
#include "../fuzz/saved_inputs.hpp"
#include "plinth/error.hpp"

namespace plinth {
namespace {

namespace fs = std::filesystem;
using Input = void (*)(const std::uint8_t*, std::size_t);

struct Target {
  const char* name;
  Input run;
};

constexpr Target kTargets[] = {
    {"cascade", fuzz::cascade_input},
    {"image", fuzz::image_input},
    {"npy", fuzz::npy_input},
    {"nv12", fuzz::nv12_input},
};

using fuzz::bytes_of;
using fuzz::files_in;

TEST(FuzzCorpus, EverySeedIsAcceptedByItsReader) {
  for (const Target& target : kTargets) {
    const auto seeds = files_in(fs::path(PLINTH_SOURCE_DIR) / "fuzz" / "corpus" / target.name);
    EXPECT_GE(seeds.size(), 4u) << "fuzz/corpus/" << target.name << " lacks seeds";
    for (const fs::path& seed : seeds) {
      SCOPED_TRACE(seed.string());
      const auto data = bytes_of(seed);
      try {
        target.run(data.data(), data.size());
      } catch (const Error& e) {
        ADD_FAILURE() << "refused: " << e.what();
      }
    }
  }
}

TEST(FuzzCorpus, EveryFoundCrashIsNowAcceptedOrRefusedCleanly) {
  for (const Target& target : kTargets) {
    for (const fs::path& input : files_in(fs::path(PLINTH_SOURCE_DIR) / "fuzz" / "regressions" / target.name)) {
      SCOPED_TRACE(input.string());
      const auto data = bytes_of(input);
      try {
        target.run(data.data(), data.size());
      } catch (const Error&) {
        // A clear refusal is what the fix gives.
      } catch (const std::exception& e) {
        ADD_FAILURE() << "threw a non-plinth exception: " << e.what();
      }
    }
  }
}

// read_image of a saved find in fuzz/regressions/image/ refuses it as a format error whose message
// holds `text`.
void expect_refused(const char* name, const char* text) {
  const fs::path path = fs::path(PLINTH_SOURCE_DIR) / "fuzz/regressions/image" / name;
  ASSERT_TRUE(fs::is_regular_file(path)) << path;
  try {
    (void)read_image(path.string());
    ADD_FAILURE() << name << " accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::format) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

// A DHT segment that declares more than 256 codes (fuzz_image's first find: stb_image 2.27, which
// read JPEG then, wrote past its tables). libjpeg refuses the table.
TEST(FuzzCorpus, JpegHuffmanTableOfMoreThan256CodesIsRefused) {
  expect_refused("stb_jpeg_dht_over_256_codes.jpg", "Bogus Huffman table definition");
}

// A valid PNG (3x2 grey, value 10 * y + x) whose first IDAT chunk is empty: stb_image would copy
// zero bytes into a null buffer for it; the empty chunk is dropped before stb reads the file.
TEST(FuzzCorpus, PngWithAnEmptyFirstIdatDecodes) {
  const fs::path path = fs::path(PLINTH_SOURCE_DIR) / "fuzz/regressions/image/stb_png_empty_first_idat.png";
  const HostImage image = read_image(path.string());
  ASSERT_EQ(image.width(), 3);
  ASSERT_EQ(image.height(), 2);
  ASSERT_EQ(image.channels(), 1);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) EXPECT_EQ(image.at<std::uint8_t>(x, y), 10 * y + x) << x << "," << y;
  }
}

// A chunk that declares 0xFFFFFFEC bytes (CI's fuzz_image run of 2026-11-25): stb_image, reading the
// file, skipped to the end of its buffer but not of the file, read on from the middle of the file
// and copied zero bytes into a null buffer for an empty IDAT there. libpng refuses the length, and
// so does plinth, before stb.
TEST(FuzzCorpus, PngChunkLengthOver2GiBIsRefused) {
  expect_refused("stb_png_chunk_length_over_2gib.png", "more than 2^31 - 1 bytes");
}

// An IDAT that declares 1.2 GB in a 323-byte file (a local fuzz_image run, 2026-11-25): stb_image
// allocated 2 GiB for it before reading. A chunk that runs past the end is refused before stb.
TEST(FuzzCorpus, PngChunkPastTheEndOfTheFileIsRefused) {
  expect_refused("stb_png_idat_longer_than_the_file.png", "truncated PNG file");
}

// A 29-byte BMP whose header stops after its height (CI's fuzz_image run of 2026-11-28): stb read
// the bit count from past the end as 1 and decoded 32769x7426 pixels of zeros, for 48 s under
// ASan. A header cut short is refused before stb.
TEST(FuzzCorpus, BmpHeaderCutShortIsRefused) {
  expect_refused("bmp_header_cut_short.bmp", "truncated BMP file: its header is cut short");
}

// 578 bytes of arithmetic-coded progressive JPEG (written by hand, 2026-11-28): a 16384x16384 grey
// image, its DC scan and 40 scans of the same AC coefficients, none with data (libjpeg's
// arithmetic decoder feeds zeros at a marker without a warning). Each scan is a pass over 2^28
// samples; under the fuzzer's ASan build 500 of them would take about 50 s. The 33rd pass crosses
// the limit of 2^33 samples and is refused before its data is decoded.
TEST(FuzzCorpus, JpegScansOfMoreThan2Pow33SamplesAreRefused) {
  expect_refused("jpeg_arithmetic_scans_over_2pow33_samples.jpg", "scans decode more than 2^33 samples");
}

}  // namespace
}  // namespace plinth
