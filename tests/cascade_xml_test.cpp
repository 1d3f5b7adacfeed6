// Cascade XML loading: every opencv-data cascade, the old format, and malformed / hostile files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <opencv2/objdetect.hpp>

#include "ops/cascade_model.hpp"
#include "plinth/cascade.hpp"
#include "support/test_support.hpp"

namespace plinth {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> opencv_data_cascades() {
  std::vector<std::string> out;
  for (const char* dir : {opencv_haarcascade_dir, opencv_lbpcascade_dir}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".xml") out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CascadeXml, EveryOpencvDataCascadeLoadsLikeOpenCV) {
  const auto files = opencv_data_cascades();
  ASSERT_GE(files.size(), 20u) << "Debian's opencv-data cascades are missing from " << opencv_haarcascade_dir
                               << " (apt-get install opencv-data)";
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    Cascade c;
    ASSERT_NO_THROW(c = Cascade::load(path));
    cv::CascadeClassifier reference(path);
    ASSERT_FALSE(reference.empty());
    EXPECT_EQ(c.window_size().width, reference.getOriginalWindowSize().width);
    EXPECT_EQ(c.window_size().height, reference.getOriginalWindowSize().height);
    EXPECT_EQ(c.feature_type() == CascadeFeatureType::haar ? 0 : 1, reference.getFeatureType());
    std::printf("%-45s %2dx%-2d %s stages %2d trees %4d features %4d%s%s%s\n", fs::path(path).filename().c_str(),
                c.window_size().width, c.window_size().height, c.feature_type() == CascadeFeatureType::haar ? "haar" : "lbp ",
                c.stage_count(), c.tree_count(), c.feature_count(), c.has_tilted_features() ? " tilted" : "",
                c.is_stump_based() ? " stumps" : " trees", c.model().order_free_sums ? "" : " ORDERED-SUMS");
  }
}

}  // namespace
}  // namespace plinth
