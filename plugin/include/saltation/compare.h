// The rigid hybrid sensitivity Φ(t1←t0) (the Φ·Ξ·Φ chain) against MuJoCo's compliant one (the
// product of mjd_transitionFD Jacobians) over a window around a contact event, as the contact
// stiffens (theory.md §10): the computation behind `saltation compare`.
//
//   (mjModel, start State, CompareSettings) => CompareSweep   => CompareReport: a CompareRow per τ
//   (mjModel, start State, CompareSettings, τ) => CompareAtTau => one CompareRow
//   (CompareReport)                          => CompareVerdict => one sentence on the trend
//   (model path, settings, report, names)    => CompareJson    => the `compare --out` document
//
// For each solref time constant τ the model is copied (StiffenedModel), never written: every
// contact's solref time constant set to τ (geoms, explicit pairs, the override), the timestep to
// τ/N. Pass 1 runs the engine hook from the start state to find the first touchdown and the
// effective restitution MuJoCo's contact gives that pair; pass 2 propagates both chains over the
// window with the rigid restitution matched to it. The window's events explain where the two
// cannot agree (grazing, simultaneous events, Zeno, chatter) as flags, and the compliant chain's
// contact-onset term is measured. MuJoCo warnings are left for TakeMujocoWarnings().
#ifndef SALTATION_COMPARE_H_
#define SALTATION_COMPARE_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "saltation/model.h"
#include "saltation/tangent.h"

namespace saltation {

// The sweep. Preconditions (the command line checks them): taus positive and strictly decreasing,
// steps_per_tau ≥ 2, solimp empty or mjNIMP values, window_t0 < window_t1 when given.
struct CompareSettings {
  std::vector<double> taus = {0.02, 0.01, 0.005, 0.002};  // solref time constants (s)
  double dampratio = -1;       // solref damping ratio of every contact; < 0: each geom's own
  int steps_per_tau = 20;      // timestep = τ / steps_per_tau
  std::vector<double> solimp;  // impedance of every contact (mjNIMP values); empty: each one's own
  int integrator = -1;         // an mjtIntegrator; < 0: the model's
  bool window_given = false;   // false: around the first touchdown (kCompareLeadTime before it)
  double window_t0 = 0, window_t1 = 0;
  double search = 5;  // look for the first touchdown within this many seconds of the start
};

// automatic window: it opens this many seconds before the first touchdown
constexpr double kCompareLeadTime = 0.02;

// One τ of the sweep. Matrices in the tangent layout (dq, dv, act).
struct CompareRow {
  double tau = 0, timestep = 0, dampratio = 0;
  double restitution = -1;            // effective restitution the rigid chain was given
  bool restitution_measured = false;  // false: the model's value
  double t_touch = 0, t_next = -1;    // first touchdown, the next one (−1: none seen)
  double t0 = 0, t1 = 0;              // the window both chains cover
  std::string contact;                // the touchdown's geom pair, "geom1/geom2"
  double relative = 0, absolute = 0;  // ‖Φr − Φc‖/‖Φc‖, ‖Φr − Φc‖ (Frobenius)
  double max_discrepancy = 0;         // max |Φr − Φc| element, at (at_i, at_j)
  int at_i = 0, at_j = 0;
  double onset = std::numeric_limits<double>::quiet_NaN();  // |Φc(v_n, q_n)|·τ
  double onset_share = 0;  // |(Φr − Φc)(v_n, q_n)| / ‖Φr − Φc‖
  double relative_off_onset = std::numeric_limits<double>::quiet_NaN();  // onset direction projected out
  std::vector<std::string> flags;   // why the two cannot agree, one sentence each
  std::vector<std::string> events;  // event kinds in the window, in time order
  Eigen::MatrixXd rigid, compliant;  // Φr(t1←t0), Φc(t1←t0)
};

struct CompareReport {
  std::vector<CompareRow> rows;  // one per τ, in the settings' order
  bool monotone = false;         // two rows or more, the relative difference strictly falling
  bool converging = false;       // monotone and the last relative difference below 0.5
};

// A copy of m with every contact's solref time constant τ (and the dampratio, when given), every
// contact's solimp (when given), the timestep τ/steps_per_tau and the integrator (when given).
// ConfigError when a contact uses direct solref (negative stiffness, damping) and no dampratio
// is given.
ModelPtr StiffenedModel(const mjModel* m, const CompareSettings& s, double tau);

// Both chains at one τ from x_start. ConfigError when there is no touchdown to compare (the
// message lists the events seen); NumericalError when MuJoCo's simulation becomes unstable or the
// hook fails inside the window.
CompareRow CompareAtTau(const mjModel* m, const CompareSettings& s, const State& x_start, double tau);

// CompareAtTau for each τ of s.taus, before_each(index, τ) called before each one (progress).
CompareReport CompareSweep(const mjModel* m, const CompareSettings& s, const State& x_start,
                           const std::function<void(size_t index, double tau)>& before_each = nullptr);

// The trend in one sentence, e.g. "the relative difference falls monotonically as the contact
// stiffens (0.8 -> 0.1)", or what the flags say when it does not fall.
std::string CompareVerdict(const CompareReport& report);

// The whole JSON document (ends with a newline): {"model", "window", "layout", "steps_per_tau",
// "solimp" (when given), "monotone", "converging", "rows": [{"tau", "timestep", "dampratio",
// "effective_restitution", "restitution_measured", "touchdown", "contact", "next_touchdown", "t0",
// "t1", "relative_difference", "absolute_difference", "max_discrepancy", "at", "at_names",
// "onset_term", "relative_difference_off_onset", "events", "flags", "rigid", "compliant"}]}.
// names: StateLabels of the model (tangent.h).
std::string CompareJson(const std::string& model_path, const CompareSettings& s, const CompareReport& report,
                        const std::vector<std::string>& names);

}  // namespace saltation

#endif  // SALTATION_COMPARE_H_
