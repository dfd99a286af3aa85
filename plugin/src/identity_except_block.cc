#include "saltation/identity_except_block.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <iterator>

#include "saltation/errors.h"

namespace saltation {

IdentityExceptBlock IdentityExceptBlock::Identity(int n) {
  IdentityExceptBlock a;
  a.n = n;
  a.block.resize(0, 0);
  return a;
}

int IdentityExceptBlock::Position(int i) const {
  const auto it = std::lower_bound(support.begin(), support.end(), i);
  return it != support.end() && *it == i ? static_cast<int>(it - support.begin()) : -1;
}

double IdentityExceptBlock::operator()(int r, int c) const {
  const int a = Position(r), b = a >= 0 ? Position(c) : -1;
  if (a >= 0 && b >= 0) return block(a, b);
  return r == c ? 1.0 : 0.0;
}

Eigen::MatrixXd IdentityExceptBlock::Dense() const {
  Eigen::MatrixXd A = Eigen::MatrixXd::Identity(n, n);
  A(support, support) = block;
  return A;
}

Eigen::VectorXd IdentityExceptBlock::Apply(const Eigen::VectorXd& x) const {
  Eigen::VectorXd y = x;
  y(support) = block * x(support);
  return y;
}

double IdentityExceptBlock::FrobeniusNorm() const {
  return std::sqrt(block.squaredNorm() + static_cast<double>(n - static_cast<int>(support.size())));
}

double FrobeniusDistance(const IdentityExceptBlock& a, const IdentityExceptBlock& b) {
  if (a.n != b.n) throw ConfigError("FrobeniusDistance: matrices of sizes " + std::to_string(a.n) + " and " + std::to_string(b.n));
  if (a.support == b.support) return (a.block - b.block).norm();
  // over the union of the supports (outside it both are the identity)
  std::vector<int> all;
  std::set_union(a.support.begin(), a.support.end(), b.support.begin(), b.support.end(), std::back_inserter(all));
  double sum = 0;
  for (int r : all) {
    for (int c : all) {
      const double d = a(r, c) - b(r, c);
      sum += d * d;
    }
  }
  return std::sqrt(sum);
}

}  // namespace saltation
