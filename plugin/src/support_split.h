// The normal forces of a redundant support (theory.md §2): where the mode's rows are dependent (a
// box face on four coplanar corners: three normal degrees of freedom, four rows), λ is not unique —
// every λ + N z, N spanning the null space of J M⁻¹ Jᵀ (= the null space of Jᵀ), gives the same
// Jᵀλ and so the same accelerations. The pseudo-inverse picks the minimum-norm λ, which can pull
// at a corner (λ_n < 0) while a split that pushes everywhere exists: the support is then held, and
// its forces are that split.
//
//   NonNegativeSplit (N (nrow × r, orthonormal columns), the contacts' normal rows, λ (nrow))
//       => true and λ + N z when some normal entry of λ is negative and a split with every normal
//          entry that N moves ≥ 0 exists: the one closest to λ (z of least norm: least-distance
//          programming, solved as a non-negative least squares, Lawson & Hanson ch. 23); λ
//          unchanged and false otherwise (no null space, nothing negative, or no such split: then a
//          contact pulls in every split, and the release rule decides). Entries N does not move keep
//          their values, negative or not. Allocates; reads and writes nothing else.
#ifndef SALTATION_SUPPORT_SPLIT_H_
#define SALTATION_SUPPORT_SPLIT_H_

#include <Eigen/Dense>
#include <vector>

namespace saltation {

bool NonNegativeSplit(const Eigen::MatrixXd& null_space, const std::vector<int>& normal_rows, Eigen::VectorXd& lambda);

// min ‖E u − f‖ over u ≥ 0 (Lawson–Hanson's active set; E p × n): the solution u (n).
Eigen::VectorXd NonNegativeLeastSquares(const Eigen::MatrixXd& E, const Eigen::VectorXd& f);

}  // namespace saltation

#endif  // SALTATION_SUPPORT_SPLIT_H_
