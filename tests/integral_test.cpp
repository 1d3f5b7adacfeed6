#include <opencv2/imgproc.hpp>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

TEST(IntegralBringUp, MatchesOpenCV) {
  for (IntegralMethod m : {IntegralMethod::row_column, IntegralMethod::single_pass}) {
    for (auto [w, h] : {std::pair{37, 23}, {1, 1}, {128, 32}, {129, 33}, {500, 301}}) {
      for (int cn : {1, 3}) {
        HostImage src = random_image(w, h, Format{Depth::u8, cn}, 1);
        IntegralOptions options;
        options.method = m;
        IntegralImages got = integral(queue(), src, true, false, options);
        cv::Mat sum, sq;
        cv::integral(as_mat(src), sum, sq, CV_32S, CV_64F);
        EXPECT_TRUE(images_equal(from_mat(sum), got.sum)) << to_string(m) << " " << w << "x" << h << " cn " << cn;
        EXPECT_TRUE(images_equal(from_mat(sq), got.sqsum)) << to_string(m) << " " << w << "x" << h << " cn " << cn;
        HostImage s1 = integral(queue(), src, options);
        EXPECT_TRUE(images_equal(from_mat(sum), s1)) << to_string(m) << " sum only " << w << "x" << h;
      }
    }
  }
}

}  // namespace
}  // namespace plinth::test
