// SameBits (same_bits.h): bit-for-bit equality, not ==.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>

#include "same_bits.h"

namespace saltation::testing {
namespace {

// 0.0 and −0.0 (== says equal) differ; a NaN (== says unequal to itself) equals its own bits
TEST(SameBits, DoublesCompareTheirBitsNotTheirValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(SameBits(0.0, -0.0));
  EXPECT_TRUE(SameBits(nan, nan));
  EXPECT_TRUE(SameBits(0.1 + 0.2, 0.1 + 0.2));
  EXPECT_FALSE(SameBits(0.1 + 0.2, 0.3));
}

// the shape counts (2 × 3 is not 3 × 2 with the same six entries), every entry's bits count, and
// two empty vectors (data() null) are the same without memcmp seeing null (UBSan halts on it)
TEST(SameBits, VectorsAndMatricesCompareShapeAndEveryEntry) {
  Eigen::MatrixXd a(2, 3), b(3, 2);
  a << 1, 2, 3, 4, 5, 6;
  b = Eigen::Map<const Eigen::MatrixXd>(a.data(), 3, 2);
  EXPECT_TRUE(SameBits(a, Eigen::MatrixXd(a)));
  EXPECT_FALSE(SameBits(a, b));
  Eigen::MatrixXd c = a;
  c(1, 2) = -c(1, 2);
  EXPECT_FALSE(SameBits(a, c));
  Eigen::VectorXd zero = Eigen::VectorXd::Zero(4), negative_zero = -zero;
  EXPECT_FALSE(SameBits(zero, negative_zero));
  const Eigen::VectorXd empty1, empty2;
  ASSERT_EQ(empty1.data(), nullptr);
  EXPECT_TRUE(SameBits(empty1, empty2));
  EXPECT_FALSE(SameBits(empty1, zero));
  const Eigen::Vector3d p(1, 2, 3);
  EXPECT_TRUE(SameBits(p, Eigen::Vector3d(1, 2, 3)));
  EXPECT_FALSE(SameBits(p, Eigen::Vector3d(1, 2, std::nextafter(3.0, 4.0))));
}

}  // namespace
}  // namespace saltation::testing
