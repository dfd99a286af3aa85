// A capsule's end on a box (issue 14 items 2–3, theory.md §9): the box feature under a capsule's
// end sphere — face, edge or vertex — is part of the rigid mode and its change is a located guard,
// as for a ball on a box (edge_test.cc), with the ball's centre replaced by the capsule's end.
//
// A capsule standing upright (radius r, its lower end's centre at the body's origin, mass 1, slide
// joints x and z) slides frictionless at v₀ on a bench's top face towards its edge at x = 0. Its
// lower end is the only point (the upper end is 2h above the face, beyond the band; the segment's
// line meets the edge's line below the end, so no interior point). The end sphere is edge_test's
// ball:
//  - fast (v₀² > g r): it leaves at the edge, t = x₀/v₀, Ξ = I but Ξ[v_z, x] = −g/v₀;
//  - slow (v₀² < g r): "cap-face" → "cap-edge" at t = x₀/v₀ with Ξ[v_z, x] = −v₀/r, and it
//    leaves at cos θ* = (v₀²/(g r) + 2)/3, t* = x₀/v₀ + ∫₀^θ* r dθ/v(θ), Ξ = I.
// Without the capsule–box features the reference has no event at the edge (the bias stencil looks
// past the edge, and the end's own point goes round it unnoticed).
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "arc_closed_forms.h"
#include "feature_guard_fd.h"
#include "test_util.h"

#include "saltation/contact_features.h"
#include "saltation/event_json.h"

