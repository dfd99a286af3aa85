// The unit-free grazing measure (transversality_rel, guards.h KineticTransversality and
// saltation_matrix.h CancellationRatio) against closed forms, and what it changes on a robot.
#include <cmath>
#include <cstdio>

#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

constexpr double kG = 9.81;
constexpr double kPi = 3.14159265358979323846;

// The old measure |∇gᵀF⁻| / (‖∇g‖‖F⁻‖), which adds speeds to accelerations: kept here only to show
// what the new one changes.
double MixedUnitsMeasure(const SaltationMatrix& xi) {
  return std::abs(xi.grad_g.dot(xi.f_minus)) / (xi.grad_g.norm() * xi.f_minus.norm());
}

// The touchdown of the one contact touching at x (gap 0), with no contact in the mode.
RigidEvent TouchdownAt(const Model& model, Data& data, const State& x) {
  EvaluatePosition(model, data.main(), x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  EXPECT_EQ(points.size(), 1u);
  if (points.empty()) return {};
  EXPECT_NEAR(points[0].gap, 0, 1e-12);
  return TouchdownEvent(model, data, RestitutionTable(model), x, Mode{}, points[0].id, 1e-9,
                        DefaultForceTolerance(model.mj()));
}

class Grazing : public MujocoTest {};

// A free ball (radius 0.1, no spin) arriving at 90°, 30° and 1° to the floor: the measure is the
// sine of the arrival angle (1, 0.5, 0.017452), whatever the speed. The old measure mixed in G.
TEST_F(Grazing, FreeBallArrivalAngle) {
  ModelPtr m = LoadModelFromString(kFreeBall);
  Model model(m.get());
  Data data(model);
  State x = StateFromData(m.get(), DataPtr(mj_makeData(m.get())).get());
  x.qpos(2) = 0.1;  // touching
  for (double speed : {0.05, 1.0, 2.7}) {
    for (double deg : {90.0, 30.0, 1.0}) {
      const double a = deg * kPi / 180;
      x.qvel << speed * std::cos(a), 0, -speed * std::sin(a), 0, 0, 0;
      const RigidEvent ev = TouchdownAt(model, data, x);
      const double rel = ev.xi.transversality_rel;
      std::printf("[ free ball ] %.2f m/s at %4.0f°: rel %.6f (sin %.6f), mixed-units %.6f\n", speed, deg,
                  rel, std::sin(a), MixedUnitsMeasure(ev.xi));
      EXPECT_NEAR(rel, std::sin(a), 1e-15) << speed << " m/s at " << deg << "°";
      EXPECT_TRUE(ev.complete);
      EXPECT_NEAR(ev.xi.transversality, -speed * std::sin(a), 1e-15) << "the raw ∇gᵀF⁻ is kept";
    }
  }
  // the cases the old measure got wrong: a ball falling straight down at 0.05 m/s is head-on
  x.qvel << 0, 0, -0.05, 0, 0, 0;
  const RigidEvent slow = TouchdownAt(model, data, x);
  EXPECT_EQ(slow.xi.transversality_rel, 1);
  EXPECT_LT(MixedUnitsMeasure(slow.xi), HookOptions{}.grazing_threshold) << "the old measure flagged it";
  EXPECT_GE(slow.xi.transversality_rel, HookOptions{}.grazing_threshold);
  // and a ball skimming the floor at 1 m/s with 1 mm/s of approach (0.057°) is a graze
  x.qvel << 1, 0, -1e-3, 0, 0, 0;
  const RigidEvent skim = TouchdownAt(model, data, x);
  EXPECT_NEAR(skim.xi.transversality_rel, 1e-3 / std::hypot(1, 1e-3), 1e-15);
  EXPECT_LT(skim.xi.transversality_rel, HookOptions{}.grazing_threshold);
}

// Spin carries kinetic energy that does not approach the floor: with ω the measure is
// |v_z| / √(|v|² + (I/m)|ω|²), I/m = 2/5 r² for the solid sphere (the metric is M, not the identity).
TEST_F(Grazing, SpinningBallCountsRotationalEnergy) {
  ModelPtr m = LoadModelFromString(kFreeBall);
  Model model(m.get());
  Data data(model);
  State x = StateFromData(m.get(), DataPtr(mj_makeData(m.get())).get());
  x.qpos(2) = 0.1;
  const double a = 30 * kPi / 180, speed = 2, omega = 10, r = 0.1;
  x.qvel << speed * std::cos(a), 0, -speed * std::sin(a), 3, omega, -4;
  const RigidEvent ev = TouchdownAt(model, data, x);
  const double w2 = 9 + omega * omega + 16;
  const double expected = speed * std::sin(a) / std::sqrt(speed * speed + 0.4 * r * r * w2);
  std::printf("[ spinning ball ] rel %.12f, closed form %.12f\n", ev.xi.transversality_rel, expected);
  EXPECT_NEAR(ev.xi.transversality_rel, expected, 1e-14);
  EXPECT_LT(ev.xi.transversality_rel, 0.5 - 0.02) << "spin lowers it below the no-spin 0.5";
}

// A point-mass ball on a planar two-hinge arm (links of 1e-12 kg, the ball's rotational inertia
// 1e-12): in joint coordinates the kinetic metric is M = m J_pᵀJ_p, so the cosine in M is the
// Cartesian one, sin of the angle at which the ball arrives (1, 0.5, 0.017452), while the cosine
// in the joint coordinates' Euclidean metric is something else.
const char* kPointMassArm = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1" condim="1"/>
    <body name="upper" pos="0 0 0.6">
      <joint name="shoulder" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 0" mass="1e-12" diaginertia="1e-12 1e-12 1e-12"/>
      <body name="lower" pos="0.5 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <inertial pos="0 0 0" mass="1e-12" diaginertia="1e-12 1e-12 1e-12"/>
        <body name="ball" pos="0.5 0 0">
          <inertial pos="0 0 0" mass="1" diaginertia="1e-12 1e-12 1e-12"/>
          <geom name="tip" type="sphere" size="0.05" condim="1" mass="0"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)";

