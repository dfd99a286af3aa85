// The saltation matrix of one event (theory.md §5).
//
//   Ξ = DΔ + (F⁺ − DΔ F⁻ − D_tΔ) ∇gᵀ / (∇gᵀ F⁻ + ∂g/∂t)
//
// F⁻ = F_A(x⁻) in the mode before, F⁺ = F_B(Δ(x⁻)) in the mode after, g the guard that fired.
// The correction is a rank-one outer product, so Ξ is kept as DΔ's velocity blocks plus two
// vectors: Ξ = DΔ + u ∇gᵀ with u = (F⁺ − DΔF⁻ − D_tΔ)/(∇gᵀF⁻ + ∂g/∂t); Dense() builds the
// (ndx × ndx) matrix on demand. The event time moves with the pre-event state as
// δt = −∇gᵀ δx⁻ / (∇gᵀF⁻ + ∂g/∂t) (dt_dx). Everything is in the tangent layout (dq, dv, act).
#ifndef SALTATION_SALTATION_MATRIX_H_
#define SALTATION_SALTATION_MATRIX_H_

#include <Eigen/Dense>

#include "saltation/impact.h"

namespace saltation {

struct SaltationMatrix {
  ResetJacobian reset;           // DΔ
  Eigen::VectorXd f_minus;       // F⁻ (ndx)
  Eigen::VectorXd f_plus;        // F⁺ (ndx)
  Eigen::VectorXd grad_g;        // ∇g (ndx)
  double dg_dt = 0;              // ∂g/∂t (moving surfaces; 0 otherwise)
  double transversality = 0;     // ∇gᵀF⁻ + ∂g/∂t (< 0 for a crossing from + to −)
  double transversality_rel = 0; // |∇gᵀF⁻| / (‖∇g‖ ‖F⁻‖): 0 at grazing, 1 head-on
  Eigen::VectorXd correction;    // u (ndx)
  Eigen::VectorXd dt_dx;         // ∂t_event/∂x⁻ (ndx)

  int ndx() const { return static_cast<int>(grad_g.size()); }
  // Ξ (ndx × ndx)
  Eigen::MatrixXd Dense() const;
  // Ξ δx without forming Ξ
  Eigen::VectorXd Apply(const Eigen::VectorXd& dx) const;
  // Ξᵀ w without forming Ξ (value-function back-propagation)
  Eigen::VectorXd ApplyTranspose(const Eigen::VectorXd& w) const;
  // spectral norm ‖Ξ‖₂
  double Norm() const;
};

// The transversality part alone (grad_g, f_minus, transversality, transversality_rel, dt_dx), for
// events whose Ξ is completed later; throws like ComputeSaltation at zero transversality.
SaltationMatrix ComputeTransversality(const Eigen::VectorXd& f_minus, const Eigen::VectorXd& grad_g,
                                      double dg_dt = 0);

// Assembles Ξ from its pieces (D_tΔ = 0: resets do not depend on time here). Throws
// NumericalError when the transversality is exactly zero or anything is not finite.
SaltationMatrix ComputeSaltation(const ResetJacobian& reset, const Eigen::VectorXd& f_minus,
                                 const Eigen::VectorXd& f_plus, const Eigen::VectorXd& grad_g,
                                 double dg_dt = 0);

}  // namespace saltation

#endif  // SALTATION_SALTATION_MATRIX_H_
