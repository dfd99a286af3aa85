// The finite-difference twin of FeatureGuardGradient for the feature tests (edge_test,
// capsule_end_test): central differences (step 1e-6) of guard j of id's feature region over the
// tangent configuration at qpos q, zero in the velocity block (ndx). Overwrites d's qpos and
// kinematics (left at the last probe).
#ifndef SALTATION_TESTS_FEATURE_GUARD_FD_H_
#define SALTATION_TESTS_FEATURE_GUARD_FD_H_

#include <mujoco/mujoco.h>

#include <Eigen/Dense>

#include "saltation/contact_features.h"
#include "saltation/model.h"
#include "saltation/tangent.h"

namespace saltation::testing {

inline Eigen::VectorXd FeatureGuardGradientFD(const Model& model, mjData* d, const ContactId& id,
                                              const Eigen::VectorXd& q, int j) {
  const mjModel* m = model.mj();
  State x;
  x.qpos = q;
  x.qvel = Eigen::VectorXd::Zero(m->nv);
  x.act.resize(0);
  Eigen::VectorXd fd = Eigen::VectorXd::Zero(model.ndx()), e = fd;
  const double eps = 1e-6;
  for (int k = 0; k < m->nv; k++) {
    e.setZero();
    e(k) = eps;
    double g[2];
    for (int side = 0; side < 2; side++) {
      const State y = Integrate(m, x, e, side ? -1 : 1);
      mju_copy(d->qpos, y.qpos.data(), m->nq);
      mj_kinematics(m, d);
      g[side] = FeatureGuards(m, d, id).guard[j].value;
    }
    fd(k) = (g[0] - g[1]) / (2 * eps);
  }
  return fd;
}

}  // namespace saltation::testing

#endif  // SALTATION_TESTS_FEATURE_GUARD_FD_H_
