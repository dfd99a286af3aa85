// A mocap body the user places itself (d->mocap_pos / mocap_quat set before stepping, no
// Options::mocap_motion): the hook's events are computed with the pose the step ran with, not with
// the model's default pose (data's own mjData take the step's inputs, mocap poses included:
// LoadInputs, resimulation.h).
#include <cmath>

#include "saltation/hook.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// A frictionless ball on slides x and z (1 kg, restitution 0) above a pad (a mocap box) whose
// default pose is 5 m away and flat; the user puts it under the ball, tilted by θ about y.
constexpr char kPad[] = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.001"/>
  <custom><numeric name="saltation_restitution" data="0"/></custom>
  <worldbody>
    <body name="pad" mocap="true" pos="5 0 0">
      <geom name="pad" type="box" size="0.5 0.5 0.02" condim="1"/>
    </body>
    <body name="ball" pos="0 0 0.3">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.05" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

constexpr double kHalfThickness = 0.02, kRadius = 0.05, kStartHeight = 0.3;

class UserMovedMocap : public MujocoTest {};

// Plastic and frictionless with M = m·I on (x, z): v⁺ = v⁻ − (v⁻·n) n, n = (sin θ, cos θ) the tilted
// pad's normal; at x⁻ the ball touches the pad's top face (its centre one radius above it) and the
// contact point lies on it. With the model's default pose (the pad 5 m away, flat) the hook stopped:
// "active contact ball/pad has no contact point within the detection margin"; with the step's pose
// in the impact but not in the touchdown guard the ball was located 1 mm inside the pad.
TEST_F(UserMovedMocap, ATouchdownOnAPadTheUserTiltedUsesItsPose) {
  ModelPtr m = LoadModelFromString(kPad);
  ASSERT_TRUE(m);
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  const double theta = 0.3;
  d->mocap_pos[0] = 0;  // rotation about y by θ: the pad's normal e_z turns to (sin θ, 0, cos θ)
  d->mocap_quat[0] = std::cos(theta / 2);
  d->mocap_quat[2] = std::sin(theta / 2);
  const HookEvent* touchdown = nullptr;
  while (d->time < 0.5 && !touchdown) {
    hook.Step(d.get());
    for (const HookEvent& e : hook.events()) {
      if (e.kind == EventKind::kTouchdown) {
        touchdown = &e;
        break;
      }
    }
  }
  ASSERT_NE(touchdown, nullptr);
  const Eigen::Vector2d n(std::sin(theta), std::cos(theta));
  const Eigen::Vector2d v_minus = touchdown->rigid.x_minus.qvel;
  ASSERT_LT(v_minus(1), -1.0);  // falling (about 2 m/s at the pad)
  const Eigen::Vector2d expected = v_minus - v_minus.dot(n) * n;
  const Eigen::Vector2d v_plus = touchdown->rigid.x_plus.qvel;
  EXPECT_LT((v_plus - expected).norm(), 1e-14 * v_minus.norm()) << v_plus.transpose() << " vs " << expected.transpose();
  EXPECT_GT(expected.norm(), 0.5);  // the flat pad's v⁺ = 0 is far off
  const Eigen::Vector2d p(touchdown->point.x(), touchdown->point.z());
  EXPECT_NEAR(n.dot(p), kHalfThickness, 1e-12);  // the touchdown is located to ~1e-13 s at ~2 m/s
  const Eigen::Vector2d c(touchdown->rigid.x_minus.qpos(0), kStartHeight + touchdown->rigid.x_minus.qpos(1));
  EXPECT_NEAR(n.dot(c) - kHalfThickness, kRadius, 1e-12) << "centre " << c.transpose();
}

}  // namespace
}  // namespace saltation::testing
