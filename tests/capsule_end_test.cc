// Leaving a capsule over its end (issue 14 item 2, theory.md §9): the contact's feature — the
// capsule's cylinder or its cap — is part of the rigid mode and its change is a located guard.
//
// A fixed horizontal rail (a capsule of radius R along x, its end at x = 0) carries a frictionless
// rider that slides along it at v₀: a ball (radius r), or a log (a capsule of radius r crossing the
// rail at right angles, its axis along y). On the rail's cylinder the rider's centre moves straight
// at height ρ = R + r (λ = m g). Past the end the distance is to the end point (the ball, the log's
// line over the rail's cap) or from the log's own end to the rail's line (the log sliding along its
// axis over the rail): the centre circles at radius ρ, and from there it is the edge of
// edge_test.cc with r replaced by ρ:
//  - fast (v₀² > g ρ): it leaves at the end, t = x₀/v₀, Ξ = I but Ξ[v_z, x] = −g/v₀ (F jumps by −g
//    in v_z; the guard is the feature's, ∇h = −e_x);
//  - slow (v₀² < g ρ): the feature changes at t = x₀/v₀ with Ξ[v_z, x] = −v₀/ρ (the centripetal
//    jump), and it leaves at cos θ* = (v₀²/(g ρ) + 2)/3, t* = x₀/v₀ + ∫₀^θ* ρ dθ / v(θ),
//    v² = v₀² + 2 g ρ (1 − cos θ), with Ξ = I (λ reaches zero continuously).
// Without the capsule's features the reference has no event at the end: the fast ball leaves late,
// once its force turns negative on MuJoCo's point past the end, with a Ξ that misses −g/v₀.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "arc_closed_forms.h"
#include "feature_guard_fd.h"
#include "test_util.h"

#include "segment_features.h"
#include "saltation/contact_features.h"
#include "saltation/event_json.h"

namespace saltation::testing {
namespace {

constexpr double kG = 9.81;

// the rail: R = 0.03, x ∈ [−0.6, 0]; a ball of r = 0.04 with slide joints x, z
const char* kBallOnRail = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="rail" type="capsule" fromto="-0.6 0 0  0 0 0" size="0.03" condim="1"/>
    <body name="ball">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="ball" type="sphere" size="0.04" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

// the same rail; a log of r = 0.025, half length 0.2 along y, sliding along the rail (x) or along
// its own axis (y: the body sits over the rail's middle)
std::string LogOnRail(const char* slide_axis, const char* pos) {
  return std::string(R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="rail" type="capsule" fromto="-0.6 0 0  0 0 0" size="0.03" condim="1"/>
    <body name="log" pos=")") + pos + R"(">
      <joint name="slide" type="slide" axis=")" + slide_axis + R"("/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="log" type="capsule" fromto="0 -0.2 0  0 0.2 0" size="0.025" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";
}


class CapsuleEnd : public MujocoTest {
 protected:
  // the rider starts `x0` before the end at height rho, sliding at v0 (qpos(0) = start)
  std::vector<RigidEvent> Run(const Model& model, double start, double v0, double rho, double t_end) {
    RigidSimulator sim(model);
    State x;
    x.qpos = Eigen::Vector2d(start, rho);
    x.qvel = Eigen::Vector2d(v0, 0);
    x.act.resize(0);
    HybridState s = sim.Initialize(x);
    EXPECT_EQ(s.mode.contacts.size(), 1u);
    if (s.mode.contacts.size() == 1) {
      EXPECT_TRUE(HasFeatures(model.mj(), s.mode.contacts[0]));
      EXPECT_STREQ(FeatureName(s.mode.contacts[0].feature), "cylinder");
    }
    return sim.Advance(s, t_end);
  }

