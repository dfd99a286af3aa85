#include "symmetry.h"

#include "saltation/errors.h"
#include "saltation/tangent.h"

namespace saltation {

std::vector<int> ExactSymmetries(RigidSimulator& sim, const HybridState& s, double duration,
                                 const std::vector<int>& candidates, double shift, double tolerance) {
  const mjModel* m = sim.model().mj();
  const int n = sim.model().ndx();
  std::vector<int> out;
  HybridState nominal = s;
  try {
    sim.Advance(nominal, s.x.time + duration);
  } catch (const NumericalError&) {
    return out;
  }
  for (int i : candidates) {
    if (i < 0 || i >= m->nv) continue;
    Eigen::VectorXd d = Eigen::VectorXd::Zero(n);
    d(i) = shift;
    HybridState shifted{Integrate(m, s.x, d), s.mode};
    try {
      sim.Advance(shifted, s.x.time + duration);
    } catch (const NumericalError&) {
      continue;
    }
    if (shifted.mode.contacts.size() != nominal.mode.contacts.size()) continue;
    if ((Difference(m, nominal.x, shifted.x) - d).norm() <= tolerance) out.push_back(i);
  }
  return out;
}

}  // namespace saltation
