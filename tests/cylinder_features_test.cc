// A ball on a cylinder (issue 14 items 2–3, theory.md §9 item 7): the contact's feature — the
// lateral surface (`cyl-side`), a flat face (`cyl-face`), the rim circle (`cyl-rim`) — is part of the
// rigid mode and its change is a located guard, as for a ball on a box (edge_test.cc).
//
// Two planar scenes (slide joints x, z; frictionless ball of radius r, mass 1), each with the
// table-edge closed forms of edge_test.cc: the ball moves in the plane through the cylinder's axis,
// so the rim point it meets stays fixed and the rim acts as an edge.
//  - kDrumTop: a standing drum, the ball sliding on its flat top face towards the rim (face → rim);
//  - kLyingLog: a lying cylinder, the ball sliding along its top line towards the flat end
//    (side → rim).
// Fast (v₀² > g r) it leaves at the rim, t = x₀/v₀, Ξ[v_z, x] = −g/v₀; slow it switches onto the
// rim at x₀/v₀ (Ξ[v_z, x] = −v₀/r) and leaves where λ = m(g cos θ − v²/r) vanishes,
// cos θ* = (v₀²/(g r) + 2)/3, t* = x₀/v₀ + ∫₀^θ* r dθ/v(θ), Ξ = I.
// Before the features (798f624) the J̇v stencil looked 2·jdot_step·|v| past the rim and no event
// marked the change.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "arc_closed_forms.h"
#include "ball_over_edge_checks.h"
#include "feature_guard_fd.h"
#include "test_util.h"

#include "saltation/contact_features.h"
#include "saltation/event_json.h"

