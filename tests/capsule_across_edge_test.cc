// A capsule's interior across a box edge (issue 14 items 2–3, theory.md §3, §9): the segment's point
// nearest to a box edge or vertex is held as the feature `cylinder-edge` / `cylinder-vertex`, and
// its changes — the foot reaching the capsule's end (→ `cap-edge`), an end's foot leaving it
// (`cap-edge` → `cylinder-edge`), the foot reaching the edge's end (→ `cylinder-vertex`) — are
// located guards, as for a ball on a box (edge_test.cc).
//
// Closed forms (frictionless, mass m = 1, radius r, half length h, gravity g):
//  1. A rod tipping over a corner: a horizontal capsule across a box's top edge (x = 0, z = 0, the
//     box at x < 0), its centre of mass guided on the vertical x = d beyond the edge (slide z, hinge
//     φ about y at the centre; φ > 0 lowers the +x end). Touching the edge means the axis passes at
//     r from it: z(φ) = (r − d sin φ)/cos φ, z'(φ) = (r sin φ − d)/cos² φ. Energy gives
//     φ̇² = 2(E − m g z)/(m z'² + I), and the edge's normal force (row J = (cos φ, d cos φ − z sin φ),
//     bias J̇q̇ = −2 ż φ̇ sin φ − r φ̇²) is λ = (g cos φ + r φ̇² + 2 z' φ̇² sin φ)/(cos² φ/m + J_φ²/I).
//     It leaves where λ = 0 (φ* by bisection), at t* = ∫ dφ/φ̇ (Simpson), continuously: Ξ = I.
//  2. A tilted log sliding off an edge (slide x, slide z: it translates, axis e = (cos α, −sin α),
//     sliding on its lower end): on the face on that end (`cap-face`) until the end's centre passes the
//     edge at t₁ = x₀/v₀ (→ `cap-edge`, Ξ[v_z, x] = −v₀/r); the end circles the edge,
//     v² = v₀² + 2 g r (1 − cos θ), until the axis is perpendicular to the radius at θ = α (the
//     segment's foot leaves the end: → `cylinder-edge`) at t₂ = t₁ + ∫₀^α r dθ/v; there the
//     centripetal pull v_α²/r along n = (sin α, cos α) stops: Ξ = I + (v_α/r) n eᵀ (velocity rows,
//     position columns). It slides down the edge as on an incline, s = v_α τ + ½ g sin α τ², until
//     the foot reaches the upper end after s = 2h (→ `cap-edge` at −h, which pulls at once at
//     v₃² > g r cos α: a liftoff), Ξ = I − (g cos α/v₃) n eᵀ.
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

constexpr double kG = 9.81;

class CapsuleAcrossEdge : public MujocoTest {};

// ---- 1. the rod tipping over the corner ----

constexpr double kRodR = 0.02, kRodH = 0.2, kRodD = 0.05;

const char* kRodOnCorner = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="block" type="box" pos="-0.5 0 -0.2" size="0.5 0.4 0.2" condim="1"/>
    <body name="rod" pos="0.05 0 0">
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="pitch" type="hinge" axis="0 1 0"/>
      <geom name="rod" type="capsule" fromto="-0.2 0 0  0.2 0 0" size="0.02" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)";

struct TippingRod {
  double inertia, energy;
  double Z(double phi) const { return (kRodR - kRodD * std::sin(phi)) / std::cos(phi); }
  double Slope(double phi) const { return (kRodR * std::sin(phi) - kRodD) / std::pow(std::cos(phi), 2); }
  double Omega2(double phi) const { return 2 * (energy - kG * Z(phi)) / (std::pow(Slope(phi), 2) + inertia); }
  double Lambda(double phi) const {
    const double w2 = Omega2(phi), jphi = kRodD * std::cos(phi) - Z(phi) * std::sin(phi);
    return (kG * std::cos(phi) + kRodR * w2 + 2 * Slope(phi) * w2 * std::sin(phi)) /
           (std::pow(std::cos(phi), 2) + jphi * jphi / inertia);
  }
  double Time(double phi0, double phi1) const {  // ∫ dφ/φ̇ by Simpson's rule
    const int n = 200000;
    const double step = (phi1 - phi0) / n;
    auto f = [&](double p) { return 1 / std::sqrt(Omega2(p)); };
    double sum = f(phi0) + f(phi1);
    for (int i = 1; i < n; i++) sum += (i % 2 ? 4 : 2) * f(phi0 + i * step);
    return sum * step / 3;
  }
};

