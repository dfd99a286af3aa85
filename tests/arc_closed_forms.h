// Closed forms shared by the feature tests (edge_test: a ball over a box edge; capsule_end_test:
// a ball or a log over a capsule's end): a body going round a circular arc of radius rho about a
// fixed axis, in the planar x–z models of those tests (slide joints x, z: state (x, z, v_x, v_z)).
// Pure functions of their arguments.
#ifndef SALTATION_TESTS_ARC_CLOSED_FORMS_H_
#define SALTATION_TESTS_ARC_CLOSED_FORMS_H_

#include <Eigen/Dense>
#include <cmath>

namespace saltation::testing {

// The time to go from angle 0 to theta round the arc at speed v(θ) = √(v0² + 2 g ρ (1 − cos θ))
// (g: gravity for a sliding body, 5/7 of it for a ball rolling without slip): ∫₀^θ ρ dθ / v(θ)
// by Simpson's rule (smooth integrand: 1e5 intervals is round-off).
inline double TimeRoundAnArc(double v0, double rho, double g, double theta) {
  auto f = [&](double t) { return rho / std::sqrt(v0 * v0 + 2 * g * rho * (1 - std::cos(t))); };
  const int n = 100000;
  const double h = theta / n;
  double sum = f(0) + f(theta);
  for (int i = 1; i < n; i++) sum += (i % 2 ? 4 : 2) * f(i * h);
  return sum * h / 3;
}

// Ξ of the planar models' switches: the identity with one entry in the v_z row, x column
inline Eigen::MatrixXd XiWithEntry(double value) {
  Eigen::MatrixXd xi = Eigen::MatrixXd::Identity(4, 4);
  xi(3, 0) = value;
  return xi;
}

}  // namespace saltation::testing

#endif  // SALTATION_TESTS_ARC_CLOSED_FORMS_H_
