// Whether a point outside a mode has its gap held at zero by the mode's rows (theory.md §2, "A
// redundant support"): a box's fourth corner on a face held by three. The rigid reference asks it
// of a point touching at rest at a step's start (rigid_simulator.cc, the guard scan's at-rest
// branch) and of one new at a step's end (not "appeared penetrating"); such a point is no event of
// the rigid model while it stays so.
//
//   HeldSpan(model, d, dyn, solver)  the mode's evaluation at x (EvaluateMode: its rows J, J M⁻¹,
//            and the factorisation of A = J M⁻¹ Jᵀ it solved with, EvaluateMode's `solver`) and the
//            mjData it left at x (M and its factor, the time stamped for SurfaceVelocity); keeps
//            references to them, factorises nothing
//   Holds(p, n)  p a point outside the mode listed at x, n its normal row there (1 × nv) => whether
//            its gap's differential on the extended configuration space (q, t), (n, ∂g/∂t), lies in
//            the span of the held rows' (J_i, ∂g_i/∂t):
//              the row: the M⁻¹-metric residual of n off the rows' span,
//                s = nᵀM⁻¹n − bᵀA⁺b,  b = J M⁻¹ n,  A = J M⁻¹ Jᵀ,
//                A⁺ the mode solver's own (IslandSolver, pseudo-inverse over the eigenvalues
//                above Options::rank_tol of each group's largest), is at most rank_tol · nᵀM⁻¹n (the
//                mode solver's own threshold: adding the row to the mode would not raise its rank);
//              the time: with the coefficients c = A⁺b (n = Jᵀc to that residual), the surface rates
//                agree, |∂g/∂t − cᵀ ∂g_held/∂t| ≤ Options::velocity_tol (SurfaceVelocity's normal
//                entries; every rate is 0 without Options::mocap_motion). Along the mode's flow the
//                point's gap then moves as cᵀ of the held gaps, which the mode keeps at zero.
//            Each call solves M once (mj_solveM on d's factor) and A once (the mode's factorisation);
//            the first also takes the held rows' surface rates. false for an empty mode (no rows)
//            or a zero row.
#ifndef SALTATION_HELD_SPAN_H_
#define SALTATION_HELD_SPAN_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>

#include "island_solve.h"
#include "saltation/contacts.h"
#include "saltation/mode_dynamics.h"
#include "saltation/model.h"

namespace saltation {

class HeldSpan {
 public:
  HeldSpan(const Model& model, mjData* d, const ModeDynamics& dyn, IslandSolver& solver)
      : model_(model), d_(d), dyn_(dyn), solver_(solver) {}
  bool Holds(const ContactPoint& p, const Eigen::Ref<const Eigen::RowVectorXd>& n);

 private:
  const Model& model_;
  mjData* d_;
  const ModeDynamics& dyn_;
  IslandSolver& solver_;
  bool has_surface_ = false;
  Eigen::VectorXd surface_;  // ∂g/∂t of each held row (SurfaceVelocity; 0 for equality rows)
  Eigen::VectorXd minv_n_, b_, c_;
};

}  // namespace saltation

#endif  // SALTATION_HELD_SPAN_H_
