// The hook's chains (chain_propagation.h: the rigid Φ, the covariance) flow each step on the hook's
// own mode, whose held anchors follow their points after each step and its events
// (FollowHeldPoints, hook.cc), not on a copy of their own whose anchors stay where the points were
// first seen.
//
// RigidPhiOfAPlateSlidingFarOverABoxIsTheFreeSlide — the sliding plate of the held-anchor tests
// (plate_on_base_scene.h): a frictionless plate (half sizes h = 0.05, 0.05, t = 0.004) lying flat on
// a fixed base box, sliding at v = 1 m/s along +x under gravity, 0.2 s (0.2 m, four times the
// 50.08 mm past which a stale anchor of a bottom corner lies nearer to a top corner over its −x
// neighbour, hook_mode_matching_test.cc). The mode holds the four bottom corners: in the rigid
// model z, roll and pitch are held at the acceleration level (each corner's normal acceleration
// zero) and x, y and yaw are free; the normal forces are vertical and act at the corners, so at ω =
// 0 their torque has no yaw part, and the balance of the forces keeps ω̇ = 0. The mode's vector
// field is then linear with A = [[0, I], [0, 0]] in the tangent coordinates (the quaternion's
// local rotation vector moves with the local ω while ω = 0), so over [t0, t1]
//     Φ = [[I, T·I], [0, I]],  T = t1 − t0,
// and with P₀ = I and no process noise the covariance is P = Φ Φᵀ (no event: P through DΔ alone the
// same). Measured: max |Φ − closed form| = 2.9e-8 (the vector field's Jacobian is taken by finite
// differences at MuJoCo's soft-contact states, not at the rigid ones), P 3.0e-8; 38 and 1.5e3 on
// 8b92366, where the chain's own copy of the mode held top corners once the plate slid past 50 mm
// (Φ's pitch-rate diagonal entry 39.3).
#include <cmath>
#include <cstdio>

#include "saltation/hook.h"
#include "plate_on_base_scene.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class HookChainMode : public MujocoTest {};

TEST_F(HookChainMode, RigidPhiOfAPlateSlidingFarOverABoxIsTheFreeSlide) {
  constexpr double kSpeed = 1.0, kDuration = 0.2;
  ModelPtr m = LoadModelFromString(kPlateOnBase);
  HookOptions options;
  options.covariance = true;  // (forces the rigid chain)
  options.initial_covariance = 1;
  options.process_noise = 0;
  Hook hook(m.get(), options);
  DataPtr d(mj_makeData(m.get()));
  d->qvel[0] = kSpeed;
  while (d->time < kDuration - 1e-12) hook.Step(d.get());
  EXPECT_EQ(hook.events().size(), 0u) << "the plate slides on its four corners throughout";
  EXPECT_EQ(hook.mode().contacts.size(), 4u);
  EXPECT_GT(d->qpos[0] - kPlateStartX, 0.19);

  const int nv = m->nv;
  const double T = hook.phi_time() - hook.phi_t0();
  ASSERT_GT(T, 0.19);
  Eigen::MatrixXd closed = Eigen::MatrixXd::Identity(2 * nv, 2 * nv);
  closed.topRightCorner(nv, nv) = T * Eigen::MatrixXd::Identity(nv, nv);
  const Eigen::MatrixXd phi = hook.phi_rigid() * std::exp(hook.phi_rigid_log_scale());
  const double phi_error = (phi - closed).cwiseAbs().maxCoeff();
  EXPECT_LT(phi_error, 6e-8) << CompareReport(phi, closed, "chain", "closed form");
  const Eigen::MatrixXd P = closed * closed.transpose();
  const double cov_error = (hook.covariance() - P).cwiseAbs().maxCoeff();
  const double cov_dreset_error = (hook.covariance_dreset() - P).cwiseAbs().maxCoeff();
  EXPECT_LT(cov_error, 6e-8) << CompareReport(hook.covariance(), P, "chain", "closed form");
  EXPECT_LT(cov_dreset_error, 6e-8) << CompareReport(hook.covariance_dreset(), P, "chain", "closed form");
  std::printf("[ chain mode ] slid %.3f m over T = %.3f s: max |Φ − closed| %.2g, |P − ΦΦᵀ| %.2g, through DΔ %.2g\n",
              d->qpos[0] - kPlateStartX, T, phi_error, cov_error, cov_dreset_error);
}

}  // namespace
}  // namespace saltation::testing