TEST_F(CapsuleAcrossEdge, RodTipsOverTheCornerAndLeavesWhereTheForceVanishes) {
  ModelPtr m = LoadModelFromString(kRodOnCorner);
  Model model(m.get());
  const double phi0 = 0.05, omega0 = 2;
  TippingRod rod{m->body_inertia[3 * 1 + 1], 0};
  State x;
  x.qpos = Eigen::Vector2d(rod.Z(phi0), phi0);
  x.qvel = Eigen::Vector2d(rod.Slope(phi0) * omega0, omega0);
  x.act.resize(0);
  rod.energy = 0.5 * (x.qvel(0) * x.qvel(0) + rod.inertia * omega0 * omega0) + kG * x.qpos(0);
  // the release: λ(φ*) = 0 (bisection on the closed form)
  double lo = phi0, hi = 1.4;
  ASSERT_GT(rod.Lambda(lo), 0);
  ASSERT_LT(rod.Lambda(hi), 0);
  for (int i = 0; i < 200; i++) (rod.Lambda(0.5 * (lo + hi)) > 0 ? lo : hi) = 0.5 * (lo + hi);
  const double phi_star = 0.5 * (lo + hi), t_star = rod.Time(phi0, phi_star);
  const double rate_exact = (rod.Lambda(phi_star + 1e-6) - rod.Lambda(phi_star - 1e-6)) / 2e-6 *
                            std::sqrt(rod.Omega2(phi_star));  // dλ/dt

  RigidSimulator sim(model);
  HybridState s = sim.Initialize(x);
  ASSERT_EQ(s.mode.contacts.size(), 1u);
  EXPECT_STREQ(FeatureName(s.mode.contacts[0].feature), "cylinder-edge");
  const std::vector<RigidEvent> events = sim.Advance(s, t_star + 0.005);
  ASSERT_GE(events.size(), 1u);
  const RigidEvent& off = events[0];
  EXPECT_EQ(off.kind, EventKind::kLiftoff);
  EXPECT_STREQ(FeatureName(off.feature), "cylinder-edge");
  const double xi_error = (off.xi.Dense() - Eigen::MatrixXd::Identity(4, 4)).cwiseAbs().maxCoeff();
  std::printf("[ rod on corner ] leaves at φ* = %.6f rad: t − t_exact = %+.2e s, φ − φ* = %+.2e, z − z* = %+.2e, "
              "max |Ξ − I| = %.2e, dλ/dt %.9g (closed form %.9g)\n",
              phi_star, off.time - t_star, off.x_minus.qpos(1) - phi_star, off.x_minus.qpos(0) - rod.Z(phi_star),
              xi_error, off.xi.transversality, rate_exact);
  EXPECT_NEAR(off.time, t_star, 1e-9);
  EXPECT_NEAR(off.x_minus.qpos(1), phi_star, 1e-9);
  EXPECT_NEAR(off.x_minus.qpos(0), rod.Z(phi_star), 1e-9);
  EXPECT_LT(xi_error, 1e-9) << off.xi.Dense();  // measured 2.5e-13
  EXPECT_NEAR(off.xi.transversality, rate_exact, 3e-7 * std::abs(rate_exact));  // measured 7.8e-8 (the ∇λ by differences)
}

// ---- 2. the tilted log sliding off the edge ----

constexpr double kLogR = 0.04, kLogH = 0.15, kAlpha = 0.3;

std::string TiltedLog() {
  char xml[1200];
  std::snprintf(xml, sizeof(xml), R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="bench" type="box" pos="-0.8 0 -0.2" size="0.8 0.4 0.2" condim="1"/>
    <body name="log">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom name="log" type="capsule" fromto="%.17g 0 %.17g  0 0 0" size="%g" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)",
                -2 * kLogH * std::cos(kAlpha), 2 * kLogH * std::sin(kAlpha), kLogR);
  return xml;
}

// I + scale · n eᵀ in the velocity rows and position columns of (x, z, v_x, v_z)
Eigen::MatrixXd XiOfRank1(double scale) {
  const Eigen::Vector2d n(std::sin(kAlpha), std::cos(kAlpha)), e(std::cos(kAlpha), -std::sin(kAlpha));
  Eigen::MatrixXd xi = Eigen::MatrixXd::Identity(4, 4);
  xi.block<2, 2>(2, 0) += scale * n * e.transpose();
  return xi;
}

