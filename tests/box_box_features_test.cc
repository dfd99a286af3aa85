// A box on a box (issue 14 items 2–3, theory.md §3 and §9): the feature of each of the pair's own
// points — vertex–face or edge–edge (box_box_features.h) — is part of the rigid mode and where it
// hands over to another is a located guard.
//  - FeaturePoint is the listed own point and every guard's gradient its finite-difference twin
//    over random poses of two free boxes.
//  - A box held at a tilt (slide joints x and z, no rotation) slides frictionless at v₀ on its
//    lowest corner over a wide box's top towards the rim at x = 0.5. The corner's foot leaves the
//    face at t = x₀/v₀; past it the corner's edge that goes back over the face lies above the rim
//    by δ·sin θ: the contact leaves at once (kind liftoff, "vertex-face" → "edge-edge") and Ξ is
//    I but Ξ[v_z, x] = −g/v₀ (no reset; F⁺ − F⁻ = (0, 0, 0, −g), ∇h = (−1, 0, 0, 0)).
//  - The same box turned so that one edge (pitched by φ) lies across the rim: from rest it slides
//    down along its own edge (acceleration g sin φ along e = (cos φ, −sin φ)) until the common
//    perpendicular's foot reaches the edge's upper end, D₀ along it: t = √(2 D₀/(g sin φ)); there the
//    end's vertex would go on the rim's side face, whose gap opens at |v| cos φ: a liftoff,
//    "edge-edge" → "vertex-face", with Ξ = I + (F⁺ − F⁻)∇hᵀ/(∇hᵀF⁻), ∇h = (−e, 0),
//    F⁺ − F⁻ = (0, 0, −g sin φ cos φ, −g cos² φ).
// Without the held features the reference has no event at the rim (the corner's point hands over
// to its edge's unlocated, inside a step).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "arc_closed_forms.h"
#include "feature_guard_fd.h"
#include "test_util.h"

#include "saltation/contact_features.h"
#include "saltation/rigid_simulator.h"

namespace saltation::testing {
namespace {

constexpr double kG = 9.81;

class BoxBoxFeatures : public MujocoTest {};

// FeaturePoint is the pair's own point (box_box_points.cc) for both features, each region's guards
// are positive inside it (a vertex listed up to 1e-9 of the sizes past the rim), and
// FeatureGuardGradient is each guard's finite-difference gradient. Random poses of a free box about
// a free tilted box (a margin of 1 m: every point within it is listed).
TEST_F(BoxBoxFeatures, FeaturePointIsTheOwnPointAndGuardGradientItsDerivative) {
  ModelPtr m = LoadModelFromString(R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="brick"><freejoint/><geom name="brick" type="box" size="0.12 0.07 0.04" margin="1" gap="0.01"/></body>
    <body name="crate" euler="20 -30 40"><freejoint/><geom name="crate" type="box" size="0.3 0.2 0.1" margin="0.002"/></body>
  </worldbody>
</mujoco>)");
  Model model(m.get());
  Data data(model);
  mjData* d = data.main();
  RandomPoses poses(17);
  std::map<std::string, int> seen;
  double worst = 0;
  for (int sample = 0; sample < 200; sample++) {
    Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
    q.segment<3>(0) = poses.Position(0.45);
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
      const std::string name = FeatureName(id.feature);
      seen[name]++;
      const ContactPoint p = FeaturePoint(model, d, id);
      ExpectSamePoint(p, point, name);
      EXPECT_EQ(p.condim, point.condim);
      const FeatureGuardSet guards = FeatureGuards(m.get(), d, id);
      EXPECT_EQ(guards.count, 4) << name;
      for (int j = 0; j < guards.count; j++) {
        EXPECT_GT(guards.guard[j].value, -1e-9 * 0.3) << name << " guard " << j;
        EXPECT_NE(std::string(FeatureName(guards.guard[j].to)), name) << name << " guard " << j;
      }
      worst = std::max(worst, ExpectGuardGradientsMatchTheirTwins(model, d, id, q, guards, 1e-9, name));
    }
  }
  std::printf("[ box box ] regions seen:");
  for (const auto& [name, n] : seen) std::printf(" %s %d", name.c_str(), n);
  std::printf("; worst guard gradient vs its twin %.2e\n", worst);
  EXPECT_GE(seen["vertex-face"], 20);
  EXPECT_GE(seen["edge-edge"], 20);
}

// A box of half sizes 0.06 0.05 0.04 on slide joints x and z, turned by `euler` (degrees; about the
// world's x, then y, then z), over a
// table whose top is z = 0 and whose rim is x = 0.5 (frictionless).
std::string TiltedBoxOnTable(const char* euler) {
  return std::string(R"(
<mujoco>
  <compiler eulerseq="XYZ"/>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="table" type="box" pos="0 0 -0.2" size="0.5 0.4 0.2" condim="1"/>
    <body name="box">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="box" type="box" size="0.06 0.05 0.04" euler=")") +
         euler + R"(" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";
}

// the box's eight vertices relative to the body (world axes) at qpos0
std::vector<Eigen::Vector3d> VerticesOf(const Model& model) {
  const mjModel* m = model.mj();
  Data data(model);
  mjData* d = data.main();
  mju_copy(d->qpos, m->qpos0, m->nq);
  mj_kinematics(m, d);
  const int box = mj_name2id(m, mjOBJ_GEOM, "box");
  const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->geom_xmat + 9 * box);
  std::vector<Eigen::Vector3d> v;
  for (int i = 0; i < 8; i++) {
    v.push_back(R * Eigen::Vector3d(i & 1 ? 0.06 : -0.06, i & 2 ? 0.05 : -0.05, i & 4 ? 0.04 : -0.04));
  }
  return v;
}

