#include <opencv2/imgproc.hpp>

#include "support/test_support.hpp"

namespace plinth::test {
namespace {

TEST(IntegralBringUp, RowColumnMatchesOpenCV) {
  HostImage src = random_image(37, 23, Format{Depth::u8, 1}, 1);
  IntegralOptions options;
  options.method = IntegralMethod::row_column;
  IntegralImages got = integral(queue(), src, true, false, options);
  cv::Mat sum, sq;
  cv::integral(as_mat(src), sum, sq, CV_32S, CV_64F);
  EXPECT_TRUE(images_equal(from_mat(sum), got.sum));
  EXPECT_TRUE(images_equal(from_mat(sq), got.sqsum));
}

}  // namespace
}  // namespace plinth::test
