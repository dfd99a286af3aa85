// Periodic orbits of the rigid hybrid model and their Floquet multipliers (theory.md §5).
//
// The orbit is found on a Poincaré section at events of one kind (default: every touchdown) by
// iterating the return map, then refined with Newton on a mid-period point and the period when
// iterating has not settled (unstable or slowly converging orbits); coordinates that advance by a constant per period (a wheel's angle, a
// walker's forward position) are detected as cyclic and only need to repeat up to that shift.
// The monodromy matrix over one period, taken from a mid-period point, is assembled from the Φ/Ξ
// chain (finite differences of each mode's flow, Ξ at each event) and, independently, by shooting
// (central differences of the whole hybrid flow over one period); their eigenvalues are the
// Floquet multipliers, one of them the trivial multiplier 1 along the flow (several multipliers
// near 1 are reported as their mean: a Jordan block splits by O(√ε) under finite differences,
// its mean is accurate to O(ε)). Multipliers are also
// reported on the subspace consistent with the mode's active constraints at the mid-period point.
#ifndef SALTATION_FLOQUET_H_
#define SALTATION_FLOQUET_H_

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "saltation/rigid_simulator.h"

namespace saltation {

struct FloquetOptions {
  EventKind section = EventKind::kTouchdown;
  int max_iterations = 400;      // return-map iterations before giving up
  double tolerance = 1e-9;       // on successive section states (tangent norm, cyclic shifts removed)
  double max_period = 20;        // s without a section event: no periodic orbit
  double fd_eps = 1e-6;          // central-difference step of Φ and of shooting
  double unit_tolerance = 1e-5;  // |λ| within this of 1 counts as 1 (neutral)
  int newton_iterations = 8;     // Newton refinements when iterating the return map has not settled
};

struct FloquetResult {
  bool converged = false;
  int iterations = 0;                   // return-map iterations
  int newton_iterations = 0;            // Newton refinements used after them
  double period = 0;
  double residual = 0;                  // last section-to-section mismatch
  std::vector<int> cyclic;              // tangent indices of cyclic coordinates
  Eigen::VectorXd shift;                // their advance per period (tangent, ndx)
  HybridState mid;                      // the mid-period point the matrices start from
  std::vector<RigidEvent> events;       // the events of one period
  Eigen::MatrixXd monodromy;            // Φ/Ξ chain (ndx × ndx)
  Eigen::MatrixXd shooting;             // finite differences of the hybrid flow over one period
  Eigen::VectorXcd multipliers, shooting_multipliers;  // sorted by modulus, largest first
  Eigen::MatrixXd constraint_basis;     // orthonormal basis of the constraint-consistent subspace
  Eigen::VectorXcd constrained_multipliers, constrained_shooting_multipliers;
  int trivial = -1;                     // index in `multipliers` of the trivial multiplier
  double agreement = 0;                 // max |λ_chain − λ_shooting| over matched multipliers
  std::string verdict;                  // "stable", "neutrally stable" or "unstable"
};

// Finds the periodic orbit through the hybrid state s (iterating the return map) and its
// multipliers. Throws NumericalError when no section event occurs within max_period.
FloquetResult AnalyzePeriodicOrbit(RigidSimulator& sim, const HybridState& s, const FloquetOptions& options = {});

// Eigenvalues sorted by modulus (largest first, ties by real part).
Eigen::VectorXcd SortedEigenvalues(const Eigen::MatrixXd& A);

}  // namespace saltation

#endif  // SALTATION_FLOQUET_H_