TEST_F(CapsuleAcrossEdge, TiltedLogRollsOverTheEdgeOntoItsCylinderAndLeavesOverItsUpperEnd) {
  ModelPtr m = LoadModelFromString(TiltedLog());
  Model model(m.get());
  const double x0 = 0.05, v0 = 0.3;
  ASSERT_LT((v0 * v0 / (kG * kLogR) + 2) / 3, std::cos(kAlpha)) << "the end must not leave before θ = α";
  State x;
  x.qpos = Eigen::Vector2d(-x0, kLogR);
  x.qvel = Eigen::Vector2d(v0, 0);
  x.act.resize(0);
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(x);
  ASSERT_EQ(s.mode.contacts.size(), 1u);
  EXPECT_STREQ(FeatureName(s.mode.contacts[0].feature), "cap-face");
  const double t1 = x0 / v0;
  const double t2 = t1 + TimeRoundAnArc(v0, kLogR, kG, kAlpha);
  const double v_alpha = std::sqrt(v0 * v0 + 2 * kG * kLogR * (1 - std::cos(kAlpha)));
  const double a = kG * std::sin(kAlpha);
  const double tau = (-v_alpha + std::sqrt(v_alpha * v_alpha + 4 * a * kLogH)) / a;
  const double t3 = t2 + tau, v3 = v_alpha + a * tau;
  ASSERT_GT(v3 * v3, kG * kLogR * std::cos(kAlpha)) << "the upper end must pull at once";
  const std::vector<RigidEvent> events = sim.Advance(s, t3 + 0.01);
  ASSERT_EQ(events.size(), 3u);

  struct Expected {
    EventKind kind;
    const char *before, *after;
    double time;
    Eigen::MatrixXd xi;
  };
  const Expected expected[3] = {
      {EventKind::kFeature, "cap-face", "cap-edge", t1, XiWithEntry(-v0 / kLogR)},
      {EventKind::kFeature, "cap-edge", "cylinder-edge", t2, XiOfRank1(v_alpha / kLogR)},
      {EventKind::kLiftoff, "cylinder-edge", "cap-edge", t3, XiOfRank1(-kG * std::cos(kAlpha) / v3)},
  };
  for (int i = 0; i < 3; i++) {
    const RigidEvent& ev = events[i];
    const double xi_error = (ev.xi.Dense() - expected[i].xi).cwiseAbs().maxCoeff();
    std::printf("[ tilted log ] %s → %s (%s): t − t_exact = %+.2e s, max |Ξ − Ξ_exact| = %.2e\n",
                FeatureName(ev.feature_before), FeatureName(ev.feature_after), EventKindName(ev.kind),
                ev.time - expected[i].time, xi_error);
    EXPECT_EQ(ev.kind, expected[i].kind) << "event " << i;
    EXPECT_STREQ(FeatureName(ev.feature_before), expected[i].before) << "event " << i;
    EXPECT_STREQ(FeatureName(ev.feature_after), expected[i].after) << "event " << i;
    EXPECT_NEAR(ev.time, expected[i].time, 1e-9) << "event " << i;
    EXPECT_LT(xi_error, 1e-8) << "event " << i << "\n" << ev.xi.Dense();  // measured ≤ 1.8e-9
  }
  // the end's centre where the axis turns perpendicular to the radius: r (sin α, cos α)
  EXPECT_NEAR(events[1].x_minus.qpos(0), kLogR * std::sin(kAlpha), 1e-9);
  EXPECT_NEAR(events[1].x_minus.qpos(1), kLogR * std::cos(kAlpha), 1e-9);
  EXPECT_TRUE(events[2].mode_after.contacts.empty());
  EXPECT_NE(EventToJson(model, events[1], 0.0).find("\"feature_before\":\"cap-edge\",\"feature_after\":\"cylinder-edge\""),
            std::string::npos);
}