State PlanarState(double x, double z, double vx, double vz) {
  State s;
  s.qpos = Eigen::Vector2d(x, z);
  s.qvel = Eigen::Vector2d(vx, vz);
  s.act.resize(0);
  return s;
}

TEST_F(BoxBoxFeatures, TiltedCornerLeavesTheTopOverTheRim) {
  ModelPtr m = LoadModelFromString(TiltedBoxOnTable("25 35 10"));
  Model model(m.get());
  // the lowest vertex, and the others at least 5 mm above it
  const std::vector<Eigen::Vector3d> v = VerticesOf(model);
  int low = 0;
  for (int i = 1; i < 8; i++) {
    if (v[i].z() < v[low].z()) low = i;
  }
  for (int i = 0; i < 8; i++) {
    if (i != low) ASSERT_GT(v[i].z() - v[low].z(), 5e-3) << "vertex " << i;
  }
  const double x0 = 0.1;
  for (double v0 : {0.5, 2.0}) {
    RigidSimulator sim(model);
    HybridState s = sim.Initialize(PlanarState(0.5 - x0 - v[low].x(), -v[low].z(), v0, 0));
    ASSERT_EQ(s.mode.contacts.size(), 1u);
    EXPECT_STREQ(FeatureName(s.mode.contacts[0].feature), "vertex-face");
    const std::vector<RigidEvent> events = sim.Advance(s, x0 / v0 + 1e-3);
    ASSERT_GE(events.size(), 1u) << "v0 " << v0;
    const RigidEvent& off = events[0];
    EXPECT_EQ(off.kind, EventKind::kLiftoff) << "v0 " << v0;
    EXPECT_STREQ(FeatureName(off.feature_before), "vertex-face");
    EXPECT_STREQ(FeatureName(off.feature_after), "edge-edge");
    EXPECT_TRUE(off.mode_after.contacts.empty());
    const double error = (off.xi.Dense() - XiWithEntry(-kG / v0)).cwiseAbs().maxCoeff();
    std::printf("[ box box ] corner over the rim at v0 %.1f: t − x0/v0 = %+.2e s, max |Ξ − Ξ_exact| = %.2e\n", v0,
                off.time - x0 / v0, error);
    EXPECT_NEAR(off.time, x0 / v0, 1e-12) << "v0 " << v0;
    EXPECT_LT(error, 1e-12) << "v0 " << v0 << "\n" << off.xi.Dense();
  }
}

