// Shared pieces of the feature tests' random-pose sweeps (edge_test, capsule_end_test,
// capsule_box_features_test, capsule_across_edge_test):
//   FeatureGuardGradientFD (model, d, id, q, j) => the finite-difference twin of
//       FeatureGuardGradient: central differences (step 1e-6) of guard j of id's feature region over
//       the tangent configuration at qpos q, zero in the velocity block (ndx)
//   RandomPoses (seed)  => Position(reach): uniform in [−reach, reach]³; Orientation(): a uniform
//       4-vector normalised (a free joint's quaternion); Unit(): one number uniform in [−1, 1]
//   ExpectSamePoint (p, point, what) => FeaturePoint's p is the listed point: position, normal and
//       gap to 1e-12
//   ExpectGuardGradientsMatchTheirTwins (model, d, id, q, guards, tol, what) => every guard's
//       gradient against its twin to tol · (1 + |∇h|); returns the worst |∇h − twin| / (1 + |∇h|)
// Overwrite d's qpos and kinematics (left at the last probe).
#ifndef SALTATION_TESTS_FEATURE_GUARD_FD_H_
#define SALTATION_TESTS_FEATURE_GUARD_FD_H_

#include <mujoco/mujoco.h>

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <random>
#include <string>

#include "saltation/contact_features.h"
#include "saltation/contacts.h"
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

class RandomPoses {
 public:
  explicit RandomPoses(unsigned seed) : rng_(seed), uni_(-1, 1) {}
  double Unit() { return uni_(rng_); }
  Eigen::Vector3d Position(double reach) { return reach * Eigen::Vector3d(uni_(rng_), uni_(rng_), uni_(rng_)); }
  Eigen::Vector4d Orientation() {
    return Eigen::Vector4d(uni_(rng_), uni_(rng_), uni_(rng_), uni_(rng_)).normalized();
  }

 private:
  std::mt19937 rng_;
  std::uniform_real_distribution<double> uni_;
};

inline void ExpectSamePoint(const ContactPoint& p, const ContactPoint& point, const std::string& what) {
  EXPECT_LT((p.pos - point.pos).norm(), 1e-12) << what;
  EXPECT_LT((p.frame.row(0) - point.frame.row(0)).norm(), 1e-12) << what;
  EXPECT_NEAR(p.gap, point.gap, 1e-12) << what;
}

inline double ExpectGuardGradientsMatchTheirTwins(const Model& model, mjData* d, const ContactId& id,
                                                  const Eigen::VectorXd& q, const FeatureGuardSet& guards,
                                                  double tol, const std::string& what) {
  double worst = 0;
  for (int j = 0; j < guards.count; j++) {
    EvaluatePosition(model, d, q.data());
    const Eigen::VectorXd grad = FeatureGuardGradient(model, d, id, guards.guard[j]);
    const Eigen::VectorXd fd = FeatureGuardGradientFD(model, d, id, q, j);
    worst = std::max(worst, (grad - fd).norm() / (1 + grad.norm()));
    EXPECT_LT((grad - fd).norm(), tol * (1 + grad.norm())) << what << " guard " << j << "\n"
                                                            << grad.transpose() << "\n" << fd.transpose();
  }
  return worst;
}

}  // namespace saltation::testing

#endif  // SALTATION_TESTS_FEATURE_GUARD_FD_H_