// The bias of the log on its cylinder 1e-4 m before the foot reaches its upper end is the
// cylinder's (it slides along its own axis: no curvature, λ = m g cos α, acceleration g sin α
// along e) whether the mode holds the feature or resolves it at the state (the engine hook's
// modes): the stencil (±2·jdot_step·|v| = 2.6e-4 m at 1.3 m/s) does not look past the end, where
// the end's sphere would circle the edge.
TEST_F(CapsuleAcrossEdge, CylinderNearItsEndFeelsNoCurvature) {
  ModelPtr m = LoadModelFromString(TiltedLog());
  Model model(m.get());
  Data data(model);
  const Eigen::Vector2d n(std::sin(kAlpha), std::cos(kAlpha)), e(std::cos(kAlpha), -std::sin(kAlpha));
  const double v = 1.3, slid = 2 * kLogH - 1e-4;  // the lower end slid this far past the edge
  State x;
  x.qpos = kLogR * n + slid * e;  // the lower end's centre (the body's origin)
  x.qvel = v * e;
  x.act.resize(0);
  EvaluatePosition(model, data.main(), x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  ContactId id;
  for (const ContactPoint& p : points) {
    if (std::string(FeatureName(FeatureAt(m.get(), data.main(), p.id))) == "cylinder-edge") id = p.id;
  }
  ASSERT_GE(id.geom1, 0) << "the interior point on the edge";
  ASSERT_NEAR(FeaturePoint(model, data.main(), [&] { ContactId h = id; h.feature = FeatureAt(m.get(), data.main(), id); return h; }()).gap, 0, 1e-12);
  ContactId held = id;
  held.feature = FeatureAt(m.get(), data.main(), id);
  for (const ContactId& c : {held, id}) {
    const ModeDynamics dyn = EvaluateMode(model, data, x, Mode{{c}});
    EXPECT_NEAR(dyn.normal_force(0), kG * std::cos(kAlpha), 1e-9) << "feature " << c.feature;
    EXPECT_LT((dyn.qacc - kG * std::sin(kAlpha) * e).cwiseAbs().maxCoeff(), 1e-9) << "feature " << c.feature;
  }
}

// ---- 3. the new contacts' geometry, guards and bias on random poses ----

const char* kFreeLogAndCrate = R"(
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="log"><freejoint/><geom name="log" type="capsule" size="0.04 0.25" margin="1" gap="0.01" condim="1"/></body>
    <body name="crate" euler="20 -30 40"><freejoint/><geom name="crate" type="box" size="0.3 0.2 0.1" margin="0.002" condim="1"/></body>
  </worldbody>
</mujoco>)";

// the distance of the log's segment (centre c, unit axis a) to a box edge's line (point p, unit
// direction u) or to a vertex (u = 0), minus the radius: the held feature's signed distance
double LineDistance(const Eigen::Vector3d& c, const Eigen::Vector3d& a, const Eigen::Vector3d& p,
                    const Eigen::Vector3d& u) {
  if (u.isZero()) {
    const Eigen::Vector3d w = p - c;
    return (w - w.dot(a) * a).norm() - 0.04;
  }
  const Eigen::Vector3d n = a.cross(u);
  return std::abs((p - c).dot(n)) / n.norm() - 0.04;
}

// the box's point of a contact of the log (geom 0) on the crate (geom 1): midway point + half the
// distance along the normal (capsule → box)
double BoxDistanceOf(const mjModel* m, const ContactPoint& p) {
  double margin, gap;
  int condim;
  PairContactParams(m, 0, 1, &margin, &gap, &condim);
  return p.gap + margin;
}

Eigen::Vector3d BoxPointOf(const mjModel* m, const ContactPoint& p) {
  return p.pos + 0.5 * BoxDistanceOf(m, p) * p.frame.row(0).transpose();
}