  // the closed forms above for a rider x0 before the end at v0 (the slide coordinate's value at
  // the end: end_q), printed under `name`
  void ExpectClosedForm(const Model& model, const char* name, double start, double end_q, double v0, double rho) {
    const double x0 = end_q - start;
    const std::vector<RigidEvent> events = Run(model, start, v0, rho, x0 / v0 + 0.3);
    const bool fast = v0 * v0 > kG * rho;
    ASSERT_EQ(events.size(), fast ? 1u : 2u) << name << " v0 " << v0;
    const RigidEvent& on = events[0];
    EXPECT_STREQ(FeatureName(on.feature_before), "cylinder") << name;
    EXPECT_STREQ(FeatureName(on.feature_after), "cap") << name;
    const Eigen::MatrixXd on_truth = XiWithEntry(fast ? -kG / v0 : -v0 / rho);
    const double on_error = (on.xi.Dense() - on_truth).cwiseAbs().maxCoeff();
    EXPECT_EQ(on.kind, fast ? EventKind::kLiftoff : EventKind::kFeature) << name << " v0 " << v0;
    EXPECT_NEAR(on.time, x0 / v0, 1e-9) << name << " v0 " << v0;
    EXPECT_NEAR(on.x_minus.qpos(0), end_q, 1e-9) << name << " v0 " << v0;
    EXPECT_LT(on_error, 1e-9) << name << " v0 " << v0 << "\n" << on.xi.Dense();
    if (fast) {
      std::printf("[ capsule end ] %s fast v0 %.2f: leaves at t − t_exact = %+.2e s, max |Ξ − Ξ_exact| = %.2e\n",
                  name, v0, on.time - x0 / v0, on_error);
      EXPECT_TRUE(on.mode_after.contacts.empty());
      return;
    }
    const RigidEvent& off = events[1];
    EXPECT_EQ(off.kind, EventKind::kLiftoff);
    const double c = (v0 * v0 / (kG * rho) + 2) / 3;
    const double theta = std::acos(c);
    const double t_exact = x0 / v0 + TimeRoundAnArc(v0, rho, kG, theta);
    const double off_error = (off.xi.Dense() - Eigen::MatrixXd::Identity(4, 4)).cwiseAbs().maxCoeff();
    std::printf("[ capsule end ] %s slow v0 %.2f: cap at t − t_exact = %+.2e s, max |Ξ − Ξ_exact| = %.2e; leaves "
                "at θ* = %.4f: t − t_exact = %+.2e s, max |Ξ − I| = %.2e\n",
                name, v0, on.time - x0 / v0, on_error, theta, off.time - t_exact, off_error);
    EXPECT_NEAR(off.time, t_exact, 1e-9) << name << " v0 " << v0;
    EXPECT_NEAR(off.x_minus.qpos(0), end_q + rho * std::sin(theta), 1e-9) << name;
    EXPECT_NEAR(off.x_minus.qpos(1), rho * c, 1e-9) << name;
    EXPECT_LT(off_error, 1e-9) << name << " v0 " << v0 << "\n" << off.xi.Dense();
  }
};

TEST_F(CapsuleEnd, BallLeavesTheRailOverItsCap) {
  ModelPtr m = LoadModelFromString(kBallOnRail);
  Model model(m.get());
  const double rho = 0.07;  // g ρ = 0.687: 1 and 3 m/s leave at the end, 0.3 and 0.7 circle the cap
  for (double v0 : {1.0, 3.0, 0.3, 0.7}) ExpectClosedForm(model, "ball", -0.1, 0, v0, rho);
}

TEST_F(CapsuleEnd, LogLeavesTheRailOverTheRailsCap) {
  ModelPtr m = LoadModelFromString(LogOnRail("1 0 0", "0 0 0"));
  Model model(m.get());
  const double rho = 0.055;  // g ρ = 0.540
  for (double v0 : {2.0, 0.4}) ExpectClosedForm(model, "log across", -0.08, 0, v0, rho);
}

TEST_F(CapsuleEnd, LogSlidesOffTheRailOverItsOwnCap) {
  ModelPtr m = LoadModelFromString(LogOnRail("0 1 0", "-0.3 0 0"));
  Model model(m.get());
  const double rho = 0.055;
  // the log's end (y = −0.2 in its frame) passes over the rail's line when the slide reads 0.2
  for (double v0 : {2.0, 0.4}) ExpectClosedForm(model, "log along", 0.2 - 0.06, 0.2, v0, rho);
}

// FeaturePoint is MuJoCo's sphere–capsule point and each of two capsules' own points in every
// region, each region's guards are positive inside it, for a sphere some guard of every other
// feature of the pair is negative (the regions tile the configurations; two capsules' own points
// coexist, each in its own region), and FeatureGuardGradient is the guard's finite-difference
// gradient (the interior's angle guard among them). Random poses of two free bodies (a margin of 1 m: MuJoCo reports every pose).
TEST_F(CapsuleEnd, FeaturePointIsMujocosPointAndGuardGradientItsDerivative) {
  for (const char* first : {R"(type="sphere" size="0.05")", R"(type="capsule" size="0.04 0.15")"}) {
    ModelPtr m = LoadModelFromString(std::string(R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="a"><freejoint/><geom name="a" )") + first + R"( margin="1" gap="0.01"/></body>
    <body name="b"><freejoint/><geom name="b" type="capsule" size="0.03 0.2" margin="0.002"/></body>
  </worldbody>
</mujoco>)");
    Model model(m.get());
    Data data(model);
    mjData* d = data.main();
    RandomPoses poses(7);
    std::map<std::string, int> seen;
    const bool sphere = m->geom_type[0] == mjGEOM_SPHERE;
    for (int sample = 0; sample < 300; sample++) {
      Eigen::VectorXd q(14);
      q.segment<3>(0) = poses.Position(0.3);
      q.segment<4>(3) = poses.Orientation();
      q.segment<3>(7) = Eigen::Vector3d::Zero();
      q.segment<4>(10) = poses.Orientation();
      EvaluatePosition(model, d, q.data());
      std::vector<ContactPoint> points;
      ListContacts(model, d, points);
      // sphere–capsule: MuJoCo's one point (none: apart by more than 1 m); capsule–capsule: each of
      // our own points (own_points.h), one region each
      if (sphere && points.size() != 1u) continue;
      for (const ContactPoint& point : points) {
      ContactId id = point.id;
      ASSERT_TRUE(HasFeatures(m.get(), id));
      id.feature = FeatureAt(m.get(), d, id);
      if (id.feature < 0) continue;  // the segments touch: no normal
      const std::string name = FeatureName(id.feature);
      seen[name]++;
      const ContactPoint p = FeaturePoint(model, d, id);
      ExpectSamePoint(p, point, name);
      const FeatureGuardSet guards = FeatureGuards(m.get(), d, id);
      // a free segment bounds both ways, a clamped one once (two capsules' end against the other's
      // interior: the larger of that and the angle's term, one guard); the sphere has no guard; two
      // capsules' interior adds its angle guard
      int expected = 0;
      int sigmas[2];
      for (int side = 0; side < 2; side++) sigmas[side] = ((id.feature - kSegmentFeatureBase) / (side ? 3 : 1)) % 3 - 1;
      for (int side = sphere ? 1 : 0; side < 2; side++) expected += sigmas[side] ? 1 : 2;
      if (!sphere && sigmas[0] == 0 && sigmas[1] == 0) expected++;
      EXPECT_EQ(guards.count, expected) << name;
      // inside its region: MuJoCo's point (the pair's nearest of our own points for two capsules;
      // another own point may lie outside the region its code names — an end whose foot's common
      // perpendicular falls inside its own segment — where a nearer point of the pair touches first)
      bool nearest = true;
      for (const ContactPoint& other : points) nearest = nearest && other.gap >= point.gap;
      if (nearest) {
        for (int j = 0; j < guards.count; j++) EXPECT_GT(guards.guard[j].value, 0) << name << " guard " << j;
      }
      // the gradients: central differences of each guard on the tangent configuration
      ExpectGuardGradientsMatchTheirTwins(model, d, id, q, guards, 1e-8, name);
      if (!sphere) continue;  // two capsules' own points coexist: their regions overlap by design
      for (int other = kSegmentFeatureBase; other < kSegmentFeatureBase + 9; other++) {
        if (other == id.feature || (sphere && (other - kSegmentFeatureBase) % 3 != 1)) continue;
        ContactId o = id;
        o.feature = other;
        const FeatureGuardSet og = FeatureGuards(m.get(), d, o);
        double lowest = 1;
        for (int j = 0; j < og.count; j++) lowest = std::min(lowest, og.guard[j].value);
        EXPECT_LT(lowest, 0) << name << " at " << id.feature << ": feature " << other << " holds too";
      }
      }
    }
    std::printf("[ capsule end ] %s–capsule regions seen:", sphere ? "sphere" : "capsule");
    for (const auto& [name, n] : seen) std::printf(" %s %d", name.c_str(), n);
    std::printf("\n");
    EXPECT_GE(seen["cylinder"], 5);
    EXPECT_GE(seen["cap"], 5);
    if (!sphere) EXPECT_GE(seen["caps"], 5);
  }
}

}  // namespace
}  // namespace saltation::testing
