// The pieces of MuJoCo's pipeline the rigid model reuses, each written once.
//
//   SmoothStages     (d at a configuration whose position stage ran; qvel, act, ctrl set)
//                    => d's velocity, actuation and smooth-acceleration stages: qacc_smooth, act_dot
//   ConstraintMass   (d with M factored at the rows' configuration, rows J)
//                    => JMinv = J M⁻¹ (rows of J as right-hand sides, M symmetric), A = J M⁻¹ Jᵀ
//   ConstraintMassHalf (the same, a scratch vector) => Y = D^{−1/2} L^{−ᵀ} Jᵀ by rows, A = Y Yᵀ (half a solve per
//                    row, from MuJoCo's factor M = Lᵀ D L; allocation-free once sized)
//
// Read and write only d and the outputs.
#ifndef SALTATION_MUJOCO_STAGES_H_
#define SALTATION_MUJOCO_STAGES_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>

#include "saltation/contacts.h"

namespace saltation {

inline void SmoothStages(const mjModel* m, mjData* d) {
  mj_fwdVelocity(m, d);
  mj_fwdActuation(m, d);
  mj_fwdAcceleration(m, d);
}

inline void ConstraintMass(const mjModel* m, mjData* d, const RowMatrix& J, RowMatrix& JMinv, Eigen::MatrixXd& A) {
  const int nrow = static_cast<int>(J.rows());
  JMinv.resize(nrow, m->nv);
  if (nrow > 0) mj_solveM(m, d, JMinv.data(), J.data(), nrow);
  A.noalias() = J * JMinv.transpose();
}

inline void ConstraintMassHalf(const mjModel* m, const mjData* d, const RowMatrix& J, RowMatrix& Y,
                               Eigen::MatrixXd& A, Eigen::VectorXd& sqrt_inv_d) {
  // D^{−1/2} of MuJoCo's factor (mj_solveM2 takes it since MuJoCo 3); sqrt_inv_d is scratch
  sqrt_inv_d = Eigen::Map<const Eigen::VectorXd>(d->qLDiagInv, m->nv).cwiseSqrt();
  const int nrow = static_cast<int>(J.rows());
  Y.resize(nrow, m->nv);
  if (nrow > 0) mj_solveM2(m, const_cast<mjData*>(d), Y.data(), J.data(), sqrt_inv_d.data(), nrow);
  A.noalias() = Y * Y.transpose();
}

}  // namespace saltation

#endif  // SALTATION_MUJOCO_STAGES_H_
