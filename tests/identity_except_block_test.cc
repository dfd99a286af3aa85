// IdentityExceptBlock (identity_except_block.h) against its dense matrix: entries, Apply, the
// Frobenius norm and distance, on supports that are equal, different and empty.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "saltation/errors.h"
#include "saltation/event_json.h"
#include "saltation/identity_except_block.h"

namespace saltation::testing {
namespace {

IdentityExceptBlock Random(int n, std::vector<int> support, unsigned seed) {
  std::srand(seed);
  IdentityExceptBlock a;
  a.n = n;
  a.support = std::move(support);
  const int k = static_cast<int>(a.support.size());
  a.block = Eigen::MatrixXd::Random(k, k);
  return a;
}

TEST(IdentityExceptBlock, AgreesWithItsDenseMatrix) {
  const IdentityExceptBlock a = Random(7, {1, 4, 5}, 1), b = Random(7, {0, 4, 6}, 2), c = Random(7, {1, 4, 5}, 3);
  const Eigen::MatrixXd A = a.Dense(), B = b.Dense(), C = c.Dense();
  for (int r = 0; r < 7; r++) {
    for (int col = 0; col < 7; col++) EXPECT_EQ(a(r, col), A(r, col));
  }
  EXPECT_EQ(A(4, 5), a.block(1, 2));
  EXPECT_EQ(A(0, 0), 1.0);
  EXPECT_EQ(A(0, 4), 0.0);
  const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(7, -1, 2);
  EXPECT_LE((a.Apply(x) - A * x).norm(), 1e-15 * (A * x).norm());
  EXPECT_NEAR(a.FrobeniusNorm(), A.norm(), 1e-15 * A.norm());
  EXPECT_NEAR(FrobeniusDistance(a, b), (A - B).norm(), 1e-15 * (A - B).norm());  // different supports
  EXPECT_NEAR(FrobeniusDistance(a, c), (A - C).norm(), 1e-15 * (A - C).norm());  // the same support
  const IdentityExceptBlock I = IdentityExceptBlock::Identity(7);
  EXPECT_EQ(I.Dense(), Eigen::MatrixXd::Identity(7, 7));
  EXPECT_EQ(I.FrobeniusNorm(), std::sqrt(7.0));
  EXPECT_EQ(a.Position(5), 2);
  EXPECT_EQ(a.Position(3), -1);
  EXPECT_THROW(FrobeniusDistance(a, IdentityExceptBlock::Identity(6)), ConfigError);
}

// The compact JSON written from the block is the dense matrix's, character for character, whichever
// base wins: identity (a small support; block entries equal to the identity's, −0 and NaN among
// them), zero (the support all of it, every entry non-zero), and the empty 0 × 0.
TEST(IdentityExceptBlock, CompactJsonIsTheDenseMatrixs) {
  IdentityExceptBlock small = Random(9, {2, 3, 7}, 4);
  small.block(0, 0) = 1.0;
  small.block(1, 2) = 0.0;
  small.block(2, 1) = -0.0;
  small.block(2, 2) = std::nan("");
  const IdentityExceptBlock full = Random(4, {0, 1, 2, 3}, 5), empty;
  for (const IdentityExceptBlock* a : std::vector<const IdentityExceptBlock*>{&small, &full, &empty}) {
    EXPECT_EQ(CompactMatrixJson(*a), CompactMatrixJson(a->Dense())) << a->n;
  }
  EXPECT_NE(CompactMatrixJson(small).find("\"identity\""), std::string::npos);
  EXPECT_NE(CompactMatrixJson(full).find("\"zero\""), std::string::npos);
}

}  // namespace
}  // namespace saltation::testing
