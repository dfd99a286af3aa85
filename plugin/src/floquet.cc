#include "saltation/floquet.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "saltation/errors.h"
#include "saltation/finite_difference.h"

namespace saltation {
namespace {

// advances to the next section event; s becomes its post-event state. `returns`: how many section
// events were found before this one (0: the first, from the start itself)
RigidEvent NextSection(RigidSimulator& sim, HybridState& s, const FloquetOptions& options, int returns) {
  const double from = s.x.time;
  const double limit = from + options.max_period;
  std::map<std::string, int> seen;  // events of other kinds on the way
  while (s.x.time < limit) {
    std::vector<RigidEvent> events = sim.Advance(s, limit, 1);
    if (events.empty()) break;
    if (events.front().kind == options.section) return events.front();
    seen[EventKindName(events.front().kind)]++;
  }
  // what happened instead: the events on the way, and how the run ended
  const double speed = s.x.qvel.norm();
  std::string other;
  for (const auto& [kind, count] : seen) other += (other.empty() ? "" : ", ") + std::to_string(count) + " " + kind;
  std::string why;
  if (speed < 1e-6) {
    why = "the motion settled to rest";
  } else if (!s.mode.contacts.empty()) {
    why = "it stays on the ground (" + std::to_string(s.mode.contacts.size()) +
          " contacts held) rolling, sliding or swaying without leaving it: the impacts took the energy "
          "and nothing puts it back";
  } else {
    why = "it is in flight without coming back (a period longer than max_period, or it escaped)";
  }
  char buf[900];
  std::snprintf(buf, sizeof(buf),
                "no %s within %g s (FloquetOptions::max_period) after t = %.6g to return to the Poincaré "
                "section: %s (%s); at t = %.6g, |v| = %.3g: %s. No periodic orbit passes through this state "
                "with that section (a gait that repeats needs energy put in: a slope, a controller; "
                "--section liftoff looks at another event)",
                EventKindName(options.section), options.max_period, from,
                returns == 0 ? "the run from this state had none"
                             : ("after " + std::to_string(returns) + " return(s) there was none").c_str(),
                other.empty() ? "no other event either" : ("only " + other).c_str(),
                s.x.time, speed, why.c_str());
  throw NumericalError(buf);
}

// the flow's finite differences over a stretch of the orbit, with what to do when a perturbed run
// meets other events than the nominal one (an event near grazing, or two contacts near
// simultaneous: the flow map is not smooth at this orbit for perturbations of fd_eps)
Eigen::MatrixXd OrbitJacobian(RigidSimulator& sim, const HybridState& s0, double t_end, double eps, bool events,
                              const char* what) {
  try {
    return FlowJacobianFD(sim, s0, t_end, eps, events);
  } catch (const NumericalError& e) {
    throw NumericalError(std::string(e.what()) + " (while differencing " + what + " from t = " +
                         std::to_string(s0.x.time) + " with steps of " + std::to_string(eps) +
                         ": an event of the orbit is near grazing or two contacts land nearly together, so a "
                         "perturbation changes which events happen. Try a smaller FloquetOptions::fd_eps, another section (--section liftoff), or "
                         "look at the events of the period (rigid --out) for a grazing or simultaneous one: its "
                         "multipliers are not defined by a smooth map)");
  }
}

// basis of the tangent perturbations that keep the mode's constraints: J δq = 0 and
// J δv + ∂(J v)/∂q δq = 0 (rows of the mode at x)
Eigen::MatrixXd ConstraintBasis(const Model& model, Data& data, const State& x, const Mode& mode) {
  const mjModel* m = model.mj();
  const int nv = m->nv, n = model.ndx();
  // the mode's rows at configuration q (the whole position stage, every contact point)
  std::vector<ContactPoint> points;
  ConstraintSet set;
  auto rows_at = [&](const Eigen::VectorXd& q) {
    EvaluatePosition(model, data.aux(), q.data());
    ListContacts(model, data.aux(), points);
    ModeConstraints(model, data.aux(), mode.contacts, points, set, data.work());
    return set.J;
  };
  const RowMatrix J = rows_at(x.qpos);
  if (J.rows() == 0) return Eigen::MatrixXd::Identity(n, n);
  Eigen::MatrixXd K(J.rows(), nv);
  const double eps = model.options().fd_step;
  Eigen::VectorXd dq = Eigen::VectorXd::Zero(nv);
  for (int i = 0; i < nv; i++) {
    dq.setZero();
    dq(i) = eps;
    Eigen::VectorXd qp = x.qpos, qm = x.qpos;
    mj_integratePos(m, qp.data(), dq.data(), 1);
    mj_integratePos(m, qm.data(), dq.data(), -1);
    const Eigen::VectorXd fp = rows_at(qp) * x.qvel;
    const Eigen::VectorXd fm = rows_at(qm) * x.qvel;
    K.col(i) = (fp - fm) / (2 * eps);
  }
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(2 * J.rows(), n);
  C.block(0, 0, J.rows(), nv) = J;
  C.block(J.rows(), 0, J.rows(), nv) = K;
  C.block(J.rows(), nv, J.rows(), nv) = J;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(C, Eigen::ComputeFullV);
  const Eigen::VectorXd& sv = svd.singularValues();
  int rank = 0;
  for (int i = 0; i < sv.size(); i++) rank += sv(i) > 1e-9 * std::max(1.0, sv(0));
  return svd.matrixV().rightCols(n - rank);
}

// A repeated multiplier with a Jordan block (an elastic bounce: the period depends on the energy)
// splits under an O(ε) perturbation of the matrix into values O(√ε) apart; their mean is accurate
// to O(ε). Multipliers within `radius` of 1 are replaced by their mean when they are several.
void MergeUnitCluster(Eigen::VectorXcd& mu, double radius) {
  std::vector<int> near;
  for (int i = 0; i < mu.size(); i++) {
    if (std::abs(mu(i) - 1.0) < radius) near.push_back(i);
  }
  if (near.size() < 2) return;
  std::complex<double> mean = 0;
  for (int i : near) mean += mu(i);
  mean /= static_cast<double>(near.size());
  for (int i : near) mu(i) = mean;
}

}  // namespace

Eigen::VectorXcd SortedEigenvalues(const Eigen::MatrixXd& A) {
  Eigen::EigenSolver<Eigen::MatrixXd> eig(A, false);
  Eigen::VectorXcd values = eig.eigenvalues();
  std::vector<std::complex<double>> v(values.data(), values.data() + values.size());
  std::sort(v.begin(), v.end(), [](const std::complex<double>& a, const std::complex<double>& b) {
    if (std::abs(std::abs(a) - std::abs(b)) > 1e-12) return std::abs(a) > std::abs(b);
    return a.real() > b.real();
  });
  return Eigen::Map<Eigen::VectorXcd>(v.data(), v.size());
}

FloquetResult AnalyzePeriodicOrbit(RigidSimulator& sim, const HybridState& start, const FloquetOptions& options) {
  const Model& model = sim.model();
  const mjModel* m = model.mj();
  const int n = model.ndx(), nv = m->nv;
  FloquetResult out;

  // iterate the return map; cyclic coordinates are those whose per-period advance is steady
  HybridState s = start;
  NextSection(sim, s, options, 0);
  State previous = s.x;
  Eigen::VectorXd previous_step = Eigen::VectorXd::Zero(n);
  double previous_time = s.x.time;
  for (out.iterations = 1; out.iterations <= options.max_iterations; out.iterations++) {
    NextSection(sim, s, options, out.iterations);
    const Eigen::VectorXd step = Difference(m, previous, s.x);
    out.period = s.x.time - previous_time;
    // a coordinate that moves by more than the tolerance per period is cyclic; it must repeat its
    // advance, every other coordinate must repeat itself
    Eigen::VectorXd mismatch = step;
    for (int i = 0; i < nv; i++) {
      if (std::abs(step(i)) > 1e3 * options.tolerance) mismatch(i) = step(i) - previous_step(i);
    }
    out.residual = mismatch.norm();
    previous = s.x;
    previous_step = step;
    previous_time = s.x.time;
    if (out.residual < options.tolerance && out.iterations > 2) {
      out.converged = true;
      break;
    }
  }
  out.shift = previous_step;
  for (int i = 0; i < nv; i++) {
    if (std::abs(previous_step(i)) > 1e3 * options.tolerance) out.cyclic.push_back(i);
  }
  for (int i = nv; i < n; i++) out.shift(i) = 0;

  // a mid-period point, and one period from it
  out.mid = s;
  sim.AdvanceFixedMode(out.mid, s.x.time + out.period / 2);

  // Newton on the mid-period point and the period when iterating has not settled (an unstable or
  // slowly converging orbit): [Φ_T − I, F; Fᵀ, 0] [δx; δT] = −[x(T) ⊖ x − shift; 0], solved in the
  // least-squares sense (symmetry directions make Φ_T − I singular too)
  const double eps = options.fd_eps;
  auto mid_residual = [&](const HybridState& x0, double T, HybridState* end) {
    HybridState e = x0;
    sim.Advance(e, x0.x.time + T);
    if (end) *end = e;
    Eigen::VectorXd r = Difference(m, x0.x, e.x) - out.shift;
    return r;
  };
  for (int it = 0; it < options.newton_iterations && !out.converged; it++) {
    const Eigen::VectorXd r = mid_residual(out.mid, out.period, nullptr);
    if (r.norm() < options.tolerance) {
      out.converged = true;
      break;
    }
    const Eigen::MatrixXd S = OrbitJacobian(sim, out.mid, out.mid.x.time + out.period, eps, true, "one period (Newton)");
    Eigen::VectorXd f(n);
    f << out.mid.x.qvel, EvaluateMode(model, sim.data(), out.mid.x, out.mid.mode).qacc, Eigen::VectorXd::Zero(m->na);
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n + 1, n + 1);
    K.topLeftCorner(n, n) = S - Eigen::MatrixXd::Identity(n, n);
    K.topRightCorner(n, 1) = f;
    K.bottomLeftCorner(1, n) = f.transpose();
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + 1);
    rhs.head(n) = -r;
    const Eigen::VectorXd delta = K.completeOrthogonalDecomposition().solve(rhs);
    out.mid.x = Integrate(m, out.mid.x, delta.head(n));
    out.period += delta(n);
    out.residual = mid_residual(out.mid, out.period, nullptr).norm();
    out.newton_iterations = it + 1;
    if (out.residual < options.tolerance) out.converged = true;
  }

  const double t_mid = out.mid.x.time, t_end = t_mid + out.period;
  HybridState probe = out.mid;
  out.events = sim.Advance(probe, t_end);

  // the Φ/Ξ chain
  out.monodromy = Eigen::MatrixXd::Identity(n, n);
  HybridState segment = out.mid;
  for (const RigidEvent& ev : out.events) {
    out.monodromy = ev.xi.Dense() * OrbitJacobian(sim, segment, ev.time, eps, false, "a mode's flow") * out.monodromy;
    segment = HybridState{ev.x_plus, ev.mode_after};
  }
  out.monodromy = OrbitJacobian(sim, segment, t_end, eps, false, "a mode's flow") * out.monodromy;
  // shooting: the whole hybrid flow over one period
  out.shooting = OrbitJacobian(sim, out.mid, t_end, eps, true, "the hybrid flow over one period (shooting)");

  out.multipliers = SortedEigenvalues(out.monodromy);
  out.shooting_multipliers = SortedEigenvalues(out.shooting);
  MergeUnitCluster(out.multipliers, 1e-2);
  MergeUnitCluster(out.shooting_multipliers, 1e-2);
  for (int i = 0; i < n; i++) {
    out.agreement = std::max(out.agreement, std::abs(out.multipliers(i) - out.shooting_multipliers(i)));
  }
  // the trivial multiplier: the one nearest 1 (M F = F along a periodic orbit)
  double best = 1e300;
  for (int i = 0; i < n; i++) {
    const double d = std::abs(out.multipliers(i) - 1.0);
    if (d < best) best = d, out.trivial = i;
  }

  // on the constraint-consistent subspace (the mode at the mid point maps back into itself)
  Data data(model);
  out.constraint_basis = ConstraintBasis(model, data, out.mid.x, out.mid.mode);
  const Eigen::MatrixXd& B = out.constraint_basis;
  out.constrained_multipliers = SortedEigenvalues(B.transpose() * out.monodromy * B);
  out.constrained_shooting_multipliers = SortedEigenvalues(B.transpose() * out.shooting * B);
  MergeUnitCluster(out.constrained_multipliers, 1e-2);
  MergeUnitCluster(out.constrained_shooting_multipliers, 1e-2);

  // the verdict on the constrained multipliers without the trivial one
  const Eigen::VectorXcd& mu = out.constrained_multipliers;
  int trivial = -1;
  best = 1e300;
  for (int i = 0; i < mu.size(); i++) {
    const double d = std::abs(mu(i) - 1.0);
    if (d < best) best = d, trivial = i;
  }
  double largest = 0;
  for (int i = 0; i < mu.size(); i++) {
    if (i != trivial) largest = std::max(largest, std::abs(mu(i)));
  }
  if (largest > 1 + options.unit_tolerance) {
    out.verdict = "unstable";
  } else if (largest > 1 - options.unit_tolerance) {
    out.verdict = "neutrally stable";
  } else {
    out.verdict = "stable";
  }
  return out;
}

}  // namespace saltation
