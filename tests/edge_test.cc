// A frictionless ball leaving a box's edge (issue 14 items 2–3, theory.md §9): the contact's
// feature (face → edge) is part of the rigid mode and its change is a located guard.
//
// The ball (radius r, mass 1, slide joints x and z) slides at v₀ on the top face towards the edge
// at x = 0. The face holds it (λ = m g) until its centre passes over the edge; from there the
// constraint is the circle of radius r about the edge, λ = m(g cos θ − v²/r), v² = v₀² + 2 g r(1 − cos θ).
//  - fast (v₀² > g r): λ < 0 at once, it leaves at the edge, t = x₀/v₀; the switch's Ξ is
//    I + (F⁺ − F⁻)∇hᵀ/(∇hᵀF⁻) with F⁺ − F⁻ = −g in v_z and ∇h = −e_x: Ξ[v_z, x] = −g/v₀.
//  - slow (v₀² < g r): it rolls round the edge (Ξ[v_z, x] = −v₀/r at the switch, the centripetal
//    jump) and leaves at cos θ* = (v₀²/(g r) + 2)/3, t* = x₀/v₀ + ∫₀^θ* r dθ/v(θ), where λ reaches
//    zero continuously: F⁺ = F⁻, Ξ = I, and dλ/dt = −3 m g sin θ* v*/r.
// Before the fix the bias stencil looked ±2·jdot_step·|v| past the edge and the reference had no
// event there: the fast ball left 1.6e-6 m (1 m/s) to 2.3e-4 m (3 m/s) early with Ξ = I, the slow
// one 4.5e-5 s late.
#include <cmath>
#include <cstdio>

#include "arc_closed_forms.h"
#include "ball_over_edge_checks.h"
#include "feature_guard_fd.h"
#include "test_util.h"

#include "saltation/contact_features.h"
#include "saltation/event_json.h"

