// The steps of CompareAtTau (compare.h), one file each: pass 1 (compare_touchdown.cc), pass 2
// (compare_chains.cc), the window's diagnosis (compare_diagnosis.cc), the stiffened model and
// MuJoCo's contact parameters (compare_stiffness.cc). Private to the library.
#ifndef SALTATION_SRC_COMPARE_INTERNAL_H_
#define SALTATION_SRC_COMPARE_INTERNAL_H_

#include <mujoco/mujoco.h>

#include <memory>
#include <string>
#include <vector>

#include "saltation/compare.h"
#include "saltation/hook.h"

namespace saltation::compare_internal {

// x formatted with a printf format of one number
std::string Fmt(const char* format, double x);

// appends flag to row.flags unless it is there
void AddFlag(CompareRow& row, const std::string& flag);

// a touchdown or a graze: the events that open a window
bool IsTouchdown(const HookEvent& ev);

// NumericalError when d's state is not finite or MuJoCo warned of a bad acceleration
void CheckStable(const mjData* d, double tau);

// Pass 1. (base, s, x_start, τ) => the first touchdown (within s.search of the start, or in the
// given window) and, in row: timestep, dampratio, t_touch, t_next, contact, restitution and
// restitution_measured (MuJoCo's effective restitution of the pair, else the model's; flagged).
// ConfigError listing the events seen when there is no touchdown.
HookEvent FindFirstTouchdown(const mjModel* base, const CompareSettings& s, const State& x_start, double tau,
                             CompareRow& row);

// (s, x_start, row.t_touch, row.t_next, row.tau) => row.t0, row.t1: the given window, else from
// kCompareLeadTime before the touchdown to max(0.1 s, 20 τ) after it, ending before the next one
void ChooseWindow(const CompareSettings& s, const State& x_start, CompareRow& row);

// Pass 2's result: the stiffened model and the hook that propagated both chains over the window.
struct Chains {
  ModelPtr m;
  std::unique_ptr<Hook> hook;  // declared after m: destroyed (margins restored) before it
  Eigen::MatrixXd pre;         // Φc(t_k ← t0) at the last step end t_k before the touchdown
  double fd_eps = 0;           // the hook's finite-difference step
};

// Pass 2. (base, s, x_start, τ, row.restitution, row.t0, row.t1, row.t_touch) => both chains over
// the window; row.t0, row.t1 the window they cover, row.rigid, row.compliant. A failure of the
// hook's bookkeeping after the event shortens the window to end before it (flagged) once;
// otherwise NumericalError.
Chains PropagateChains(const mjModel* base, const CompareSettings& s, const State& x_start, CompareRow& row);

// (row.rigid, row.compliant) => row.absolute, row.relative, row.max_discrepancy, row.at_i/at_j
void MeasureDifference(CompareRow& row);

// (events, row.t0, row.t1) => row.events and the flags of grazing, simultaneous events, Zeno,
// chatter or no event; the first touchdown in the window with Ξ, or nullptr
const HookEvent* DiagnoseWindowEvents(const std::vector<HookEvent>& events, CompareRow& row);

// (touchdown's ∇g, the chains) => row.onset, row.onset_share, row.relative_off_onset
void MeasureOnsetTerm(const HookEvent& touchdown, const Chains& chains, CompareRow& row);

// flags a touchdown that falls on the time grid, where mjd_transitionFD's perturbations straddle
// a contact switch with a force jump
void FlagTouchdownOnTimeGrid(const HookEvent& touchdown, const Chains& chains, const State& x_start,
                             CompareRow& row);

// flags a vanishing rigid chain, an onset-dominated compliant one, a chain not finite
void FlagChainQuality(CompareRow& row);

// MuJoCo 2.2.2's solimp of a contact between geom1 and geom2 (mj_contactParam)
void ContactSolimp(const mjModel* m, int geom1, int geom2, mjtNum solimp[mjNIMP]);

}  // namespace saltation::compare_internal

#endif  // SALTATION_SRC_COMPARE_INTERNAL_H_