TEST_F(Grazing, HingedBallArrivalAngleInTheKineticMetric) {
  ModelPtr m = LoadModelFromString(kPointMassArm);
  Model model(m.get());
  Data data(model);
  const double L = 0.5, H = 0.6, r = 0.05, q1 = 0.3;
  // elbow angle putting the ball's bottom on the floor (hinge about y: x turns towards −z)
  const double q12 = std::asin((H - r - L * std::sin(q1)) / L);
  State x = StateFromData(m.get(), DataPtr(mj_makeData(m.get())).get());
  x.qpos << q1, q12 - q1;
  // ṗ = J_p q̇ in the xz plane, J_p = [[−L s1 − L s12, −L s12], [−L c1 − L c12, −L c12]]
  Eigen::Matrix2d jp;
  jp << -L * std::sin(q1) - L * std::sin(q12), -L * std::sin(q12), -L * std::cos(q1) - L * std::cos(q12),
      -L * std::cos(q12);
  double largest_gap = 0;
  for (double deg : {90.0, 30.0, 1.0}) {
    const double a = deg * kPi / 180;
    const Eigen::Vector2d pdot(1.5 * std::cos(a), -1.5 * std::sin(a));
    x.qvel = jp.inverse() * pdot;
    const RigidEvent ev = TouchdownAt(model, data, x);
    const double rel = ev.xi.transversality_rel;
    const Eigen::VectorXd jn = ev.xi.grad_g.head(2);
    const double euclid = std::abs(jn.dot(x.qvel)) / (jn.norm() * x.qvel.norm());
    std::printf("[ hinged ball ] %4.0f°: rel %.12f (sin %.12f), joint-space Euclidean cosine %.6f\n", deg, rel,
                std::sin(a), euclid);
    // the 1e-12 masses and inertias perturb M by ~1e-12 relative
    EXPECT_NEAR(rel, std::sin(a), 2e-11) << deg << "°";  // measured 6e-12
    largest_gap = std::max(largest_gap, std::abs(euclid - std::sin(a)));
  }
  EXPECT_GT(largest_gap, 0.1) << "without M the arm's cosine is not the arrival angle's";
}

