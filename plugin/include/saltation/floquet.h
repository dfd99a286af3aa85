// Periodic orbits of the rigid hybrid model and their Floquet multipliers (theory.md §5).
//
// The orbit is found on a Poincaré section at events of one kind (default: every touchdown) by
// iterating the return map (a period may hold up to max_section_events of them: the smallest lag
// whose section states repeat is the period), then refined with Newton on a mid-period point and the period when
// iterating has not settled (unstable or slowly converging orbits); coordinates that advance by a constant per period (a wheel's angle, a
// walker's forward position) are detected as cyclic and only need to repeat up to that shift.
// The monodromy matrix over one period, taken from a point in the middle of the period's longest
// event-free stretch (the "mid-period point"), is assembled from the Φ/Ξ
// chain (finite differences of each mode's flow, Ξ at each event) and, independently, by shooting
// (central differences of the whole hybrid flow over one period); their eigenvalues are the
// Floquet multipliers. The multipliers that are 1 by construction are reported apart, never
// averaged with the rest (floquet_spectrum.h): the trivial one along the flow and one per exact
// symmetry (a cyclic coordinate whose shift leaves the dynamics invariant, found by shifting:
// symmetry.h), each with its own error; the others are the eigenvalues of the map induced on
// the rest of the tangent space. Multipliers are also reported on the subspace consistent with
// the mode's active constraints at the mid-period point.
//
// The result checks itself (FloquetOptions::cross_check): the trivial and symmetry multipliers
// must be 1 and the whole analysis is repeated on a simulator with half the integrator step (a
// second discretisation of the flow, not the same one differentiated twice); the constrained
// multipliers of both must agree to check_tolerance. Every disagreement is a line of
// check_failures naming both values, and `consistent` is false.
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
  double fd_eps = 1e-5;          // central-difference step of Φ and of shooting
  double unit_tolerance = 1e-5;  // |λ| within this of 1 counts as 1 (neutral)
  int newton_iterations = 8;     // Newton refinements when iterating the return map has not settled
  bool cross_check = true;       // repeat at half the integrator step and compare
  double check_tolerance = 1e-5; // largest accepted disagreement of the checks
  int max_section_events = 4;    // section events a period may hold (the lag of the repetition)
};

// A monodromy matrix's multipliers, split (floquet_spectrum.h).
struct FloquetSpectrum {
  bool has_trivial = false;
  double trivial = 0, trivial_error = 0;     // fᵀMf/fᵀf and ‖Mf − f‖/‖f‖
  std::vector<double> symmetry, symmetry_error;  // one per exact symmetry, in `symmetries` order
  Eigen::VectorXcd rest;                     // the others, sorted by modulus
};

struct FloquetResult {
  bool converged = false;
  int iterations = 0;                   // return-map iterations
  int newton_iterations = 0;            // Newton refinements used after them
  double period = 0;
  int section_events = 1;               // section events in one period (the lag that repeated)
  double residual = 0;                  // last section-to-section mismatch
  std::vector<int> cyclic;              // tangent indices of cyclic coordinates
  Eigen::VectorXd shift;                // their advance per period (tangent, ndx)
  HybridState mid;                      // the point the matrices start from: mid longest event-free stretch
  std::vector<RigidEvent> events;       // the events of one period
  Eigen::MatrixXd monodromy;            // Φ/Ξ chain (ndx × ndx)
  Eigen::MatrixXd shooting;             // finite differences of the hybrid flow over one period
  Eigen::VectorXcd multipliers, shooting_multipliers;  // the split spectra's, sorted by modulus, largest first
  Eigen::MatrixXd constraint_basis;     // orthonormal basis of the constraint-consistent subspace
  Eigen::VectorXcd constrained_multipliers, constrained_shooting_multipliers;
  int trivial = -1;                     // index in `multipliers` of the trivial multiplier
  double agreement = 0;                 // max |λ_chain − λ_shooting| over matched multipliers
  std::string verdict;                  // "stable", "neutrally stable" or "unstable"
  std::vector<int> symmetries;          // the cyclic coordinates that are exact symmetries
  // split spectra: full space (chain, shooting) and constraint-consistent (chain, shooting); the
  // symmetries that do not lie in the constrained subspace are left out of the constrained ones
  FloquetSpectrum spectrum, shooting_spectrum, constrained_spectrum, constrained_shooting_spectrum;
  // the cross-check at half the step (cross_check): its constrained chain spectrum and period
  bool cross_checked = false;
  double check_step = 0, check_period = 0;
  FloquetSpectrum check_spectrum;
  bool consistent = true;                   // no check failed
  std::vector<std::string> check_failures;  // one line per failed check, naming both values
};

// Finds the periodic orbit through the hybrid state s (iterating the return map) and its
// multipliers. Throws NumericalError when no section event occurs within max_period.
FloquetResult AnalyzePeriodicOrbit(RigidSimulator& sim, const HybridState& s, const FloquetOptions& options = {});

// Eigenvalues sorted by modulus (largest first, ties by real part).
Eigen::VectorXcd SortedEigenvalues(const Eigen::MatrixXd& A);

}  // namespace saltation

#endif  // SALTATION_FLOQUET_H_
