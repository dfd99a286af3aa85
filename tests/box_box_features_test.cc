// A box on a box holds its contact's feature (box_box_features.h): which of the pair's own points
// (box_box_points.cc) it is — a vertex over a face ("vertex-face") or an edge across an edge
// ("edge-edge") — and the boundary of its region is a located guard, as for a sphere, a capsule.
//  - FeaturePointIsTheOwnPointAndGuardGradientItsDerivative: random poses of two free boxes; every
//    listed point is its feature's FeaturePoint, its region's guards are ≥ 0 there, and
//    FeatureGuardGradient is the guards' finite-difference gradient.
//  - CubeSlidingOverTheRimHandsItsCornersToItsEdges: a frictionless cube (half size a) slides flat
//    at v₀ on a bench's top face over its rim at x = 0: its two front corners' vertex–face hand over
//    to the edge–edge points of its bottom edges across the rim at t = (−a − x₀)/v₀, a located
//    `feature` event each; translation only, the dynamics does not change: Ξ = I.
//  - HeldCornerKeepsItsPointWhenAnotherLiesNearerItsAnchor: BoxPile(24)'s failure reduced. A corner
//    of a cube lies 1e-4 m inside a bench's rim, the cube turned so that one of its bottom edges
//    crosses the rim at 0.05 rad: that edge–edge point runs along the rim at 1/0.05 the speed of the
//    cube across it. Moved as an RK4 stage moves it before the anchors are followed, the edge–edge
//    point lies nearer the corner's old anchor than the corner itself; the held corner must keep
//    its own point (798f624 took the edge–edge point: 1e-3 m away).
//  - EdgeSlidingOffTheEndOfARimHandsOverAtTheClosedFormTime: the edge-end hand-over (issue 14, Pile(35)
//    on 6eab530). A cube turned 45° about z lies flat on a bench, one corner over the rim (x = 0),
//    and slides frictionless along the rim (+y) at v₀. The crossing of its leading edge with the
//    rim runs along the rim and reaches the bench's corner at t = (Y − a√2 + x_c − y₀)/v₀; there the
//    held edge–edge hands over to the bench's corner under the cube's bottom face, a located
//    `feature` event (before: no event, the anchor matching passed the contact on silently); the
//    dynamics does not change: Ξ = I.
//  - TiltedEdgesRisingOffTheirCornerLeave: a cube turned 45° about z and tilted by β about y, its
//    lowest (+x) corner beyond a bench's rim, rests on the crossings of its two lower edges with the
//    rim and slides back (−x) over it, rising. Where the crossings reach the corner, the successor
//    (the corner over the bench's top) moves up along its normal: the contacts leave there (kind
//    liftoff) and the cube flies ballistically (before: the corner was held rising at constant
//    speed, its gap growing, gravity cancelled by a pushing force).
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "feature_guard_fd.h"
#include "test_util.h"

#include "saltation/contact_features.h"