// A robot-like leg: a torso on slide x, z with a hip and a knee driven by stiff, lightly damped
// position servos that start swinging the leg as it is dropped 3 cm above the floor at 0.5–1.5 m/s
// (joint accelerations of 10²–10³ rad/s² at the strike). The mixed-units measure divides the
// strike speed by those accelerations and flags real strikes as grazes; the kinetic cosine does not.
const char* kServoLeg = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" condim="1"/>
    <body name="torso" pos="0 0 1">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom type="box" size="0.15 0.05 0.05" mass="8" contype="0" conaffinity="0"/>
      <body name="thigh" pos="0 0 -0.05">
        <joint name="hip" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="1" contype="0" conaffinity="0"/>
        <body name="shin" pos="0 0 -0.3">
          <joint name="knee" type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02" mass="0.4" contype="0" conaffinity="0"/>
          <geom name="foot" type="sphere" pos="0 0 -0.3" size="0.03" mass="0.1" condim="1"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position joint="hip" kp="400" kv="0.5"/>
    <position joint="knee" kp="300" kv="0.5"/>
  </actuator>
</mujoco>)";

TEST_F(Grazing, ServoLegStrikesAreNotGrazes) {
  ModelPtr m = LoadModelFromString(kServoLeg);
  Model model(m.get());
  int strikes = 0, old_flags = 0, new_flags = 0;
  double min_rel = 1, max_rel = 0, min_speed = 1e9, max_speed = 0;
  for (double vz : {-0.5, -1.5}) {
    for (double hip : {-0.3, 0.2}) {
      RigidSimulator sim(model);
      Eigen::VectorXd ctrl(2);
      ctrl << hip, -2 * hip;  // the servos swing the leg towards this pose while it falls
      sim.SetControl(ctrl);
      State x = StateFromData(m.get(), DataPtr(mj_makeData(m.get())).get());
      x.qpos(1) = 0.03 - 0.32;  // the foot's bottom 3 cm above the floor (0.32 m at qpos 0)
      x.qvel(0) = 0.5;
      x.qvel(1) = vz;
      HybridState s = sim.Initialize(x);
      const std::vector<RigidEvent> events = sim.Advance(s, 0.6, 1);  // the first strike
      ASSERT_FALSE(events.empty());
      const RigidEvent& ev = events[0];
      ASSERT_EQ(ev.kind, EventKind::kTouchdown);
      const double speed = std::abs(ev.xi.transversality);  // the foot's normal approach speed
      const double rel = ev.xi.transversality_rel, old = MixedUnitsMeasure(ev.xi);
      std::printf("[ servo leg ] vz %.1f hip %+.1f: strike %.3f m/s at %.3f s, |q̈| %.0f, rel %.4f, mixed-units %.5f\n",
                  vz, hip, speed, ev.time, ev.xi.f_minus.segment(4, 4).norm(), rel, old);
      strikes++;
      old_flags += old < HookOptions{}.grazing_threshold;
      new_flags += rel < HookOptions{}.grazing_threshold;
      min_rel = std::min(min_rel, rel);
      max_rel = std::max(max_rel, rel);
      min_speed = std::min(min_speed, speed);
      max_speed = std::max(max_speed, speed);
    }
  }
  std::printf("[ servo leg ] %d strikes at %.2f–%.2f m/s: flagged %d (mixed units) → %d (kinetic cosine, %.3f–%.3f)\n",
              strikes, min_speed, max_speed, old_flags, new_flags, min_rel, max_rel);
  EXPECT_EQ(new_flags, 0);
  EXPECT_GT(min_rel, 0.4);  // measured 0.419–0.805
  EXPECT_EQ(old_flags, strikes) << "the mixed-units measure flagged every strike";
}

