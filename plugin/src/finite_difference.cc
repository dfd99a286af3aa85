#include "saltation/finite_difference.h"

#include "saltation/errors.h"

namespace saltation {

Eigen::MatrixXd TangentJacobianFD(const mjModel* m, const std::function<State(const State&)>& map,
                                  const State& x, double eps) {
  const int n = TangentDim(m);
  const State y0 = map(x);
  Eigen::MatrixXd jac(n, n);
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; i++) {
    e.setZero();
    e(i) = eps;
    const State yp = map(Integrate(m, x, e));
    const State ym = map(Integrate(m, x, e, -1));
    jac.col(i) = (Difference(m, y0, yp) - Difference(m, y0, ym)) / (2 * eps);
  }
  return jac;
}

Eigen::MatrixXd FlowJacobianFD(RigidSimulator& sim, const HybridState& s0, double t_end, double eps,
                               bool events) {
  size_t nominal_events = 0;
  bool first = true;
  auto flow = [&](const State& x) {
    HybridState s{x, s0.mode};
    size_t count = 0;
    if (events) {
      count = sim.Advance(s, t_end).size();
    } else {
      sim.AdvanceFixedMode(s, t_end);
    }
    if (first) {
      nominal_events = count;
      first = false;
    } else if (count != nominal_events) {
      throw NumericalError("a perturbed run had " + std::to_string(count) + " events, the nominal " +
                           std::to_string(nominal_events) + ": the flow map is not smooth here");
    }
    return s.x;
  };
  return TangentJacobianFD(sim.model().mj(), flow, s0.x, eps);
}

}  // namespace saltation