namespace saltation::testing {
namespace {

constexpr double kG = kGravity, kR = kBallRadius;

const char* kTableEdge = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="bench" type="box" pos="-0.8 0 -0.2" size="0.8 0.4 0.2" condim="1"/>
    <body name="puck">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="puck" type="sphere" size="0.04" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

class Edge : public MujocoTest {};

const BallOverEdge kBallOverTheEdge = {kTableEdge, "face", "edge", "table edge"};


TEST_F(Edge, FastBallLeavesExactlyAtTheEdge) {
  for (double v0 : {1.0, 3.0}) ExpectFastBallLeavesAtTheEdge(kBallOverTheEdge, v0);
}

TEST_F(Edge, SlowBallRollsRoundTheEdgeAndLeavesWhereTheForceVanishes) {
  for (double v0 : {0.2, 0.45}) ExpectSlowBallRollsRoundAndLeaves(kBallOverTheEdge, v0);
}

// The same edge with friction (condim 3, sticking): a ball rolling at v₀ (ω = v₀/r) rolls round the
// edge on its contact rows (normal and both tangents on the edge's feature) with kinetic energy
// (7/10) m v², so v² = v₀² + (10/7) g r (1 − cos θ) and λ = m(g cos θ − v²/r) vanishes at
// cos θ* = (7 v₀²/(g r) + 10)/17, at t* = x₀/v₀ + ∫₀^θ* r dθ/v(θ). At the switch the centre's
// acceleration jumps by −v₀²/r in z and nothing else (the tangential acceleration g sin θ·5/7 and
// the angular one are zero at θ = 0): Ξ = I but Ξ[v_z, x] = −v₀/r. (The release's Ξ is not I here:
// the sticking contact still carries the friction force m g sin θ*·2/7 when λ_n reaches zero.)
TEST_F(Edge, RollingBallRollsRoundTheEdgeOnItsTangentRowsToo) {
  ModelPtr m = LoadModelFromString(R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="step" type="box" pos="-0.5 0.1 -0.1" size="0.5 0.6 0.1" condim="3" friction="2"/>
    <body name="marble">
      <freejoint/>
      <geom name="marble" type="sphere" size="0.04" mass="0.3" condim="3" friction="2"/>
    </body>
  </worldbody>
</mujoco>)");
  Model model(m.get());
  const double v0 = 0.3, x0 = 0.03;
  RigidSimulator sim(model);
  State x;
  x.qpos.setZero(7);
  x.qpos << -x0, 0, kR, 1, 0, 0, 0;
  x.qvel.setZero(6);
  x.qvel(0) = v0;
  x.qvel(4) = v0 / kR;  // rolling: ω_y = v/r (the free joint's angular velocity is in the body frame)
  x.act.resize(0);
  HybridState s = sim.Initialize(x);
  ASSERT_EQ(s.mode.contacts.size(), 1u);
  ASSERT_FALSE(s.mode.contacts[0].frictionless) << "it starts rolling, not sliding";
  const std::vector<RigidEvent> events = sim.Advance(s, x0 / v0 + 0.3);
  ASSERT_GE(events.size(), 2u);
  const RigidEvent& on = events[0];
  EXPECT_EQ(on.kind, EventKind::kFeature);
  EXPECT_STREQ(FeatureName(on.feature_after), "edge");
  Eigen::MatrixXd on_truth = Eigen::MatrixXd::Identity(12, 12);
  on_truth(8, 0) = -v0 / kR;  // v_z row, x column
  const double c = (7 * v0 * v0 / (kG * kR) + 10) / 17;
  const double theta = std::acos(c);
  const double t_exact = x0 / v0 + TimeRoundAnArc(v0, kR, 5.0 / 7 * kG, theta);  // rolling
  const RigidEvent& off = events[1];
  std::printf("[ table edge ] rolling v0 %.2f: switch t − t_exact = %+.2e s, max |Ξ − Ξ_exact| = %.2e; release "
              "(%s) at θ* = %.4f: t − t_exact = %+.2e s, max |Ξ − I| = %.2e\n",
              v0, on.time - x0 / v0, (on.xi.Dense() - on_truth).cwiseAbs().maxCoeff(), EventKindName(off.kind), theta,
              off.time - t_exact, (off.xi.Dense() - Eigen::MatrixXd::Identity(12, 12)).cwiseAbs().maxCoeff());
  EXPECT_NEAR(on.time, x0 / v0, 1e-9);
  EXPECT_LT((on.xi.Dense() - on_truth).cwiseAbs().maxCoeff(), 1e-7) << on.xi.Dense();  // measured 1.9e-8
  EXPECT_EQ(off.kind, EventKind::kLiftoff);
  EXPECT_NEAR(off.time, t_exact, 1e-9);
  EXPECT_NEAR(off.x_minus.qpos(0), kR * std::sin(theta), 1e-9);
}

// The engine hook on MuJoCo's own (soft) simulation of the fast ball: its liftoff is located at the
// edge, where λ_n jumps (no feature is held there), and its Ξ is the feature change's, the edge
// closed form Ξ[v_z, x] = −G/v_x⁻ with ∇g = −e_x; ∂λ_n/∂x by differences across the jump gave
// ‖Ξ‖ 15.5 instead of 9.9 at 1 m/s.
TEST_F(Edge, HookReleasesAtTheEdgeWithTheFeatureChangesXi) {
  for (double v0 : {1.0, 2.0}) ExpectHookReleasesAtTheEdge(kBallOverTheEdge, v0);
}

// The bias of a face contact near the edge is the face's: the stencil does not look past the edge
// (it reached 2·jdot_step·|v| = 6e-4 m ahead at 3 m/s and saw the edge's curvature from 1e-5 m).
TEST_F(Edge, FaceContactNearTheEdgeFeelsNoCurvature) {
  ModelPtr m = LoadModelFromString(kTableEdge);
  Model model(m.get());
  Data data(model);
  State x;
  x.qpos = Eigen::Vector2d(-1e-5, kR);
  x.qvel = Eigen::Vector2d(3, 0);
  x.act.resize(0);
  RigidSimulator sim(model);
  const HybridState s = sim.Initialize(x);
  ASSERT_EQ(s.mode.contacts.size(), 1u);
  for (Mode mode : {s.mode, Mode{{[&] { ContactId id = s.mode.contacts[0]; id.feature = -1; return id; }()}}}) {
    const ModeDynamics dyn = EvaluateMode(model, data, x, mode);
    EXPECT_NEAR(dyn.normal_force(0), kG, 1e-9) << "feature " << mode.contacts[0].feature;
    EXPECT_NEAR(dyn.qacc(1), 0, 1e-9);
  }
}

// FeaturePoint is MuJoCo's sphere–box point inside each region (face, edge, vertex) of a tilted
// box, and FeatureGuardGradient is the guard's finite-difference gradient.
TEST_F(Edge, FeaturePointIsMujocosPointAndGuardGradientItsDerivative) {
  ModelPtr m = LoadModelFromString(R"(
<mujoco>
  <worldbody>
    <body name="crate" pos="0.1 0.2 0.3" euler="20 -30 40">
      <freejoint/>
      <geom name="crate" type="box" size="0.3 0.2 0.1" margin="0.01" gap="0.002"/>
    </body>
    <body name="ball">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.05" margin="0.003"/>
    </body>
  </worldbody>
</mujoco>)");
  Model model(m.get());
  Data data(model);
  mjData* d = data.main();
  // the ball centre placed in the crate's frame just off a face, an edge and a vertex
  const Eigen::Vector3d local[3] = {{0.1, -0.05, 0.1 + 0.052}, {0.3 + 0.03, 0.05, 0.1 + 0.03}, {-0.3 - 0.02, 0.2 + 0.03, -0.1 - 0.025}};
  const char* names[3] = {"face", "edge", "vertex"};
  for (int i = 0; i < 3; i++) {
    Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
    mju_copy(d->qpos, q.data(), m->nq);
    mj_kinematics(m.get(), d);
    Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->geom_xmat + 9 * 0);
    q.segment<3>(7) = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos) + R * local[i];
    EvaluatePosition(model, d, q.data());
    std::vector<ContactPoint> points;
    ListContacts(model, d, points);
    ASSERT_EQ(points.size(), 1u) << names[i];
    ContactId id = points[0].id;
    ASSERT_TRUE(HasFeatures(m.get(), id));
    id.feature = FeatureAt(m.get(), d, id);
    EXPECT_STREQ(FeatureName(id.feature), names[i]);
    const ContactPoint p = FeaturePoint(model, d, id);
    EXPECT_LT((p.pos - points[0].pos).norm(), 1e-12) << names[i];
    EXPECT_LT((p.frame.row(0) - points[0].frame.row(0)).norm(), 1e-12) << names[i];
    EXPECT_NEAR(p.gap, points[0].gap, 1e-12) << names[i];
    EXPECT_EQ(p.condim, points[0].condim);
    // every guard of the region: positive inside, gradient = central differences
    const FeatureGuardSet guards = FeatureGuards(m.get(), d, id);
    EXPECT_EQ(guards.count, i == 0 ? 5 : i == 1 ? 4 : 3);
    for (int j = 0; j < guards.count; j++) {
      EXPECT_GT(guards.guard[j].value, 0);
      EvaluatePosition(model, d, q.data());
      const Eigen::VectorXd grad = FeatureGuardGradient(model, d, id, guards.guard[j]);
      const Eigen::VectorXd fd = FeatureGuardGradientFD(model, d, id, q, j);
      EXPECT_LT((grad - fd).norm(), 1e-9) << names[i] << " guard " << j << "\n" << grad.transpose() << "\n" << fd.transpose();
    }
  }
}

}  // namespace
}  // namespace saltation::testing
