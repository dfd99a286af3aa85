#include "saltation/floquet.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>

#include "saltation/errors.h"
#include "saltation/finite_difference.h"
#include "floquet_spectrum.h"
#include "symmetry.h"

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
  char buf[1200];
  std::snprintf(buf, sizeof(buf),
                "no %s within %g s (FloquetOptions::max_period) after t = %.6g to return to the Poincaré "
                "section: %s (%s); at t = %.6g, |v| = %.3g: %s. No periodic orbit passes through this state "
                "with that section (a gait that repeats needs energy put in: a slope as models/rimless_wheel.xml, "
                "a pump as models/hopper_gait.xml; "
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

  // iterate the return map; cyclic coordinates are those whose per-period advance is steady. A
  // period may hold several section events (a hopper's foot strike and the strike of its leg
  // stop; a biped's left and right foot): the lag p = 1 … max_section_events whose states repeat
  // is the period, the smallest that does
  HybridState s = start;
  NextSection(sim, s, options, 0);
  const int lags = std::max(1, options.max_section_events);
  std::vector<State> history{s.x};  // section states, the newest last (at most 2·lags + 1 kept)
  auto mismatch_at = [&](int p, Eigen::VectorXd* step_out) {
    const int k = static_cast<int>(history.size()) - 1;
    const Eigen::VectorXd step = Difference(m, history[k - p], history[k]);
    // a coordinate that moves by more than the tolerance per period is cyclic; it must repeat its
    // advance, every other coordinate must repeat itself
    Eigen::VectorXd mismatch = step;
    if (k >= 2 * p) {
      const Eigen::VectorXd before = Difference(m, history[k - 2 * p], history[k - p]);
      for (int i = 0; i < nv; i++) {
        if (std::abs(step(i)) > 1e3 * options.tolerance) mismatch(i) = step(i) - before(i);
      }
    }
    *step_out = step;
    return mismatch.norm();
  };
  Eigen::VectorXd previous_step = Eigen::VectorXd::Zero(n);
  for (out.iterations = 1; out.iterations <= options.max_iterations; out.iterations++) {
    NextSection(sim, s, options, out.iterations);
    history.push_back(s.x);
    if (static_cast<int>(history.size()) > 2 * lags + 1) history.erase(history.begin());
    const int k = static_cast<int>(history.size()) - 1;
    // the smallest lag that has repeated (seen over two periods) is the period; before any has,
    // the lag with the smallest mismatch so far
    double best = std::numeric_limits<double>::infinity();
    for (int p = 1; p <= lags && p <= k; p++) {
      Eigen::VectorXd step;
      const double r = mismatch_at(p, &step);
      const bool repeated = r < options.tolerance && out.iterations > 2 * p;
      if (repeated || r < best) {
        best = r;
        out.section_events = p;
        out.period = history[k].time - history[k - p].time;
        previous_step = step;
      }
      if (repeated) break;
    }
    out.residual = best;
    if (out.residual < options.tolerance && out.iterations > 2 * out.section_events) {
      out.converged = true;
      break;
    }
  }
  out.shift = previous_step;
  for (int i = 0; i < nv; i++) {
    if (std::abs(previous_step(i)) > 1e3 * options.tolerance) out.cyclic.push_back(i);
  }
  for (int i = nv; i < n; i++) out.shift(i) = 0;
  // the point the matrices start from: the middle of the longest stretch between events of one
  // period (away from every event, so that a perturbation of fd_eps does not move one across it;
  // half a period after the section when the section event is the period's only one)
  {
    HybridState probe = s;
    std::vector<double> times{s.x.time};
    for (const RigidEvent& ev : sim.Advance(probe, s.x.time + out.period)) times.push_back(ev.time);
    times.push_back(s.x.time + out.period);
    double from = s.x.time, longest = 0;
    for (size_t i = 0; i + 1 < times.size(); i++) {
      if (times[i + 1] - times[i] > longest) {
        longest = times[i + 1] - times[i];
        from = times[i];
      }
    }
    out.mid = s;
    sim.Advance(out.mid, from + longest / 2);
  }

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

  // the flow direction at the mid point, and the exact symmetries among the cyclic coordinates
  Eigen::VectorXd flow(n);
  flow << out.mid.x.qvel, EvaluateMode(model, sim.data(), out.mid.x, out.mid.mode).qacc, Eigen::VectorXd::Zero(m->na);
  out.symmetries = ExactSymmetries(sim, out.mid, out.period, out.cyclic);
  std::vector<Eigen::VectorXd> directions;
  for (int i : out.symmetries) directions.push_back(Eigen::VectorXd::Unit(n, i));

  out.spectrum = SplitSpectrum(out.monodromy, flow, directions);
  out.shooting_spectrum = SplitSpectrum(out.shooting, flow, directions);
  out.multipliers = AllMultipliers(out.spectrum, &out.trivial);
  out.shooting_multipliers = AllMultipliers(out.shooting_spectrum, nullptr);
  for (int i = 0; i < std::min(out.multipliers.size(), out.shooting_multipliers.size()); i++) {
    out.agreement = std::max(out.agreement, std::abs(out.multipliers(i) - out.shooting_multipliers(i)));
  }

  // on the constraint-consistent subspace (the mode at the mid point maps back into itself); the
  // symmetry directions that lie in it
  Data data(model);
  out.constraint_basis = ConstraintBasis(model, data, out.mid.x, out.mid.mode);
  const Eigen::MatrixXd& B = out.constraint_basis;
  std::vector<Eigen::VectorXd> inside;
  for (const Eigen::VectorXd& e : directions) {
    if ((B.transpose() * e).norm() > 1 - 1e-9) inside.push_back(B.transpose() * e);
  }
  out.constrained_spectrum = SplitSpectrum(B.transpose() * out.monodromy * B, B.transpose() * flow, inside);
  out.constrained_shooting_spectrum = SplitSpectrum(B.transpose() * out.shooting * B, B.transpose() * flow, inside);
  out.constrained_multipliers = AllMultipliers(out.constrained_spectrum, nullptr);
  out.constrained_shooting_multipliers = AllMultipliers(out.constrained_shooting_spectrum, nullptr);

  // the verdict on the constrained multipliers other than the trivial and symmetry ones
  double largest = 0;
  for (int i = 0; i < out.constrained_spectrum.rest.size(); i++) {
    largest = std::max(largest, std::abs(out.constrained_spectrum.rest(i)));
  }
  if (largest > 1 + options.unit_tolerance) {
    out.verdict = "unstable";
  } else if (largest > 1 - options.unit_tolerance) {
    out.verdict = "neutrally stable";
  } else {
    out.verdict = "stable";
  }

  // the checks: the multipliers that are 1 by construction, then the half-step repetition
  const double tol = options.check_tolerance;
  char line[400];
  const FloquetSpectrum& c = out.constrained_spectrum;
  if (c.has_trivial && std::abs(c.trivial - 1) > tol) {
    std::snprintf(line, sizeof(line),
                  "trivial multiplier %.9f is not 1 (off by %.2e > %.1e; ‖Mf − f‖/‖f‖ = %.2e): the monodromy "
                  "does not map the flow direction to itself",
                  c.trivial, std::abs(c.trivial - 1), tol, c.trivial_error);
    out.check_failures.push_back(line);
  }
  for (size_t k = 0; k < out.spectrum.symmetry.size(); k++) {
    if (std::abs(out.spectrum.symmetry[k] - 1) > tol) {
      std::snprintf(line, sizeof(line), "symmetry multiplier of coordinate %d is %.9f, not 1 (off by %.2e > %.1e)",
                    out.symmetries[k], out.spectrum.symmetry[k], std::abs(out.spectrum.symmetry[k] - 1), tol);
      out.check_failures.push_back(line);
    }
  }
  if (options.cross_check) {
    SimulatorOptions half = sim.options();
    half.step /= 2;
    RigidSimulator check(model, half);
    if (m->nu > 0) check.SetControl(Eigen::Map<const Eigen::VectorXd>(sim.data().main()->ctrl, m->nu));
    check.SetRestitution(sim.restitution());
    FloquetOptions o = options;
    o.cross_check = false;
    const FloquetResult h = AnalyzePeriodicOrbit(check, out.mid, o);
    out.cross_checked = true;
    out.check_step = half.step;
    out.check_period = h.period;
    out.check_spectrum = h.constrained_spectrum;
    const FloquetSpectrum& d = h.constrained_spectrum;
    if (!h.converged) {
      std::snprintf(line, sizeof(line), "at half the step (%g s) the orbit did not converge (residual %.2e)",
                    half.step, h.residual);
      out.check_failures.push_back(line);
    } else if (d.rest.size() != c.rest.size()) {
      std::snprintf(line, sizeof(line), "at half the step (%g s) %d multipliers besides the trivial one, at %g s %d",
                    half.step, static_cast<int>(d.rest.size()), sim.options().step, static_cast<int>(c.rest.size()));
      out.check_failures.push_back(line);
    } else {
      if (c.has_trivial && d.has_trivial && std::abs(c.trivial - d.trivial) > tol) {
        std::snprintf(line, sizeof(line), "trivial multiplier %.9f at step %g s, %.9f at half the step: differ by %.2e > %.1e",
                      c.trivial, sim.options().step, d.trivial, std::abs(c.trivial - d.trivial), tol);
        out.check_failures.push_back(line);
      }
      for (int i = 0; i < c.rest.size(); i++) {
        const double diff = std::abs(c.rest(i) - d.rest(i));
        if (diff > tol) {
          std::snprintf(line, sizeof(line),
                        "multiplier %.9f%+.2ei at step %g s, %.9f%+.2ei at half the step: differ by %.2e > %.1e",
                        c.rest(i).real(), c.rest(i).imag(), sim.options().step, d.rest(i).real(), d.rest(i).imag(), diff, tol);
          out.check_failures.push_back(line);
        }
      }
    }
  }
  out.consistent = out.check_failures.empty();
  return out;
}

}  // namespace saltation
