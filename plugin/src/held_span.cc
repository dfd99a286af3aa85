#include "held_span.h"

#include <cmath>

namespace saltation {

bool HeldSpan::Holds(const ContactPoint& p, const Eigen::Ref<const Eigen::RowVectorXd>& n) {
  const ConstraintSet& set = dyn_.constraints;
  if (set.J.rows() == 0) return false;
  const mjModel* m = model_.mj();
  const Options& opt = model_.options();
  const Eigen::VectorXd row = n.transpose();
  minv_n_.resize(m->nv);
  mj_solveM(m, d_, minv_n_.data(), row.data(), 1);
  const double own = row.dot(minv_n_);  // nᵀM⁻¹n
  if (!(own > 0)) return false;
  if (!has_surface_) {
    surface_.setZero(set.J.rows());
    if (opt.mocap_motion) {
      const int ncontact = static_cast<int>(set.points.size());
      for (int k = 0; k < ncontact; k++) {
        const int first = set.normal_row[k];
        const int count = (k + 1 < ncontact ? set.normal_row[k + 1] : set.ncontact_rows) - first;
        surface_.segment(first, count) = SurfaceVelocity(model_, d_, set.points[k]).head(count);
      }
    }
    has_surface_ = true;
  }
  b_.noalias() = dyn_.JMinv * row;
  solver_.Solve(b_, c_);
  const double residual = own - b_.dot(c_);  // the M⁻¹-metric residual² of n off the rows' span
  if (!(residual <= opt.rank_tol * own)) return false;
  const double own_rate = opt.mocap_motion ? SurfaceVelocity(model_, d_, p)(0) : 0.0;
  const double rate = own_rate - c_.dot(surface_);
  return std::abs(rate) <= opt.velocity_tol;
}

}  // namespace saltation
