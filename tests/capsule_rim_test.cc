// A box's rim tipping onto a capsule that lies across it (capsule_box_points.cc): the segment's
// point nearest to the rim's edge is listed while the segment slopes away from the face towards the
// rim (over the face, outside the edge's normal cone), so when the face turns parallel to the
// segment and on past it, the rim's touchdown is a guard crossing from + to − like any other. Before
// (a830808…), the point was listed only inside the cone: it appeared already penetrating within a
// step and the exact reference stopped ("appeared penetrating"; the pile of bench/rigid_bench.cc,
// RigidPile/25 at 0.2737 s, where a box rocking on a capsule's end brought its face's −x rim down)
// or, where the new point was matched to the inner end's, found the end's touchdown 0.4 ms late
// with the rim 0.1 mm deep (the first test below, silently). The corner cut (both rims) happened
// to pass before: there the other rim's point hands over at equal distance.
//
// Closed form (no gravity: uniform motion). A fixed box whose top face is z = 0, x, y ≤ 0 (its
// rims along the edges x = 0 and y = 0 meet at the corner at the origin); a capsule (radius r,
// half length h, mass m = 1, frictionless) on a slide along z (z) and a hinge about its own
// horizontal y axis through its centre (φ; the axis a = cos φ ê − sin φ ẑ, ê its horizontal
// direction at φ = 0), centre C = (p_x, p_y, z). M = diag(m, I) is constant: z = z₀ − v t,
// φ = φ₀ + ω t. The segment's distance to an edge line (point P₀, direction u) is the lines'
// |(C − P₀)·w|/|w|, w = a × u; its touchdown guard g = that − r (no margin). φ₀ < 0 and ω > 0: the
// face and the segment are parallel at t_p = −φ₀/ω (inside a step of 1 ms, off the grid), the rim
// side comes down faster than the other (v > the other's lever arm × ω), so the rim touches at
// t_r > t_p, the root of g(t) (bisection). The impact (restitution e, impulse along J = ∇g):
// v⁺ = v⁻ − (1 + e) M⁻¹Jᵀ (J v⁻)/(J M⁻¹ Jᵀ); Ξ = DΔ + (F⁺ − DΔ F⁻) ∇gᵀ/(∇g·F⁻), F = (v, 0), the
// q-columns of DΔ by five-point differences of that map (J itself analytic).
#include <cmath>
#include <cstdio>
#include <string>

#include "test_util.h"

#include "saltation/contact_features.h"
#include "saltation/rigid_simulator.h"

namespace saltation::testing {
namespace {

using Vec3 = Eigen::Vector3d;

constexpr double kR = 0.02, kH = 0.1, kE = 0.5;
constexpr double kV = 0.2;  // falling speed (m/s)

class CapsuleRim : public MujocoTest {};

// the capsule over the box's corner: plan centre (px, py), horizontal direction at angle yaw
struct RockingCapsule {
  double px, py, yaw;
  double omega;  // turning rate (rad/s)
  Vec3 Dir() const { return Vec3(std::cos(yaw), std::sin(yaw), 0); }
  Vec3 Axis(double phi) const { return std::cos(phi) * Dir() - std::sin(phi) * Vec3::UnitZ(); }
  Vec3 AxisRate(double phi) const { return -std::sin(phi) * Dir() - std::cos(phi) * Vec3::UnitZ(); }
  Vec3 Centre(double z) const { return Vec3(px, py, z); }

