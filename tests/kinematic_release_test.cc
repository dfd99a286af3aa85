// A kinematic release (KinematicReleaseEvent: MuJoCo's contact came apart while the rigid force
// never crossed zero) with Ξ on demand: the same event, its Ξ formed only when asked and then the
// same bits as the eager one, and no nv² block stored either way (DΔ = I kept factored).
#include <cmath>

#include "saltation/hook.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// a ball on a slide joint resting on a platform (a mocap body) beside a second, untouched ball
// on its own slide joint, hanging on a spring (nv = 2: the identity outside the release's tree)
constexpr char kBallOnPlatform[] = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.001"/>
  <worldbody>
    <body name="platform" mocap="true" pos="0 0 0">
      <geom name="platform" type="box" size="0.5 0.5 0.05" condim="1"/>
    </body>
    <body name="ball" pos="0 0 0.1495">
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.1" mass="1" condim="1"/>
    </body>
    <body name="hanging" pos="2 0 1">
      <joint name="spring" type="slide" axis="0 0 1" stiffness="100"/>
      <geom type="sphere" size="0.1" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>)";

// the hook's events on the model, the platform dropped away by 5 cm at 0.2 s (the ball resting on
// it at full rigid force: MuJoCo's contact opens, the rigid guard never crosses zero)
std::vector<HookEvent> RunDrop(Hook& hook, mjModel* m, mjData* d) {
  while (d->time < 0.2) hook.Step(d);
  d->mocap_pos[2] -= 0.05;
  while (d->time < 0.25) hook.Step(d);
  return hook.events();
}

const HookEvent* Release(const std::vector<HookEvent>& events) {
  for (const HookEvent& e : events) {
    if (e.proxy && e.kind == EventKind::kLiftoff) return &e;
  }
  return nullptr;
}

class KinematicReleaseTest : public MujocoTest {};

TEST_F(KinematicReleaseTest, XiOnDemandEqualsTheEagerOneAndStoresNothingDense) {
  ModelPtr m1 = LoadModelFromString(kBallOnPlatform), m2 = LoadModelFromString(kBallOnPlatform);
  Hook eager(m1.get());
  HookOptions options;
  options.xi_on_demand = true;
  Hook lazy(m2.get(), options);
  DataPtr d1(mj_makeData(m1.get())), d2(mj_makeData(m2.get()));
  const std::vector<HookEvent> a_events = RunDrop(eager, m1.get(), d1.get());
  const std::vector<HookEvent> b_events = RunDrop(lazy, m2.get(), d2.get());
  ASSERT_EQ(a_events.size(), b_events.size());
  const HookEvent* a = Release(a_events);
  ASSERT_NE(a, nullptr) << "no kinematic release";
  const size_t i = a - a_events.data();
  const HookEvent& pending = lazy.events()[i];
  ASSERT_TRUE(a->has_xi);
  EXPECT_TRUE(a->rigid.kinematic_release);
  EXPECT_FALSE(a->xi_pending);
  // on demand: the event is known (time, mode after, the exact transversality), Ξ is not formed
  ASSERT_TRUE(pending.xi_pending);
  EXPECT_EQ(pending.kind, EventKind::kLiftoff);
  EXPECT_EQ(pending.time, a->time);
  EXPECT_EQ(pending.rigid.mode_after.contacts.size(), a->rigid.mode_after.contacts.size());
  EXPECT_EQ(pending.rigid.xi.transversality, a->rigid.xi.transversality);
  EXPECT_EQ(pending.rigid.xi.transversality_rel, a->rigid.xi.transversality_rel);
  EXPECT_EQ(pending.rigid.xi.f_plus.size(), 0);
  EXPECT_EQ(pending.rigid.xi.correction.size(), 0);
  EXPECT_EQ(pending.rigid.xi.reset.dv_dv.size() + pending.rigid.xi.reset.dv_dq.size(), 0);

  const HookEvent& b = lazy.CompletedEvent(i);
  EXPECT_FALSE(b.xi_pending);
  ASSERT_TRUE(b.has_xi);
  EXPECT_EQ(a->grazing, b.grazing);
  // the same bits as the eager Ξ
  EXPECT_EQ((a->rigid.xi.Dense() - b.rigid.xi.Dense()).norm(), 0);
  EXPECT_EQ((a->rigid.xi.f_plus - b.rigid.xi.f_plus).norm(), 0);
  EXPECT_EQ(a->rigid.xi.transversality_rel, b.rigid.xi.transversality_rel);
  // DΔ = I stored as nothing, eager and on demand: Ξ holds O(ndx), not nv²
  for (const HookEvent* e : {a, &b}) {
    EXPECT_EQ(e->rigid.xi.reset.dv_dv.size() + e->rigid.xi.reset.dv_dq.size(), 0);
    EXPECT_TRUE(e->rigid.xi.reset.Restricted());
  }
  // the released ball's Ξ: F⁺ − F⁻ is free fall's −g on its velocity (ΔF⁻'s acceleration was 0
  // at rest on the platform), ∇g = (J_n, 0) = (1, 0, …): Ξ(v_z, q_z) = −g/(∇gᵀF⁻); the
  // hanging ball's coordinates are untouched (identity rows and columns)
  const Eigen::MatrixXd xi = b.rigid.xi.Dense();
  const double vz = b.rigid.x_minus.qvel(0);
  ASSERT_LT(vz, 0);
  const double expected = -9.81 / vz;
  EXPECT_NEAR(xi(2, 0), expected, 1e-12 * std::abs(expected)) << "v_z " << vz;
  Eigen::MatrixXd identity_part = xi;
  identity_part(2, 0) = 0;
  EXPECT_LT((identity_part - Eigen::MatrixXd::Identity(4, 4)).norm(), 1e-12 * std::abs(expected));
}


// The grazing measure of a release among other moving bodies is its island's: the ball leaves the
// dropped platform straight down (v along the contact normal: cosine 1 in the kinetic metric)
// while the hanging ball swings on its spring at up to 1 m/s. Measured over the whole model the
// swing's energy made the release look grazing (|v_z| / √(v_z² + v_h²)).
TEST_F(KinematicReleaseTest, ItsGrazingMeasureIgnoresOtherMovingBodies) {
  ModelPtr m = LoadModelFromString(kBallOnPlatform);
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  d->qpos[1] = 0.1;  // the spring stretched: ω = 10 rad/s, up to 1 m/s
  const std::vector<HookEvent> events = RunDrop(hook, m.get(), d.get());
  const HookEvent* release = Release(events);
  ASSERT_NE(release, nullptr) << "no kinematic release";
  ASSERT_TRUE(release->rigid.kinematic_release);
  const Eigen::VectorXd& v = release->rigid.x_minus.qvel;
  ASSERT_GT(std::abs(v(1)), 0.1 * std::abs(v(0)));  // the other body moves: the whole model's would be < 0.995
  EXPECT_NEAR(release->rigid.xi.transversality_rel, 1.0, 1e-12) << "v " << v.transpose();
  EXPECT_FALSE(release->grazing);
}

}  // namespace
}  // namespace saltation::testing