namespace saltation::testing {
namespace {

constexpr double kG = 9.81, kR = 0.04;

const char* kPostOnBench = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="bench" type="box" pos="-0.8 0 -0.2" size="0.8 0.4 0.2" condim="1"/>
    <body name="post">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="post" type="capsule" fromto="0 0 0  0 0 0.3" size="0.04" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

State PostState(double x, double v0) {
  State s;
  s.qpos = Eigen::Vector2d(x, kR);
  s.qvel = Eigen::Vector2d(v0, 0);
  s.act.resize(0);
  return s;
}

class CapsuleBoxFeatures : public MujocoTest {};

TEST_F(CapsuleBoxFeatures, UprightCapsuleLeavesTheBenchOverItsEdge) {
  ModelPtr m = LoadModelFromString(kPostOnBench);
  Model model(m.get());
  const double x0 = 0.1;
  // g r = 0.392: 1 and 3 m/s leave at the edge, 0.3 and 0.5 go round it
  for (double v0 : {1.0, 3.0, 0.3, 0.5}) {
    RigidSimulator sim(model);
    HybridState s = sim.Initialize(PostState(-x0, v0));
    ASSERT_EQ(s.mode.contacts.size(), 1u);
    ASSERT_TRUE(HasFeatures(m.get(), s.mode.contacts[0]));
    EXPECT_STREQ(FeatureName(s.mode.contacts[0].feature), "cap-face");
    const std::vector<RigidEvent> events = sim.Advance(s, x0 / v0 + 0.3);
    const bool fast = v0 * v0 > kG * kR;
    ASSERT_EQ(events.size(), fast ? 1u : 2u) << "v0 " << v0;
    const RigidEvent& on = events[0];
    EXPECT_EQ(on.kind, fast ? EventKind::kLiftoff : EventKind::kFeature) << "v0 " << v0;
    EXPECT_STREQ(FeatureName(on.feature_before), "cap-face");
    EXPECT_STREQ(FeatureName(on.feature_after), "cap-edge");
    const double on_error = (on.xi.Dense() - XiWithEntry(fast ? -kG / v0 : -v0 / kR)).cwiseAbs().maxCoeff();
    EXPECT_NEAR(on.time, x0 / v0, 1e-9) << "v0 " << v0;
    EXPECT_NEAR(on.x_minus.qpos(0), 0, 1e-9) << "v0 " << v0;
    EXPECT_LT(on_error, 1e-9) << "v0 " << v0 << "\n" << on.xi.Dense();
    if (fast) {
      std::printf("[ capsule box ] fast v0 %.2f: leaves at t − t_exact = %+.2e s, max |Ξ − Ξ_exact| = %.2e\n", v0,
                  on.time - x0 / v0, on_error);
      EXPECT_TRUE(on.mode_after.contacts.empty());
      continue;
    }
    const RigidEvent& off = events[1];
    EXPECT_EQ(off.kind, EventKind::kLiftoff);
    const double c = (v0 * v0 / (kG * kR) + 2) / 3, theta = std::acos(c);
    const double t_exact = x0 / v0 + TimeRoundAnArc(v0, kR, kG, theta);
    const double off_error = (off.xi.Dense() - Eigen::MatrixXd::Identity(4, 4)).cwiseAbs().maxCoeff();
    std::printf("[ capsule box ] slow v0 %.2f: edge at t − t_exact = %+.2e s, max |Ξ − Ξ_exact| = %.2e; leaves at "
                "θ* = %.4f: t − t_exact = %+.2e s, max |Ξ − I| = %.2e\n",
                v0, on.time - x0 / v0, on_error, theta, off.time - t_exact, off_error);
    EXPECT_NEAR(off.time, t_exact, 1e-9) << "v0 " << v0;
    EXPECT_NEAR(off.x_minus.qpos(0), kR * std::sin(theta), 1e-9);
    EXPECT_NEAR(off.x_minus.qpos(1), kR * c, 1e-9);
    EXPECT_LT(off_error, 1e-9) << "v0 " << v0 << "\n" << off.xi.Dense();
  }
}

// The bias of the end on the face 1e-5 m before the edge is the face's (λ = m g, no vertical
// acceleration) whether the mode holds the feature or resolves it at the state: the stencil
// (±2·jdot_step·|v| = 6e-4 m at 3 m/s) does not look past the edge.
TEST_F(CapsuleBoxFeatures, EndOnTheFaceNearTheEdgeFeelsNoCurvature) {
  ModelPtr m = LoadModelFromString(kPostOnBench);
  Model model(m.get());
  Data data(model);
  const State x = PostState(-1e-5, 3);
  RigidSimulator sim(model);
  const HybridState s = sim.Initialize(x);
  ASSERT_EQ(s.mode.contacts.size(), 1u);
  for (Mode mode : {s.mode, Mode{{[&] { ContactId id = s.mode.contacts[0]; id.feature = -1; return id; }()}}}) {
    const ModeDynamics dyn = EvaluateMode(model, data, x, mode);
    EXPECT_NEAR(dyn.normal_force(0), kG, 1e-9) << "feature " << mode.contacts[0].feature;
    EXPECT_NEAR(dyn.qacc(1), 0, 1e-9) << "feature " << mode.contacts[0].feature;
  }
}

// FeaturePoint is the pair's own end-sphere point (capsule_box_points.cc) in every region (face,
// edge, vertex, either end), each region's guards are positive inside it, and FeatureGuardGradient
// is the guard's finite-difference gradient. Random poses of a free capsule about a free tilted box
// (a margin of 1 m: every end within it is listed); the segment's interior points are
// capsule_across_edge_test's.
TEST_F(CapsuleBoxFeatures, FeaturePointIsTheOwnPointAndGuardGradientItsDerivative) {
  ModelPtr m = LoadModelFromString(R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="log"><freejoint/><geom name="log" type="capsule" size="0.04 0.15" margin="1" gap="0.01"/></body>
    <body name="crate" euler="20 -30 40"><freejoint/><geom name="crate" type="box" size="0.3 0.2 0.1" margin="0.002"/></body>
  </worldbody>
</mujoco>)");
  Model model(m.get());
  Data data(model);
  mjData* d = data.main();
  RandomPoses poses(11);
  std::map<std::string, int> seen;
  int interior = 0;
  for (int sample = 0; sample < 300; sample++) {
    Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
    q.segment<3>(0) = poses.Position(0.5);
    q.segment<4>(3) = poses.Orientation();
    EvaluatePosition(model, d, q.data());
    std::vector<ContactPoint> points;
    ListContacts(model, d, points);
    for (const ContactPoint& point : points) {
      EvaluatePosition(model, d, q.data());
      ContactId id = point.id;
      ASSERT_TRUE(HasFeatures(m.get(), id));
      id.feature = FeatureAt(m.get(), d, id);
      const std::string name = FeatureName(id.feature);
      if (id.feature < 0 || name.rfind("cylinder-", 0) == 0) {
        interior++;  // an interior point of the segment (capsule_across_edge_test), or an end's centre inside the box
        continue;
      }
      seen[name]++;
      const ContactPoint p = FeaturePoint(model, d, id);
      ExpectSamePoint(p, point, name);
      EXPECT_EQ(p.condim, point.condim);
      const FeatureGuardSet guards = FeatureGuards(m.get(), d, id);
      // the box's guards on the end's coordinates, and on an edge or a vertex the segment's foot
      // leaving the end (capsule_across_edge_test: negative where the segment's interior is nearer)
      const int box_guards = name == "cap-face" ? 5 : name == "cap-edge" ? 4 : 3;
      EXPECT_EQ(guards.count, name == "cap-face" ? 5 : box_guards + 1) << name;
      for (int j = 0; j < box_guards; j++) EXPECT_GT(guards.guard[j].value, 0) << name << " guard " << j;
      ExpectGuardGradientsMatchTheirTwins(model, d, id, q, guards, 1e-8, name);
    }
  }
  std::printf("[ capsule box ] end regions seen:");
  for (const auto& [name, n] : seen) std::printf(" %s %d", name.c_str(), n);
  std::printf("; interior points (or an end inside) %d\n", interior);
  EXPECT_GE(seen["cap-face"], 5);
  EXPECT_GE(seen["cap-edge"], 5);
  EXPECT_GE(seen["cap-vertex"], 5);
}

}  // namespace
}  // namespace saltation::testing
