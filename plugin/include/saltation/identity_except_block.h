// A square matrix that is the identity except on a block: A(i, j) = δᵢⱼ unless both i and j are in
// `support`, where A(support[a], support[b]) = block(a, b). What a product of saltation matrices
// of events on a few islands is (a simultaneous group's composites, hook_event.h): stored at the
// support's size, not n², and made dense only on request (Dense()).
//
// Reads and writes nothing but itself. Entries are read by the matrix's own indices; Apply and the
// norms cost the block's size.
#ifndef SALTATION_IDENTITY_EXCEPT_BLOCK_H_
#define SALTATION_IDENTITY_EXCEPT_BLOCK_H_

#include <Eigen/Dense>
#include <vector>

namespace saltation {

struct IdentityExceptBlock {
  int n = 0;                 // the matrix is n × n (0: no matrix)
  std::vector<int> support;  // increasing, each in [0, n)
  Eigen::MatrixXd block;     // |support| × |support|

  // I (n × n) with an empty support
  static IdentityExceptBlock Identity(int n);
  // the entry (r, c), 0 ≤ r, c < n
  double operator()(int r, int c) const;
  // the n × n matrix
  Eigen::MatrixXd Dense() const;
  // A x (x of size n)
  Eigen::VectorXd Apply(const Eigen::VectorXd& x) const;
  // ‖A‖_F = √(‖block‖_F² + n − |support|)
  double FrobeniusNorm() const;
  // where support[a] == i, −1 when i is not in the support
  int Position(int i) const;
};

// ‖A − B‖_F, read from the blocks (the identity cancels outside both supports); A and B of one size
double FrobeniusDistance(const IdentityExceptBlock& a, const IdentityExceptBlock& b);

}  // namespace saltation

#endif  // SALTATION_IDENTITY_EXCEPT_BLOCK_H_