namespace saltation::testing {
namespace {

class BoxBoxFeatures : public MujocoTest {};

TEST_F(BoxBoxFeatures, FeaturePointIsTheOwnPointAndGuardGradientItsDerivative) {
  ModelPtr m = LoadModelFromString(R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="brick"><freejoint/><geom name="brick" type="box" size="0.12 0.07 0.05" margin="1" gap="0.01"/></body>
    <body name="crate" euler="20 -30 40"><freejoint/><geom name="crate" type="box" size="0.3 0.2 0.1" margin="0.002"/></body>
  </worldbody>
</mujoco>)");
  Model model(m.get());
  Data data(model);
  mjData* d = data.main();
  RandomPoses poses(5);
  std::map<std::string, int> seen;
  double worst = 0;
  for (int sample = 0; sample < 60; sample++) {
    Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
    q.segment<3>(0) = poses.Position(0.4);
    q.segment<4>(3) = poses.Orientation();
    EvaluatePosition(model, d, q.data());
    std::vector<ContactPoint> points;
    ListContacts(model, d, points);
    for (const ContactPoint& point : points) {
      EvaluatePosition(model, d, q.data());
      ContactId id = point.id;
      ASSERT_TRUE(HasFeatures(m.get(), id));
      id.feature = FeatureAt(m.get(), d, id);
      ASSERT_GE(id.feature, 0);
      EXPECT_EQ(id.feature, point.own_feature);
      const std::string name = FeatureName(id.feature);
      seen[name]++;
      const ContactPoint p = FeaturePoint(model, d, id);
      ExpectSamePoint(p, point, name);
      EXPECT_LT((p.id.anchor - point.id.anchor).norm(), 1e-12) << name;
      const FeatureGuardSet guards = FeatureGuards(m.get(), d, id);
      ASSERT_EQ(guards.count, 4) << name;
      for (int j = 0; j < guards.count; j++) {
        // a vertex is listed over its face up to 1e-9 of the sizes past the rim
        EXPECT_GT(guards.guard[j].value, -1e-9 * 0.3) << name << " guard " << j;
        const std::string to = FeatureName(guards.guard[j].to);
        EXPECT_TRUE(to == "vertex-face" || to == "edge-edge") << name << " guard " << j << " to '" << to << "'";
      }
      worst = std::max(worst, ExpectGuardGradientsMatchTheirTwins(model, d, id, q, guards, 1e-8, name));
    }
  }
  std::printf("[ box box ] features seen:");
  for (const auto& [name, n] : seen) std::printf(" %s %d", name.c_str(), n);
  std::printf("; worst |∇h − FD| / (1 + |∇h|) %.2e\n", worst);
  EXPECT_GE(seen["vertex-face"], 10);
  EXPECT_GE(seen["edge-edge"], 10);
}

constexpr double kA = 0.05, kMargin = 0.01;  // the cube's half size, the bench's margin

const char* kCubeOnBench = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="bench" type="box" pos="-0.5 0 -0.1" size="0.5 0.5 0.1" condim="1" margin="0.01"/>
    <body name="cube">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="cube" type="box" size="0.05 0.05 0.05" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

TEST_F(BoxBoxFeatures, CubeSlidingOverTheRimHandsItsCornersToItsEdges) {
  ModelPtr m = LoadModelFromString(kCubeOnBench);
  Model model(m.get());
  const double x0 = -0.15, v0 = 1, t_rim = (-kA - x0) / v0;
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::Vector2d(x0, kA + kMargin);  // resting: the rigid contact holds the gap (dist − margin) at 0
  x.qvel = Eigen::Vector2d(v0, 0);
  x.act.resize(0);
  HybridState s = sim.Initialize(x);
  ASSERT_EQ(s.mode.contacts.size(), 4u);
  for (const ContactId& id : s.mode.contacts) EXPECT_STREQ(FeatureName(id.feature), "vertex-face");
  const std::vector<RigidEvent> events = sim.Advance(s, t_rim + 0.04);
  ASSERT_EQ(events.size(), 2u);
  double worst_time = 0, worst_xi = 0;
  for (const RigidEvent& ev : events) {
    EXPECT_EQ(ev.kind, EventKind::kFeature);
    EXPECT_STREQ(FeatureName(ev.feature_before), "vertex-face");
    EXPECT_STREQ(FeatureName(ev.feature_after), "edge-edge");
    worst_time = std::max(worst_time, std::abs(ev.time - t_rim));
    worst_xi = std::max(worst_xi, (ev.xi.Dense() - Eigen::MatrixXd::Identity(4, 4)).cwiseAbs().maxCoeff());
  }
  std::printf("[ box box ] corners over the rim: |t − t_exact| ≤ %.2e s, max |Ξ − I| = %.2e\n", worst_time, worst_xi);
  EXPECT_LT(worst_time, 1e-12);
  EXPECT_LT(worst_xi, 1e-9);
  // the cube slides on, flat, on two corners and two edges
  EXPECT_NEAR(s.x.time, t_rim + 0.04, 1e-12);
  EXPECT_NEAR(s.x.qpos(0), x0 + v0 * s.x.time, 1e-9);
  EXPECT_NEAR(s.x.qpos(1), kA + kMargin, 1e-9);
  std::map<std::string, int> held;
  for (const ContactId& id : s.mode.contacts) held[FeatureName(id.feature)]++;
  EXPECT_EQ(held["vertex-face"], 2);
  EXPECT_EQ(held["edge-edge"], 2);
}

TEST_F(BoxBoxFeatures, HeldCornerKeepsItsPointWhenAnotherLiesNearerItsAnchor) {
  // the cube turned by −γ about z: its corner (−a, −a, −a) at (−δ, 0, 0), its +y edge from there at
  // angle γ to the rim (x = 0), crossing it δ/tan γ along y
  const double gamma = 0.05, delta = 1e-4;
  const Eigen::Vector3d centre(-delta + kA * (std::cos(gamma) + std::sin(gamma)),
                               kA * (std::cos(gamma) - std::sin(gamma)), kA);
  char xml[1200];
  std::snprintf(xml, sizeof(xml), R"(
<mujoco>
  <compiler angle="radian"/>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body name="cube" pos="%.17g %.17g %.17g">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="y" type="slide" axis="0 1 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="cube" type="box" size="0.05 0.05 0.05" mass="1" axisangle="0 0 1 %.17g"/>
    </body>
    <body name="bench" pos="-0.5 0 -0.1"><geom name="bench" type="box" size="0.5 0.5 0.1" margin="0.01"/></body>
  </worldbody>
</mujoco>)", centre(0), centre(1), centre(2) + kMargin, -gamma);
  ModelPtr m = LoadModelFromString(xml);
  Model model(m.get());
  Data data(model);
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::Vector3d::Zero();
  x.qvel = Eigen::Vector3d::Zero();
  x.act.resize(0);
  const HybridState s = sim.Initialize(x);
  int corner = -1;
  for (size_t k = 0; k < s.mode.contacts.size(); k++) {
    // (its anchor: in the bench's frame, midway between the surfaces)
    if ((s.mode.contacts[k].anchor - Eigen::Vector3d(0.5 - delta, 0, 0.1 + kMargin / 2)).norm() < 1e-12) {
      corner = static_cast<int>(k);
    }
  }
  ASSERT_GE(corner, 0) << "the corner is held";
  // half way to the rim, and along it so that the edge's crossing comes to (0, 0, 0): δ from the
  // corner's old anchor, the corner itself (δ/2)/tan γ = 1e-3 m from it
  const double dx = delta / 2, dy = (delta - dx) / std::tan(gamma);
  State moved = x;
  moved.qpos = Eigen::Vector3d(dx, -dy, 0);
  const ModeDynamics dyn = EvaluateMode(model, data, moved, s.mode);
  const Eigen::Vector3d corner_now(-delta + dx, -dy, kMargin / 2);
  std::printf("[ box box ] held corner's point %.3e m from the corner (the edge's crossing %.3e m from its old anchor)\n",
              (dyn.constraints.points[corner].pos - corner_now).norm(), delta);
  EXPECT_LT((dyn.constraints.points[corner].pos - corner_now).norm(), 1e-12) << dyn.constraints.points[corner].pos.transpose() << " vs " << corner_now.transpose() << " feature " << FeatureName(s.mode.contacts[corner].feature);
  EXPECT_NEAR(dyn.constraints.points[corner].gap, 0, 1e-12);
}

TEST_F(BoxBoxFeatures, EdgeSlidingOffTheEndOfARimHandsOverAtTheClosedFormTime) {
  // the bench: top z = 0, x ∈ [−1, 0], y ∈ [−Y, Y]; the cube's centre at x_c > 0, so its −x corner
  // lies over the bench and its ±y corners beyond the rim; its two edges from the −x corner cross
  // the rim, the leading one at y = y_c + a√2 − x_c
  const double Y = 0.5, xc = 0.02, y0 = 0.4, v0 = 1;
  const double t_end = (Y - kA * std::sqrt(2.0) + xc - y0) / v0;
  char xml[1200];
  std::snprintf(xml, sizeof(xml), R"(
<mujoco>
  <compiler angle="radian"/>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="bench" type="box" pos="-0.5 0 -0.1" size="0.5 %.17g 0.1" condim="1" margin="0.01"/>
    <body name="cube" pos="%.17g 0 0">
      <joint name="y" type="slide" axis="0 1 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="cube" type="box" size="0.05 0.05 0.05" mass="1" condim="1" axisangle="0 0 1 %.17g"/>
    </body>
  </worldbody>
</mujoco>)", Y, xc, M_PI / 4);
  ModelPtr m = LoadModelFromString(xml);
  Model model(m.get());
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::Vector2d(y0, kA + kMargin);  // resting: the rigid contact holds the gap (dist − margin) at 0
  x.qvel = Eigen::Vector2d(v0, 0);
  x.act.resize(0);
  HybridState s = sim.Initialize(x);
  std::map<std::string, int> held;
  for (const ContactId& id : s.mode.contacts) held[FeatureName(id.feature)]++;
  ASSERT_EQ(held["vertex-face"], 1);
  ASSERT_EQ(held["edge-edge"], 2);
  const std::vector<RigidEvent> events = sim.Advance(s, t_end + 0.02);
  ASSERT_EQ(events.size(), 1u);
  const RigidEvent& ev = events[0];
  EXPECT_EQ(ev.kind, EventKind::kFeature);
  EXPECT_STREQ(FeatureName(ev.feature_before), "edge-edge");
  EXPECT_STREQ(FeatureName(ev.feature_after), "vertex-face");
  const double xi = (ev.xi.Dense() - Eigen::MatrixXd::Identity(4, 4)).cwiseAbs().maxCoeff();
  std::printf("[ box box ] edge off the rim's end: |t − t_exact| = %.2e s, max |Ξ − I| = %.2e\n",
              std::abs(ev.time - t_end), xi);
  EXPECT_LT(std::abs(ev.time - t_end), 1e-12);
  EXPECT_LT(xi, 1e-9);
  // the cube slides on, flat, on its −x corner, the trailing edge's crossing and the bench's corner
  EXPECT_NEAR(s.x.qpos(0), y0 + v0 * s.x.time, 1e-9);
  EXPECT_NEAR(s.x.qpos(1), kA + kMargin, 1e-9);
  held.clear();
  for (const ContactId& id : s.mode.contacts) held[FeatureName(id.feature)]++;
  EXPECT_EQ(held["vertex-face"], 2);
  EXPECT_EQ(held["edge-edge"], 1);
}

TEST_F(BoxBoxFeatures, TiltedEdgesRisingOffTheirCornerLeave) {
  const double beta = 0.1, c = std::cos(beta), sn = std::sin(beta), r2 = std::sqrt(2.0);
  // the cube's frame: Ry(β)·Rz(45°); its +x corner (a√2, 0, −a) before the tilt is the lowest
  const double q = M_PI / 4;
  const Eigen::Matrix3d R = (Eigen::AngleAxisd(beta, Eigen::Vector3d::UnitY()) *
                             Eigen::AngleAxisd(q, Eigen::Vector3d::UnitZ())).toRotationMatrix();
  // the side corners at x_s = x_c − a sinβ = −0.02 (over the bench), the crossings at x = 0 touch
  const double xs = -0.02, xc = xs + kA * sn, zc = kA * c - xs * sn / c;
  char xml[1400];
  std::snprintf(xml, sizeof(xml), R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="bench" type="box" pos="-0.5 0 -0.1" size="0.5 0.5 0.1" condim="1"/>
    <body name="cube">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="cube" type="box" size="0.05 0.05 0.05" mass="1" condim="1"
            xyaxes="%.17g %.17g %.17g %.17g %.17g %.17g"/>
    </body>
  </worldbody>
</mujoco>)", R(0, 0), R(1, 0), R(2, 0), R(0, 1), R(1, 1), R(2, 1));
  ModelPtr m = LoadModelFromString(xml);
  Model model(m.get());
  RigidSimulator sim(model);
  State x;
  x.qpos = Eigen::Vector2d(xc, zc);
  x.qvel = Eigen::Vector2d(-0.5, 0.5 * sn / c);  // along the rim's climb
  x.act.resize(0);
  HybridState s = sim.Initialize(x);
  std::map<std::string, int> held;
  for (const ContactId& id : s.mode.contacts) held[FeatureName(id.feature)]++;
  ASSERT_EQ(held["edge-edge"], 2);
  ASSERT_EQ(s.mode.contacts.size(), 2u);
  // the corner reaches the rim when x_s = −a√2 cosβ: 0.0504 m at 0.5 m/s less the climb's deceleration
  const std::vector<RigidEvent> events = sim.Advance(s, 0.117);
  ASSERT_GE(events.size(), 1u);
  const RigidEvent& last = events.back();
  for (const RigidEvent& ev : events) {
    EXPECT_EQ(ev.kind, EventKind::kLiftoff) << ev.time;
    EXPECT_NEAR(ev.time, events.front().time, 1e-12);
  }
  EXPECT_TRUE(s.mode.contacts.empty());
  // the corner at the rim then: x_s = −a√2 cosβ
  EXPECT_NEAR(last.x_plus.qpos(0) - kA * sn, -kA * r2 * c, 1e-9);
  // then ballistic from the event's state (the corner rising away from the bench's top)
  const double vz = last.x_plus.qvel(1), dt = s.x.time - last.time;
  ASSERT_GT(vz, 0.01);
  ASSERT_GT(dt, 0.003);
  std::printf("[ box box ] tilted edges off their corner at t = %.9f s, v_z %.4f m/s; z after %.3f s off the arc by %.2e m\n",
              last.time, vz, dt, std::abs(s.x.qpos(1) - (last.x_plus.qpos(1) + vz * dt - 0.5 * 9.81 * dt * dt)));
  EXPECT_NEAR(s.x.qpos(1), last.x_plus.qpos(1) + vz * dt - 0.5 * 9.81 * dt * dt, 1e-12);
  EXPECT_NEAR(s.x.qpos(0), last.x_plus.qpos(0) + last.x_plus.qvel(0) * dt, 1e-12);
  // the corner left at the top's height: it lands back on it after 2 v_z / g
  const std::vector<RigidEvent> landing = sim.Advance(s, last.time + 3 * vz / 9.81);
  ASSERT_EQ(landing.size(), 1u);
  EXPECT_EQ(landing[0].kind, EventKind::kTouchdown);
  std::printf("[ box box ] lands back after %.9f s (2 v_z / g %.9f)\n", landing[0].time - last.time, 2 * vz / 9.81);
  EXPECT_NEAR(landing[0].time - last.time, 2 * vz / 9.81, 1e-10);
}

}  // namespace
}  // namespace saltation::testing