TEST_F(BoxBoxFeatures, EdgeAcrossTheRimSlidesToItsEndAndLeaves) {
  // turned 45° about x (an edge along the box's x axis lowest), then pitched down by φ = 20° about
  // the world's y: the edge's direction (cos φ, 0, −sin φ)
  const double phi = 20 * M_PI / 180;
  ModelPtr m = LoadModelFromString(TiltedBoxOnTable("45 20 0"));
  Model model(m.get());
  const std::vector<Eigen::Vector3d> v = VerticesOf(model);
  // the lowest edge: the two lowest vertices, its upper end `up` and lower end `down`
  std::vector<int> order = {0, 1, 2, 3, 4, 5, 6, 7};
  std::sort(order.begin(), order.end(), [&](int a, int b) { return v[a].z() < v[b].z(); });
  const Eigen::Vector3d down = v[order[0]], up = v[order[1]];
  const Eigen::Vector3d e = (down - up).normalized();
  ASSERT_NEAR(e.x(), std::cos(phi), 1e-12);
  ASSERT_NEAR(e.z(), -std::sin(phi), 1e-12);
  ASSERT_GT(v[order[2]].z() - up.z(), 5e-3);
  // the edge crosses the rim (x = 0.5, z = 0) D₀ = 0.03 below its upper end
  const double d0 = 0.03;
  const Eigen::Vector3d body = Eigen::Vector3d(0.5, 0, 0) - (up + d0 * e);
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(PlanarState(body.x(), body.z(), 0, 0));
  ASSERT_EQ(s.mode.contacts.size(), 1u);
  EXPECT_STREQ(FeatureName(s.mode.contacts[0].feature), "edge-edge");
  const double t_exact = std::sqrt(2 * d0 / (kG * std::sin(phi)));
  const std::vector<RigidEvent> events = sim.Advance(s, t_exact + 1e-3);
  ASSERT_GE(events.size(), 1u);
  const RigidEvent& off = events[0];
  EXPECT_EQ(off.kind, EventKind::kLiftoff);
  EXPECT_STREQ(FeatureName(off.feature_before), "edge-edge");
  EXPECT_STREQ(FeatureName(off.feature_after), "vertex-face");
  EXPECT_TRUE(off.mode_after.contacts.empty());
  // Ξ = I + (F⁺ − F⁻)∇hᵀ/(∇hᵀF⁻) at |v| = g sin φ t
  const double speed = kG * std::sin(phi) * t_exact, c = std::cos(phi), sn = std::sin(phi);
  Eigen::Vector4d grad(-c, sn, 0, 0), f_minus(speed * c, -speed * sn, kG * sn * c, -kG * sn * sn),
      jump(0, 0, -kG * sn * c, -kG * c * c);
  const Eigen::MatrixXd xi_exact = Eigen::MatrixXd::Identity(4, 4) + jump * grad.transpose() / grad.dot(f_minus);
  const double error = (off.xi.Dense() - xi_exact).cwiseAbs().maxCoeff();
  std::printf("[ box box ] edge across the rim to its end: t − t_exact = %+.2e s, max |Ξ − Ξ_exact| = %.2e "
              "(max |Ξ_exact − I| = %.2f)\n",
              off.time - t_exact, error, (xi_exact - Eigen::MatrixXd::Identity(4, 4)).cwiseAbs().maxCoeff());
  EXPECT_NEAR(off.time, t_exact, 1e-12);
  EXPECT_LT(error, 1e-11) << "\n" << off.xi.Dense() << "\nexact\n" << xi_exact;
}

// The box lying flat, turned 30° about z, slides at v₀ towards the rim: its corners cross the rim
// one by one (the front one at x₀/v₀, the next Δx behind it Δx/v₀ later), each handing over to its
// edge along the box's bottom face — the normals coincide (the face's), so these are feature
// events, and with the box translating neither feature bends the path: Ξ = I.
TEST_F(BoxBoxFeatures, FlatCornersHandOverToTheirEdgesAtTheRim) {
  ModelPtr m = LoadModelFromString(TiltedBoxOnTable("0 0 30"));
  Model model(m.get());
  const std::vector<Eigen::Vector3d> v = VerticesOf(model);
  std::vector<double> xs;  // the bottom corners' x, front first
  for (int i = 0; i < 8; i++) {
    if (v[i].z() < 0) xs.push_back(v[i].x());
  }
  std::sort(xs.rbegin(), xs.rend());
  const double x0 = 0.1, v0 = 0.5;
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(PlanarState(0.5 - x0 - xs[0], 0.04, v0, 0));
  ASSERT_EQ(s.mode.contacts.size(), 4u);
  for (const ContactId& id : s.mode.contacts) EXPECT_STREQ(FeatureName(id.feature), "vertex-face");
  const double t_second = (x0 + xs[0] - xs[1]) / v0;
  const std::vector<RigidEvent> events = sim.Advance(s, t_second + 1e-3);
  ASSERT_EQ(events.size(), 2u);
  const double t_exact[2] = {x0 / v0, t_second};
  for (int k = 0; k < 2; k++) {
    const RigidEvent& e = events[k];
    const double error = (e.xi.Dense() - Eigen::MatrixXd::Identity(4, 4)).cwiseAbs().maxCoeff();
    std::printf("[ box box ] flat corner %d onto its edge: t − t_exact = %+.2e s, max |Ξ − I| = %.2e\n", k,
                e.time - t_exact[k], error);
    EXPECT_EQ(e.kind, EventKind::kFeature) << k;
    EXPECT_STREQ(FeatureName(e.feature_before), "vertex-face");
    EXPECT_STREQ(FeatureName(e.feature_after), "edge-edge");
    EXPECT_EQ(e.mode_after.contacts.size(), 4u);
    EXPECT_NEAR(e.time, t_exact[k], 1e-12) << k;
    EXPECT_LT(error, 1e-12) << k;
  }
}

}  // namespace
}  // namespace saltation::testing

