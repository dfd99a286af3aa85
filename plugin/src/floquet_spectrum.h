// Splits a monodromy matrix's spectrum into the multipliers that are 1 by construction and the
// rest, never averaging them: the trivial multiplier along the flow (M f = f on a periodic orbit)
// and one multiplier per exact symmetry direction (M e = e for a cyclic coordinate whose shift
// leaves the dynamics invariant) are Rayleigh quotients on their known eigenvectors, each with its
// own error ‖M v − v‖/‖v‖; the rest are the eigenvalues of the map induced on the quotient by
// span{f, e…} (Wᵀ M W with W an orthonormal complement: exact when that span is invariant).
// Reads M and the directions; writes nothing else.
#ifndef SALTATION_FLOQUET_SPECTRUM_H_
#define SALTATION_FLOQUET_SPECTRUM_H_

#include <Eigen/Dense>
#include <vector>

#include "saltation/floquet.h"

namespace saltation {

// flow: f at the orbit's start point; symmetries: unit tangent directions (may be empty). A
// direction with no component left after the earlier ones is dropped.
FloquetSpectrum SplitSpectrum(const Eigen::MatrixXd& M, const Eigen::VectorXd& flow,
                              const std::vector<Eigen::VectorXd>& symmetries);

// every multiplier of the split spectrum, sorted as SortedEigenvalues sorts; *trivial_index: where
// the trivial one landed
Eigen::VectorXcd AllMultipliers(const FloquetSpectrum& s, int* trivial_index);

}  // namespace saltation

#endif  // SALTATION_FLOQUET_SPECTRUM_H_
