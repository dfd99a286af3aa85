// The saltation matrix of one event (theory.md §5).
//
//   Ξ = DΔ + (F⁺ − DΔ F⁻ − D_tΔ) ∇gᵀ / (∇gᵀ F⁻ + ∂g/∂t)
//
// F⁻ = F_A(x⁻) in the mode before, F⁺ = F_B(Δ(x⁻)) in the mode after, g the guard that fired.
// The correction is a rank-one outer product, so Ξ is kept as DΔ's velocity blocks plus two
// vectors: Ξ = DΔ + u ∇gᵀ with u = (F⁺ − DΔF⁻ − D_tΔ)/(∇gᵀF⁻ + ∂g/∂t); Dense() builds the
// (ndx × ndx) matrix on demand. The event time moves with the pre-event state as
// δt = −∇gᵀ δx⁻ / (∇gᵀF⁻ + ∂g/∂t) (dt_dx). Everything is in the tangent layout (dq, dv, act).
// Where DΔ is restricted to an island (ResetJacobian::dofs) the products below (Apply,
// ApplyTranspose, the correction, the finiteness check, Norm) read only its blocks on those dofs:
// an event among many bodies costs its island's size, not nv².
#ifndef SALTATION_SALTATION_MATRIX_H_
#define SALTATION_SALTATION_MATRIX_H_

#include <Eigen/Dense>

#include <vector>

#include "saltation/impact.h"

namespace saltation {

struct SaltationMatrix {
  ResetJacobian reset;           // DΔ
  Eigen::VectorXd f_minus;       // F⁻ (ndx)
  Eigen::VectorXd f_plus;        // F⁺ (ndx)
  Eigen::VectorXd grad_g;        // ∇g (ndx)
  double dg_dt = 0;              // ∂g/∂t (moving surfaces; 0 otherwise)
  Eigen::VectorXd dreset_dt;     // D_tΔ (ndx; moving surfaces: (0, ∂v⁺/∂t, 0)); empty: 0
  double transversality = 0;     // ∇gᵀF⁻ + ∂g/∂t (< 0 for a crossing from + to −)
  // unit-free grazing measure in [0, 1]: 0 grazing, 1 head-on (the guard's kind picks it; NaN
  // until measured). Kinematic guards (touchdown, kinematic release): KineticTransversality, the
  // cosine of the approach angle in the kinetic-energy metric. Liftoff: CancellationRatio of ∇λ_nᵀF⁻.
  // Both are the event's island's (KineticTransversality takes it; ∇λ_n is zero off it).
  double transversality_rel = 0;
  Eigen::VectorXd correction;    // u (ndx)
  Eigen::VectorXd dt_dx;         // ∂t_event/∂x⁻ (ndx)

  int ndx() const { return static_cast<int>(grad_g.size()); }
  // Ξ (ndx × ndx)
  Eigen::MatrixXd Dense() const;
  // Ξ δx without forming Ξ
  Eigen::VectorXd Apply(const Eigen::VectorXd& dx) const;
  // Ξᵀ w without forming Ξ (value-function back-propagation)
  Eigen::VectorXd ApplyTranspose(const Eigen::VectorXd& w) const;
  // spectral norm ‖Ξ‖₂ (formed on the indices where Ξ differs from I: an island's cost)
  double Norm() const;
  // Ξ_SS = DΔ_SS + u_S ∇g_Sᵀ on the tangent indices S (increasing), read from the factors; Ξ is that
  // block and the identity elsewhere when S holds every index where Ξ differs from I
  Eigen::MatrixXd Block(const std::vector<int>& S) const;
};

// The transversality part alone (grad_g, f_minus, transversality, dt_dx), for events whose Ξ is
// completed later; throws like ComputeSaltation at zero transversality. transversality_rel is left
// NaN: which unit-free measure fits depends on the guard (events.cc sets it).
SaltationMatrix ComputeTransversality(const Eigen::VectorXd& f_minus, const Eigen::VectorXd& grad_g,
                                      double dg_dt = 0);

// Assembles Ξ from its pieces (DΔ taken by value: pass it with std::move, its nv² blocks are not
// copied); dreset_dt is D_tΔ (ndx), empty for a reset that does not depend
// on time (every reset but an impact on a surface with a prescribed motion). Throws NumericalError
// when the transversality is exactly zero or anything is not finite.
SaltationMatrix ComputeSaltation(ResetJacobian reset, const Eigen::VectorXd& f_minus,
                                 const Eigen::VectorXd& f_plus, const Eigen::VectorXd& grad_g,
                                 double dg_dt = 0, const Eigen::VectorXd& dreset_dt = Eigen::VectorXd());

// The unit-free transversality of a dynamic guard (liftoff, g = λ_n): how much of the rate
// ∇gᵀF⁻ survives the cancellation of its three parts, the drifts of the configuration, the
// velocity and the activation,
//
//   ρ = |t_q + t_v + t_a| / (|t_q| + |t_v| + |t_a|),  t_q = ∇_q gᵀ q̇, t_v = ∇_v gᵀ v̇, t_a = ∇_a gᵀ ȧ
//
// (1/ρ is the condition number of the sum). Each part has the guard's units per second (N/s for a
// force) whatever the coordinates' units, and each is a scalar invariant under a change of
// coordinates of its block, so ρ is unit-free and coordinate-free; ρ → 0 where the force's rate
// vanishes by the parts cancelling (a grazing release, the force touching zero and turning back).
// grad_g and f_minus in the tangent layout (dq, dv, act) with nv velocities; 0 when all parts are 0.
double CancellationRatio(const Eigen::VectorXd& grad_g, const Eigen::VectorXd& f_minus, int nv);

}  // namespace saltation

#endif  // SALTATION_SALTATION_MATRIX_H_