// FeaturePoint is the pair's own interior point (capsule_box_points.cc) on an edge and at a
// vertex, each region's guards are positive inside it and FeatureGuardGradient is the guard's
// finite-difference gradient (the ends' new guard too: the segment's foot leaving the end); and
// the bias J̇v of the held interior feature is the second derivative of the segment's distance to
// the edge's line (or the vertex) along q ⊕ s·v, its finite-difference twin (fourth-order, step
// 2e-4 in s). Random poses and velocities of a free log about a free tilted crate.
TEST_F(CapsuleAcrossEdge, InteriorPointGuardsAndBiasAgainstTheirFiniteDifferenceTwins) {
  ModelPtr m = LoadModelFromString(kFreeLogAndCrate);
  Model model(m.get());
  Data data(model);
  mjData* d = data.main();
  RandomPoses poses(5);
  std::map<std::string, int> seen;
  double worst_bias = 0, worst_grad = 0;
  int reverse_checked = 0;
  for (int sample = 0; sample < 400; sample++) {
    Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
    q.segment<3>(0) = poses.Position(0.5);
    q.segment<4>(3) = poses.Orientation();
    EvaluatePosition(model, d, q.data());
    std::vector<ContactPoint> points;
    ListContacts(model, d, points);
    for (const ContactPoint& point : points) {
      EvaluatePosition(model, d, q.data());
      ContactId id = point.id;
      id.feature = FeatureAt(m.get(), d, id);
      if (id.feature < 0) continue;
      const std::string name = FeatureName(id.feature);
      const bool interior = name.rfind("cylinder-", 0) == 0;
      const FeatureGuardSet guards = FeatureGuards(m.get(), d, id);
      if (name == "cap-edge" || name == "cap-vertex") {
        // the segment's foot leaving the end: σ(a·(P − c)) − h with P the end's nearest box point
        const FeatureGuard& reverse = guards.guard[guards.count - 1];
        ASSERT_GE(reverse.edge, 0) << name;
        const Eigen::Vector3d c = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos);
        const Eigen::Vector3d a(d->geom_xmat[2], d->geom_xmat[5], d->geom_xmat[8]);
        const Eigen::Vector3d P = BoxPointOf(m.get(), point);
        // the end the point is on: its centre is the capsule's core point, r behind the surface
        const Eigen::Vector3d core = P - (BoxDistanceOf(m.get(), point) + 0.04) * point.frame.row(0).transpose();
        const double sigma = a.dot(core - c) > 0 ? 1 : -1;
        ASSERT_LT((core - (c + sigma * 0.25 * a)).norm(), 1e-12);
        EXPECT_NEAR(reverse.value, sigma * a.dot(P - c) - 0.25, 1e-12) << name;
        reverse_checked++;
      }
      if (!interior) continue;
      seen[name]++;
      const ContactPoint p = FeaturePoint(model, d, id);
      ExpectSamePoint(p, point, name);
      EXPECT_EQ(guards.count, name == "cylinder-edge" ? 4 : 5) << name;
      for (int j = 0; j < guards.count; j++) EXPECT_GT(guards.guard[j].value, 0) << name << " guard " << j;
      worst_grad = std::max(worst_grad, ExpectGuardGradientsMatchTheirTwins(model, d, id, q, guards, 1e-9, name));  // measured 2.1e-10
      // the bias of the held feature against the distance's second derivative along q ⊕ s·v
      State x;
      x.qpos = q;
      x.qvel = Eigen::VectorXd::Zero(m->nv);
      for (int k = 0; k < m->nv; k++) x.qvel(k) = poses.Unit();
      x.act.resize(0);
      const Eigen::VectorXd bias = ConstraintBias(model, data, x, {id});
      ASSERT_EQ(bias.size(), 1);
      // the feature's edge (its free axis) or vertex, in the box's frame, fixed on the crate
      Eigen::Vector3d corner, along = Eigen::Vector3d::Zero();
      EvaluatePosition(model, d, q.data());
      {
        const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->geom_xmat + 9);
        const Eigen::Vector3d local = R.transpose() * (BoxPointOf(m.get(), p) - Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3));
        const Eigen::Vector3d size(0.3, 0.2, 0.1);
        for (int axis = 0; axis < 3; axis++) {
          const bool free = std::abs(std::abs(local(axis)) - size(axis)) > 1e-9;
          corner(axis) = free ? 0 : (local(axis) > 0 ? 1 : -1) * size(axis);
          if (free) along(axis) = 1;
        }
      }
      EXPECT_EQ(along.sum(), name == "cylinder-edge" ? 1 : 0) << name;
      auto distance = [&](double s) {
        Eigen::VectorXd y = x.qpos;
        mj_integratePos(m.get(), y.data(), x.qvel.data(), s);
        mju_copy(d->qpos, y.data(), m->nq);
        mj_kinematics(m.get(), d);
        const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->geom_xmat + 9);
        const Eigen::Vector3d origin = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3);
        const Eigen::Vector3d c = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos);
        const Eigen::Vector3d a(d->geom_xmat[2], d->geom_xmat[5], d->geom_xmat[8]);
        return LineDistance(c, a, origin + R * corner, R * along);
      };
      const double hs = 2e-4;  // truncation (hs·|v|/distance)⁴, round-off 1e-16/hs²
      const double twin = (-distance(2 * hs) + 16 * distance(hs) - 30 * distance(0) + 16 * distance(-hs) -
                           distance(-2 * hs)) / (12 * hs * hs);
      worst_bias = std::max(worst_bias, std::abs(bias(0) - twin) / (1 + std::abs(twin)));
      EXPECT_NEAR(bias(0), twin, 3e-8 * (1 + std::abs(twin))) << name;  // measured 1.1e-8 (7.9e-9 before the points over a face)
    }
  }
  std::printf("[ log across crate ] interior regions seen:");
  for (const auto& [name, n] : seen) std::printf(" %s %d", name.c_str(), n);
  std::printf("; ends on an edge or vertex %d; worst guard gradient error %.1e, worst bias error %.1e "
              "(relative to 1 + |J̇v|)\n",
              reverse_checked, worst_grad, worst_bias);
  EXPECT_GE(seen["cylinder-edge"], 5);
  EXPECT_GE(seen["cylinder-vertex"], 5);
}

}  // namespace
}  // namespace saltation::testing