// The liftoff measure on a frictionless ball (slide x, z) sliding off a dome (ρ = 1.1 to the ball's
// centre): λ_n = g z/ρ − |v|²/ρ per unit mass, so along the flow the configuration's drift gives
// g ż/ρ and the velocity's −2 v·a/ρ = 2 g ż/ρ (a = −G at the release): the same sign, ρ = 1, and
// the rate is 3 g ż/ρ.
TEST_F(Grazing, DomeReleaseHasNoCancellation) {
  ModelPtr m = LoadModelFromString(kBallOnDome);
  Model model(m.get());
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::Vector2d(1.1 * std::sin(0.2), 1.1 * std::cos(0.2));
  x.qvel = Eigen::Vector2d::Zero();
  x.act.resize(0);
  HybridState s = sim.Initialize(x);
  const std::vector<RigidEvent> events = sim.Advance(s, 3.0, 1);
  ASSERT_EQ(events.size(), 1u);
  const RigidEvent& ev = events[0];
  ASSERT_EQ(ev.kind, EventKind::kLiftoff);
  const double zdot = ev.x_minus.qvel(1);
  const double t_q = ev.xi.grad_g.head(2).dot(ev.xi.f_minus.head(2));
  const double t_v = ev.xi.grad_g.tail(2).dot(ev.xi.f_minus.tail(2));
  std::printf("[ dome release ] t_q %.9f (g ż/ρ %.9f), t_v %.9f (2 g ż/ρ %.9f), rel %.17g\n", t_q,
              kG * zdot / 1.1, t_v, 2 * kG * zdot / 1.1, ev.xi.transversality_rel);
  EXPECT_NEAR(t_q, kG * zdot / 1.1, 1e-6 * std::abs(t_q));
  EXPECT_NEAR(t_v, 2 * kG * zdot / 1.1, 1e-6 * std::abs(t_v));
  EXPECT_NEAR(ev.xi.transversality_rel, 1, 1e-15);
}

// CancellationRatio itself: |Σ t_b| / Σ |t_b| over the blocks (dq, dv, act), unchanged by the
// units (any positive scaling of each coordinate, with ∇g scaled inversely), 0 where they cancel.
TEST_F(Grazing, CancellationRatioClosedForms) {
  // nv = 2, na = 1: t_q = 1·2 + 0·5 = 2, t_v = (−1)·3 + 2·0.25 = −2.5, t_a = 4·0.125 = 0.5
  Eigen::VectorXd g(5), f(5);
  g << 1, 0, -1, 2, 4;
  f << 2, 5, 3, 0.25, 0.125;
  EXPECT_NEAR(CancellationRatio(g, f, 2), 0.0 / 5.0, 1e-16);  // 2 − 2.5 + 0.5 = 0: a graze
  f(4) = -0.125;                                             // t_a = −0.5
  EXPECT_NEAR(CancellationRatio(g, f, 2), 1.0 / 5.0, 1e-15);
  // millimetres and milliseconds-of-activation: the coordinates scale, the ratio does not
  Eigen::VectorXd scale(5);
  scale << 1e3, 1e3, 1e3, 1e3, 1e-3;
  const Eigen::VectorXd gs = g.cwiseQuotient(scale), fs = f.cwiseProduct(scale);
  EXPECT_NEAR(CancellationRatio(gs, fs, 2), 1.0 / 5.0, 1e-15);
  EXPECT_GT(std::abs(std::abs(gs.dot(fs)) / (gs.norm() * fs.norm()) - std::abs(g.dot(f)) / (g.norm() * f.norm())),
            0.01)
      << "the mixed-units measure changes with the units";
  EXPECT_EQ(CancellationRatio(g, Eigen::VectorXd::Zero(5), 2), 0);
}

}  // namespace
}  // namespace saltation::testing