  std::string Xml() const {
    char xml[1200];
    std::snprintf(xml, sizeof(xml), R"(
<mujoco>
  <option gravity="0 0 0" timestep="0.001"/>
  <custom><numeric name="saltation_restitution" data="%g"/></custom>
  <worldbody>
    <geom name="box" type="box" size="0.2 0.2 0.1" pos="-0.2 -0.2 -0.1" condim="1"/>
    <body name="rod" pos="%.17g %.17g 0" euler="0 0 %.17g">
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="phi" type="hinge" axis="0 1 0"/>
      <geom name="rod" type="capsule" fromto="-%g 0 0 %g 0 0" size="%g" mass="1" condim="1"/>
    </body>
  </worldbody>
</mujoco>)",
                  kE, px, py, yaw * 180 / M_PI, kH, kH, kR);
    return xml;
  }
};

// an edge line of the box: a point and its direction
struct Line {
  Vec3 p0, u;
};

// the axis line's signed distance to the edge's line minus r (g), its gradient in (z, φ) (J) and
// the two lines' nearest point on the edge (the touching point)
struct RimGap {
  double g;
  Eigen::RowVector2d J;
  Vec3 foot;
};

RimGap GapTo(const RockingCapsule& rod, const Line& edge, const Eigen::Vector2d& q) {
  const Vec3 a = rod.Axis(q(1)), w = a.cross(edge.u), dw = rod.AxisRate(q(1)).cross(edge.u);
  const Vec3 d = rod.Centre(q(0)) - edge.p0;
  const double n = w.norm(), s = d.dot(w) > 0 ? 1 : -1;
  RimGap r;
  r.g = s * d.dot(w) / n - kR;
  r.J(0) = s * w.z() / n;
  r.J(1) = s * (d.dot(dw) / n - d.dot(w) * w.dot(dw) / (n * n * n));
  // the edge's point nearest to the axis line: d + t a − σ u ⟂ a, u
  const double b = a.dot(edge.u), den = 1 - b * b;
  const double sigma = (edge.u.dot(d) - b * a.dot(d)) / den;
  r.foot = edge.p0 + sigma * edge.u;
  return r;
}

// the impact's velocities after, closed form
Eigen::Vector2d VelocityAfter(const RockingCapsule& rod, const Line& edge, const Eigen::Matrix2d& M,
                              const Eigen::Vector2d& q, const Eigen::Vector2d& v) {
  const Eigen::RowVector2d J = GapTo(rod, edge, q).J;
  const Eigen::Vector2d MinvJt = M.inverse() * J.transpose();
  return v - (1 + kE) * MinvJt * J.dot(v) / J.dot(MinvJt);
}

// Ξ of the touchdown, closed form (the q-columns of DΔ by five-point differences, step 1e-4)
Eigen::Matrix4d XiOfTheTouchdown(const RockingCapsule& rod, const Line& edge, const Eigen::Matrix2d& M,
                                 const Eigen::Vector2d& q, const Eigen::Vector2d& v) {
  Eigen::Matrix4d D = Eigen::Matrix4d::Identity();
  const double step = 1e-4;
  for (int k = 0; k < 2; k++) {
    auto at = [&](double s) {
      Eigen::Vector2d y = q;
      y(k) += s;
      return VelocityAfter(rod, edge, M, y, v);
    };
    D.block<2, 1>(2, k) = (-at(2 * step) + 8 * at(step) - 8 * at(-step) + at(-2 * step)) / (12 * step);
  }
  const Eigen::RowVector2d J = GapTo(rod, edge, q).J;
  const Eigen::Matrix2d MinvJt = M.inverse() * J.transpose() * J;
  D.block<2, 2>(2, 2) = Eigen::Matrix2d::Identity() - (1 + kE) * MinvJt / J.dot(M.inverse() * J.transpose());
  Eigen::Vector4d f_minus, f_plus;
  f_minus << v, 0, 0;
  f_plus << VelocityAfter(rod, edge, M, q, v), 0, 0;
  Eigen::RowVector4d grad;
  grad << J, 0, 0;
  return D + (f_plus - D * f_minus) * grad / grad.dot(f_minus);
}

// Drops the rod (z₀ chosen so the face and the segment are parallel at t_p, `clear` above the
// rim), locates its first event with the exact reference and holds it to the closed form: the
// rim's touchdown on its own interior point (cylinder-edge) at t_r, the event state, v⁺, the
// touching point and Ξ.
void ExpectTheRimTouchesFirst(const RockingCapsule& rod, const Line& rim, double t_p, double clear,
                              const char* what) {
  ModelPtr m = LoadModelFromString(rod.Xml());
  Model model(m.get());
  Eigen::Matrix2d M;
  {
    Data data(model);
    mj_forward(m.get(), data.main());
    Eigen::Matrix<double, 2, 2, Eigen::RowMajor> full;
    mj_fullM(m.get(), data.main(), full.data());
    M = full;
  }
  ASSERT_NEAR(M(0, 1), 0, 1e-15);
  const double phi0 = -rod.omega * t_p, z0 = kR + clear + kV * t_p;
  auto q_at = [&](double t) { return Eigen::Vector2d(z0 - kV * t, phi0 + rod.omega * t); };
  const Eigen::Vector2d v(-kV, rod.omega);
  ASSERT_GT(GapTo(rod, rim, q_at(t_p)).g, 0);
  // t_r: the rim's root after t_p (it is 0.5 ms away at most), by bisection
  double lo = t_p, hi = t_p + 5e-4;
  ASSERT_LT(GapTo(rod, rim, q_at(hi)).g, 0);
  for (int i = 0; i < 200; i++) (GapTo(rod, rim, q_at(0.5 * (lo + hi))).g > 0 ? lo : hi) = 0.5 * (lo + hi);
  const double t_r = 0.5 * (lo + hi);
  ASSERT_EQ(std::floor(t_p * 1e3), std::floor(t_r * 1e3)) << "t_p and t_r in one step";

  RigidSimulator sim(model);
  State x;
  x.qpos = q_at(0);
  x.qvel = v;
  x.act.resize(0);
  HybridState s = sim.Initialize(x);
  ASSERT_TRUE(s.mode.contacts.empty());
  std::vector<RigidEvent> events;
  ASSERT_NO_THROW(events = sim.Advance(s, t_r + 1e-3, 1)) << what;
  ASSERT_EQ(events.size(), 1u) << what;
  const RigidEvent& ev = events[0];
  const Eigen::Vector2d q_r = q_at(t_r);
  const RimGap at = GapTo(rod, rim, q_r);
  const Eigen::Vector2d v_plus = VelocityAfter(rod, rim, M, q_r, v);
  const Eigen::Matrix4d xi = XiOfTheTouchdown(rod, rim, M, q_r, v);
  const double xi_error = (ev.xi.Dense() - xi).cwiseAbs().maxCoeff();
  std::printf("[ %s ] rim touches at t_r = t_p + %.3e s: t − t_r = %+.2e s, |q − q_r| = %.1e, |v⁺ − v⁺_exact| = %.1e, "
              "|point − foot| = %.1e, max |Ξ − Ξ_exact| = %.2e (max |Ξ_exact| %.3g)\n",
              what, t_r - t_p, ev.time - t_r, (ev.x_minus.qpos - q_r).cwiseAbs().maxCoeff(),
              (ev.x_plus.qvel - v_plus).cwiseAbs().maxCoeff(), (ev.point - at.foot).norm(), xi_error,
              xi.cwiseAbs().maxCoeff());
  EXPECT_EQ(ev.kind, EventKind::kTouchdown) << what;
  EXPECT_STREQ(FeatureName(ev.feature), "cylinder-edge") << what;
  // measured: t, q, v⁺ and the point to ≤ 4e-15, Ξ to ≤ 1.3e-10 of its largest entry (the closed
  // form's differences in DΔ)
  EXPECT_NEAR(ev.time, t_r, 1e-13) << what;  // the root tolerance
  EXPECT_LT((ev.x_minus.qpos - q_r).cwiseAbs().maxCoeff(), 1e-13) << what;
  EXPECT_LT((ev.x_plus.qvel - v_plus).cwiseAbs().maxCoeff(), 1e-12) << what;
  EXPECT_LT((ev.point - at.foot).norm(), 1e-12) << what;
  EXPECT_LT(xi_error, 1e-9 * xi.cwiseAbs().maxCoeff()) << what << "\n" << ev.xi.Dense() << "\n" << xi;
}

// Across the rim x = 0 at right angles, 3 cm of the segment over the face past its centre (its
// inner end over the face, 7 cm beyond the rim): the inner end, lower before t_p, comes down at
// v − h ω = 0.1 m/s, the rim at v + 0.03 ω = 0.23 m/s.
TEST_F(CapsuleRim, ATiltedRodTurningFlatOverARimTouchesItThere) {
  const RockingCapsule rod{-0.03, -0.2, 0, 1.0};
  ExpectTheRimTouchesFirst(rod, Line{Vec3::Zero(), Vec3::UnitY()}, 0.00615, 7e-5, "rim across");
}

// Cutting the corner: the rod crosses both rims that meet at the corner (the segment over the face
// between them, its centre over (−2, −2) cm, its axis at −45°); the side over the rim x = 0 comes
// down, the one over y = 0 turns up past t_p: the rim x = 0 touches at its interior point 4 cm from
// the corner.
TEST_F(CapsuleRim, ARodCuttingACornerTurnsFlatOntoTheSecondRim) {
  const RockingCapsule rod{-0.02, -0.02, -M_PI / 4, 1.0};
  ExpectTheRimTouchesFirst(rod, Line{Vec3::Zero(), Vec3::UnitY()}, 0.00437, 5e-5, "corner cut");
}

// Across the corner: the rod crosses the rim x = 0 20 µm from the corner, at 30° to it, and passes
// beyond the corner outside the box (its inner end over the face). Before t_p the rim's own point
// lies over the face; without it, the rim's point appeared already penetrating within the step.
TEST_F(CapsuleRim, ARodAcrossTheCornerTurnsFlatOntoTheRimNextToIt) {
  const double c = 2e-5, yaw = M_PI / 6;
  const RockingCapsule rod{-0.03 * std::cos(yaw), -c - 0.03 * std::sin(yaw), yaw, 1.5};
  ExpectTheRimTouchesFirst(rod, Line{Vec3::Zero(), Vec3::UnitY()}, 0.00437, 5e-5, "across the corner");
}

}  // namespace
}  // namespace saltation::testing
