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

namespace plinth {
namespace {

// A small valid cascade in the current format, to be broken in various ways.
std::string haar_xml(const std::string& stage_num = "1", const std::string& rect = "2 2 4 4 -1.",
                     const std::string& nodes = "0 -1 0 1.5e-02", const std::string& leaves = "-1. 1.",
                     const std::string& width = "8") {
  return "<?xml version=\"1.0\"?>\n<opencv_storage>\n<cascade type_id=\"opencv-cascade-classifier\">"
         "<stageType>BOOST</stageType><featureType>HAAR</featureType><height>8</height><width>" + width + "</width>"
         "<stageParams><maxWeakCount>1</maxWeakCount></stageParams><featureParams><maxCatCount>0</maxCatCount></featureParams>"
         "<stageNum>" + stage_num + "</stageNum><stages><_><maxWeakCount>1</maxWeakCount><stageThreshold>-0.5</stageThreshold>"
         "<weakClassifiers><_><internalNodes>" + nodes + "</internalNodes><leafValues>" + leaves + "</leafValues></_>"
         "</weakClassifiers></_></stages><features><_><rects><_>" + rect + "</_><_>2 4 4 2 2.</_></rects></_></features>"
         "</cascade>\n</opencv_storage>\n";
}

std::string old_xml(const std::string& rect = "1 1 4 2 -1.") {
  return "<?xml version=\"1.0\"?>\n<opencv_storage>\n<plate type_id=\"opencv-haar-classifier\"><size>8 6</size><stages><_>"
         "<trees><_><_><feature><rects><_>" + rect + "</_><_>1 2 4 1 2.</_></rects><tilted>0</tilted></feature>"
         "<threshold>0.01</threshold><left_val>-0.9</left_val><right_val>0.8</right_val></_></_></trees>"
         "<stage_threshold>-0.1</stage_threshold><parent>-1</parent><next>-1</next></_></stages></plate>\n</opencv_storage>\n";
}

ErrorCode code_of(const std::string& xml) {
  try {
    Cascade::parse(xml, "crafted.xml");
  } catch (const Error& e) {
    return e.code();
  }
  return static_cast<ErrorCode>(-1);
}

TEST(CascadeXml, CraftedValidFilesLoadAndMatchOpenCVsReading) {
  const Cascade c = Cascade::parse(haar_xml(), "valid.xml");
  EXPECT_EQ(c.window_size(), (Size{8, 8}));
  EXPECT_EQ(c.stage_count(), 1);
  EXPECT_FLOAT_EQ(c.model().stages[0].threshold, -0.5f - 1e-5f);
  const Cascade old = Cascade::parse(old_xml(), "old.xml");
  EXPECT_EQ(old.window_size(), (Size{8, 6}));
  EXPECT_EQ(old.model().nodes[0].left, 0);
  EXPECT_EQ(old.model().nodes[0].right, -1);
  EXPECT_FLOAT_EQ(old.model().leaves[1], 0.8f);
  // The old format goes through OpenCV's conversion; the window must agree.
  const auto dir = std::filesystem::temp_directory_path() / "plinth_cascade_xml_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "old.xml").string();
  std::ofstream(path) << old_xml();
  cv::CascadeClassifier reference(path);
  ASSERT_FALSE(reference.empty());
  EXPECT_EQ(reference.getOriginalWindowSize().width, 8);
  EXPECT_EQ(Cascade::load(path).window_size(), (Size{8, 6}));
}

TEST(CascadeXml, MalformedAndHostileFilesGiveClearErrors) {
  const std::string good = haar_xml();
  EXPECT_EQ(code_of(good.substr(0, good.size() / 2)), ErrorCode::format);          // truncated
  EXPECT_EQ(code_of(""), ErrorCode::format);
  EXPECT_EQ(code_of("not xml at all"), ErrorCode::format);
  EXPECT_EQ(code_of("<opencv_storage></opencv_storage>"), ErrorCode::format);
  EXPECT_EQ(code_of("<foo/>"), ErrorCode::format);
  EXPECT_EQ(code_of(haar_xml("3")), ErrorCode::format);                              // wrong stage count
  EXPECT_EQ(code_of(haar_xml("1", "6 6 4 4 -1.")), ErrorCode::out_of_range);          // rectangle outside the window
  EXPECT_EQ(code_of(haar_xml("1", "-1 0 4 4 -1.")), ErrorCode::out_of_range);
  EXPECT_EQ(code_of(haar_xml("1", "0 0 -4 4 -1.")), ErrorCode::out_of_range);
  EXPECT_EQ(code_of(haar_xml("1", "0 0 4 4 abc")), ErrorCode::format);                // bad numbers
  EXPECT_EQ(code_of(haar_xml("1", "0 0 4 4 nan")), ErrorCode::format);
  EXPECT_EQ(code_of(haar_xml("1", "0 0 4 4 1e999")), ErrorCode::format);
  // Finite as a double but not as the float it is kept in: refused like "inf" (issue 15).
  EXPECT_EQ(code_of(haar_xml("1", "0 0 4 4 1e39")), ErrorCode::format);
  EXPECT_EQ(code_of(haar_xml("1", "2 2 4 4 -1.", "0 -1 0 -1e39")), ErrorCode::format);
  EXPECT_EQ(code_of(haar_xml("1", "2 2 4 4 -1.", "0 -1 0 1.5e-02", "-1. 3.5e38")), ErrorCode::format);
  EXPECT_EQ(code_of(old_xml("1 1 4 2 1e39")), ErrorCode::format);
  EXPECT_EQ(code_of(haar_xml("1", "0 0 4 4 3.4e38")), static_cast<ErrorCode>(-1));  // the largest floats still load
  try {
    Cascade::parse(haar_xml("1", "0 0 4 4 " + std::string(100000, '9') + "x"), "long.xml");
    ADD_FAILURE() << "a 100000-digit token was accepted";
  } catch (const Error& e) {
    EXPECT_LT(std::string(e.what()).size(), 400u) << "the message echoes the whole token";
  }
  EXPECT_EQ(code_of(haar_xml("1", "0 0 4 4")), ErrorCode::format);
  EXPECT_EQ(code_of(haar_xml("1", "0 0 4 99999999999 1.")), ErrorCode::out_of_range);
  EXPECT_EQ(code_of(haar_xml("1", "2 2 4 4 -1.", "0 -1 7 1.5e-02")), ErrorCode::out_of_range);  // feature index
  EXPECT_EQ(code_of(haar_xml("1", "2 2 4 4 -1.", "0 -5 0 1.5e-02")), ErrorCode::out_of_range);  // leaf index
  EXPECT_EQ(code_of(haar_xml("1", "2 2 4 4 -1.", "1 -1 0 1.5e-02", "-1. 1.")), ErrorCode::out_of_range);  // child loop
  EXPECT_EQ(code_of(haar_xml("1", "2 2 4 4 -1.", "0 -1 0", "-1. 1.")), ErrorCode::format);      // short node
  EXPECT_EQ(code_of(haar_xml("1", "2 2 4 4 -1.", "0 -1 0 0.1", "-1.")), ErrorCode::format);      // leaf count
  EXPECT_EQ(code_of(haar_xml("1", "2 2 4 4 -1.", "0 -1 0 0.1", "-1. 1.", "100000")), ErrorCode::out_of_range);
  EXPECT_EQ(code_of(haar_xml("1", "2 2 4 4 -1.", "0 -1 0 0.1", "-1. 1.", "0")), ErrorCode::out_of_range);
  EXPECT_EQ(code_of(haar_xml("999999999")), ErrorCode::out_of_range);                  // absurd count
  EXPECT_EQ(code_of(old_xml("7 1 4 2 -1.")), ErrorCode::out_of_range);
  EXPECT_EQ(code_of(old_xml("1 1 4 2")), ErrorCode::format);
  std::string old = old_xml();
  EXPECT_EQ(code_of(old.replace(old.find("<left_val>-0.9</left_val>"), 25, "")), ErrorCode::format);
  // Deep nesting and a million stages are refused before anything large is built.
  std::string many = "<opencv_storage><c><stageType>BOOST</stageType><featureType>HAAR</featureType><height>4</height>"
                     "<width>4</width><featureParams><maxCatCount>0</maxCatCount></featureParams><stages>";
  for (int i = 0; i < 5000; ++i) many += "<_/>";
  many += "</stages></c></opencv_storage>";
  EXPECT_EQ(code_of(many), ErrorCode::out_of_range);
}

TEST(CascadeXml, FilesAndNames) {
  EXPECT_TRUE(test::throws_code([] { Cascade::load("/nonexistent/cascade.xml"); }, ErrorCode::io));
  EXPECT_EQ(find_cascade("frontalface_default"), std::string(opencv_haarcascade_dir) + "/haarcascade_frontalface_default.xml");
  EXPECT_EQ(find_cascade("lbpcascade_frontalface_improved.xml"),
            std::string(opencv_lbpcascade_dir) + "/lbpcascade_frontalface_improved.xml");
  EXPECT_EQ(find_cascade("eye"), std::string(opencv_haarcascade_dir) + "/haarcascade_eye.xml");
  EXPECT_TRUE(test::throws_code([] { Cascade{}.window_size(); }, ErrorCode::invalid_argument));
}

}  // namespace
}  // namespace plinth