namespace saltation::testing {
namespace {

constexpr double kG = kGravity, kR = kBallRadius;

// the top face at z = 0, its rim through (0, 0, 0) on the x axis
const char* kDrumTop = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="drum" type="cylinder" pos="-0.5 0 -0.2" size="0.5 0.2" condim="1"/>
    <body name="puck">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="puck" type="sphere" size="0.04" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

// the axis along +x (local z), its top line at z = 0, the flat end (local +h) at x = 0
const char* kLyingLog = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="log" type="cylinder" pos="-0.3 0 -0.1" size="0.1 0.3" euler="0 90 0" condim="1"/>
    <body name="puck">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="puck" type="sphere" size="0.04" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

const BallOverEdge kScenes[2] = {{kDrumTop, "cyl-face", "cyl-rim", "cylinder rim"},
                                  {kLyingLog, "cyl-side", "cyl-rim", "cylinder rim"}};

class CylinderFeatures : public MujocoTest {};

TEST_F(CylinderFeatures, FastBallLeavesExactlyAtTheRim) {
  for (const BallOverEdge& scene : kScenes)
    for (double v0 : {1.0, 3.0}) ExpectFastBallLeavesAtTheEdge(scene, v0);
}

TEST_F(CylinderFeatures, SlowBallSwitchesOntoTheRimAndLeavesWhereTheForceVanishes) {
  for (const BallOverEdge& scene : kScenes)
    for (double v0 : {0.2, 0.45}) ExpectSlowBallRollsRoundAndLeaves(scene, v0);
}

// The bias of a face or side contact 1e-5 m before the rim at 3 m/s is its own (none): the stencil
// does not look past the rim (it reaches 2·jdot_step·|v| ahead).
TEST_F(CylinderFeatures, ContactNearTheRimFeelsNoCurvature) {
  for (const BallOverEdge& scene : kScenes) {
    ModelPtr m = LoadModelFromString(scene.xml);
    Model model(m.get());
    Data data(model);
    State x;
    x.qpos = Eigen::Vector2d(-1e-5, kR);
    x.qvel = Eigen::Vector2d(3, 0);
    x.act.resize(0);
    RigidSimulator sim(model);
    const HybridState s = sim.Initialize(x);
    ASSERT_EQ(s.mode.contacts.size(), 1u);
    EXPECT_STREQ(FeatureName(s.mode.contacts[0].feature), scene.before);
    const ModeDynamics dyn = EvaluateMode(model, data, x, s.mode);
    EXPECT_NEAR(dyn.normal_force(0), kG, 1e-9) << scene.before;
    EXPECT_NEAR(dyn.qacc(1), 0, 1e-9) << scene.before;
  }
}

// The engine hook on MuJoCo's own (soft) simulation of the fast ball over the drum's rim: its
// liftoff is located at the rim, where λ_n jumps, and its Ξ is the feature change's.
TEST_F(CylinderFeatures, HookReleasesAtTheRimWithTheFeatureChangesXi) {
  for (double v0 : {1.0, 2.0}) ExpectHookReleasesAtTheEdge(kScenes[0], v0);
}

const char* kFreeBallAndDrum = R"(
<mujoco>
  <worldbody>
    <body name="drum" pos="0.1 0.2 0.3" euler="20 -30 40">
      <freejoint/>
      <geom name="drum" type="cylinder" size="0.3 0.2" margin="0.01" gap="0.002"/>
    </body>
    <body name="ball">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.05" margin="0.003"/>
    </body>
  </worldbody>
</mujoco>)";

// the distance of the ball (centre c, drum frame) to `feature`'s surface extended (theory.md §9 item 7)
double FeatureDistance(const std::string& name, const Eigen::Vector3d& c, double radius, double half, double r) {
  const double rho = std::hypot(c(0), c(1));
  if (name == "cyl-side") return rho - radius - r;
  if (name == "cyl-face") return std::abs(c(2)) - half - r;  // the face on the centre's side
  return std::hypot(rho - radius, std::abs(c(2)) - half) - r;
}

// FeaturePoint is MuJoCo's sphere–cylinder point inside each region (side, both faces, both rims) of
// a tilted drum, each region's guards are positive inside it, FeatureGuardGradient is the guard's
// finite-difference gradient, and the bias J̇v of the held feature is the second derivative of the
// centre's distance to the feature extended along q ⊕ s·v (fourth-order, step 2e-4 in s). A centre
// inside the drum has no feature. Random poses and velocities.
TEST_F(CylinderFeatures, FeaturePointGuardsAndBiasAgainstMujocoAndTheirTwins) {
  ModelPtr m = LoadModelFromString(kFreeBallAndDrum);
  Model model(m.get());
  Data data(model);
  mjData* d = data.main();
  const double radius = 0.3, half = 0.2, r = 0.05;
  RandomPoses poses(14);
  std::map<std::string, int> seen;
  double worst_bias = 0, worst_grad = 0, worst_point = 0;
  int inside = 0;
  for (int sample = 0; sample < 600; sample++) {
    Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
    q.segment<4>(3) = poses.Orientation();
    mju_copy(d->qpos, q.data(), m->nq);
    mj_kinematics(m.get(), d);
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->geom_xmat);
    // the centre within the margins of the surface: a random local direction, placed at a distance
    // of −0.02…0.06 from the drum (or just inside it)
    Eigen::Vector3d local((radius + 0.1) * poses.Unit(), (radius + 0.1) * poses.Unit(), (half + 0.1) * poses.Unit());
    q.segment<3>(7) = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos) + R * local;
    EvaluatePosition(model, d, q.data());
    std::vector<ContactPoint> points;
    ListContacts(model, d, points);
    if (points.size() != 1) continue;
    const ContactPoint& point = points[0];
    ContactId id = point.id;
    ASSERT_TRUE(HasFeatures(m.get(), id));
    id.feature = FeatureAt(m.get(), d, id);
    const double rho = std::hypot(local(0), local(1));
    if (rho <= radius && std::abs(local(2)) <= half) {
      EXPECT_EQ(id.feature, -1) << "a centre inside has no feature";
      inside++;
      continue;
    }
    const std::string name = FeatureName(id.feature);
    const std::string expected = rho <= radius ? "cyl-face" : std::abs(local(2)) <= half ? "cyl-side" : "cyl-rim";
    ASSERT_EQ(name, expected) << local.transpose();
    seen[name + (name == "cyl-side" ? "" : local(2) > 0 ? "+" : "−")]++;
    const ContactPoint p = FeaturePoint(model, d, id);
    ExpectSamePoint(p, point, name);
    worst_point = std::max({worst_point, (p.pos - point.pos).norm(), (p.frame.row(0) - point.frame.row(0)).norm(),
                            std::abs(p.gap - point.gap)});
    EXPECT_EQ(p.condim, point.condim);
    double margin, gap;
    int condim;
    PairContactParams(m.get(), id.geom1, id.geom2, &margin, &gap, &condim);
    EXPECT_NEAR(p.gap, FeatureDistance(name, local, radius, half, r) - margin, 1e-12) << name;
    const FeatureGuardSet guards = FeatureGuards(m.get(), d, id);
    EXPECT_EQ(guards.count, name == "cyl-face" ? 1 : 2) << name;
    for (int j = 0; j < guards.count; j++) EXPECT_GT(guards.guard[j].value, 0) << name << " guard " << j;
    worst_grad = std::max(worst_grad, ExpectGuardGradientsMatchTheirTwins(model, d, id, q, guards, 1e-9, name));
    // the bias of the held feature against the distance's second derivative along q ⊕ s·v
    State x;
    x.qpos = q;
    x.qvel = Eigen::VectorXd::Zero(m->nv);
    for (int k = 0; k < m->nv; k++) x.qvel(k) = poses.Unit();
    x.act.resize(0);
    const Eigen::VectorXd bias = ConstraintBias(model, data, x, {id});
    ASSERT_EQ(bias.size(), 3);  // condim 3: the normal row first
    auto distance = [&](double s) {
      Eigen::VectorXd y = x.qpos;
      mj_integratePos(m.get(), y.data(), x.qvel.data(), s);
      mju_copy(d->qpos, y.data(), m->nq);
      mj_kinematics(m.get(), d);
      const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Rs(d->geom_xmat);
      const Eigen::Vector3d c = Rs.transpose() * (Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3) -
                                                  Eigen::Map<const Eigen::Vector3d>(d->geom_xpos));
      return FeatureDistance(name, c, radius, half, r);
    };
    // Richardson of the five-point stencils at hs and hs/2: their truncation (hs·|v|/ρ)⁴, ρ the
    // centre's distance to the feature (a rim's down to 0.02 m here, |v| up to 3 m/s), left 1e-7 at hs
    // alone; what remains is the round-off of both stencils, ~1e-16·|x|/(1e-4)²
    auto second = [&](double hs) {
      return (-distance(2 * hs) + 16 * distance(hs) - 30 * distance(0) + 16 * distance(-hs) - distance(-2 * hs)) /
             (12 * hs * hs);
    };
    const double hs = 2e-4;
    const double twin = (16 * second(hs / 2) - second(hs)) / 15;
    worst_bias = std::max(worst_bias, std::abs(bias(0) - twin) / (1 + std::abs(twin)));
    EXPECT_NEAR(bias(0), twin, 1e-7 * (1 + std::abs(twin))) << name;  // measured 4.4e-8
  }
  std::printf("[ ball on drum ] regions seen:");
  for (const auto& [name, n] : seen) std::printf(" %s %d", name.c_str(), n);
  std::printf(", inside %d; worst point error %.1e, guard gradient error %.1e, bias error %.1e (relative to "
              "1 + |J̇v|)\n",
              inside, worst_point, worst_grad, worst_bias);
  for (const char* name : {"cyl-side", "cyl-face+", "cyl-face−", "cyl-rim+", "cyl-rim−"}) EXPECT_GE(seen[name], 5) << name;
  EXPECT_GE(inside, 3);
}

}  // namespace
}  // namespace saltation::testing
