// A cylinder tipping from its face onto its rim, and a coin precessing on its rim at a small tilt,
// in the exact rigid reference (own_points.h's plane–cylinder block, plane_cylinder_points.cc;
// issue 14): the corner ↔ rim hand-over.
//  (a) a puck (r 0.05, half length 0.01, 1 kg) lying flat on its four corners, frictionless, kicked
//      to pivot up on its corner at local +x with the tilt's direction φ off that corner (0.2 rad;
//      π/4: on the chord of the corners at +x and +y): the rim's lowest point, ψ = φ round the rim
//      from the corner, moves down relative to it; it takes over where its listing begins (located),
//      then the puck falls back flat.
//  (b) a coin (the same puck) in steady precession on its rim at tilt θ = 0.05 (< 0.1: its corners
//      listed too and passing under the rim point as it turns): centre of mass fixed, the contact
//      point at rest (rolling; no friction force needed, so frictionless as well), precessing at
//      Ω² = m g ρx / (sin θ (I₁ cos θ − I₃ (h/r) sin θ)), ρx = r cos θ − h sin θ (Euler's disk: for
//      h = 0, 4g/(r sin θ)), spinning at s = −ρx Ω / r about its axis.
// Each records whether the run stops (its message), the deepest listed point's gap, grazing
// events, and the energy (frictionless, no impacts: conserved).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/finite_difference.h"
#include "saltation/impact.h"
#include "saltation/loading.h"
#include "saltation/rigid_simulator.h"
#include "own_points.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

using Vec3 = Eigen::Vector3d;

constexpr double kG = 9.81, kR = 0.05, kH = 0.01;

// `lump`: more of the puck's body (a geom of no collision shifting its centre of mass)
std::string PuckXml(int condim, const std::string& lump = "") {
  return R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" condim=")" + std::to_string(condim) + R"("/>
    <body name="puck"><freejoint/>
      <geom name="puck" type="cylinder" size=")" + std::to_string(kR) + " " + std::to_string(kH) +
         R"(" mass="1" condim=")" + std::to_string(condim) + R"("/>)" + lump + R"(
    </body>
  </worldbody>
</mujoco>)";
}

// kinetic + potential energy of the free body 1 (qvel: the frame origin's world linear velocity,
// the body-frame angular velocity; its centre of mass and principal axes from MuJoCo's kinematics)
double Energy(const mjModel* m, const State& x) {
  mjData* d = mj_makeData(m);
  mju_copy(d->qpos, x.qpos.data(), m->nq);
  mj_kinematics(m, d);
  // copies: d is freed below
  const Eigen::Matrix3d R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->xmat + 9),
                        Ri = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->ximat + 9);
  const Vec3 origin = Eigen::Map<const Vec3>(d->xpos + 3), com = Eigen::Map<const Vec3>(d->xipos + 3);
  mj_deleteData(d);
  const Vec3 omega = R * Vec3(x.qvel.tail<3>());
  const Vec3 v = Vec3(x.qvel.head<3>()) + omega.cross(com - origin), w = Ri.transpose() * omega;
  const double mass = m->body_mass[1];
  double e = 0.5 * mass * v.squaredNorm() + mass * kG * com.z();
  for (int i = 0; i < 3; i++) e += 0.5 * m->body_inertia[3 + i] * w(i) * w(i);
  return e;
}

// sin of the axis' tilt from the vertical
double SinTilt(const State& x) {
  const Eigen::Quaterniond q(x.qpos(3), x.qpos(4), x.qpos(5), x.qpos(6));
  return Vec3::UnitZ().cross(q * Vec3::UnitZ()).norm();
}

// the world velocity of the puck's material point at world point p
Vec3 PointVelocity(const State& x, const Vec3& p) {
  const Eigen::Quaterniond q(x.qpos(3), x.qpos(4), x.qpos(5), x.qpos(6));
  const Vec3 omega = q * Vec3(x.qvel.tail<3>());
  return Vec3(x.qvel.head<3>()) + omega.cross(p - Vec3(x.qpos.head<3>()));
}

struct Record {
  std::string error;
  int events = 0, grazes = 0, touchdowns = 0, liftoffs = 0;
  double deepest = 0;        // the deepest gap of any listed point, sampled every 0.5 ms
  double energy_drift = 0;   // the largest |E − E₀| between impacts: E₀ the start's, or x⁺'s of the first touchdown
  double first_touchdown = INFINITY;
  double first_sin_tilt = NAN;  // sin(tilt) at the first touchdown (x⁻)
  double first_speed = NAN;     // the first touchdown's approach speed, −v_n⁻ of its point
  double first_impulse = NAN;   // the first touchdown's largest normal impulse
  double first_loss = NAN;      // the energy the first touchdown takes, E(x⁻) − E(x⁺)
  double max_tilt = 0;       // largest sin(tilt)
};

// runs to t_end in 0.5 ms calls of Advance, sampling the listed points' gaps and the energy
Record RunSampled(const Model& model, const mjModel* m, RigidSimulator& sim, HybridState& s, double t_end,
           const std::function<void(const HybridState&)>& sample = {}) {
  Record r;
  double e0 = Energy(m, s.x);
  try {
    while (s.x.time < t_end - 1e-12) {
      const std::vector<RigidEvent> evs = sim.Advance(s, std::min(t_end, s.x.time + 5e-4));
      for (const RigidEvent& ev : evs) {
        r.events++;
        r.grazes += ev.kind == EventKind::kGraze;
        r.touchdowns += ev.kind == EventKind::kTouchdown;
        if (ev.kind == EventKind::kTouchdown && r.touchdowns == 1) {
          r.first_touchdown = ev.time;
          r.first_sin_tilt = SinTilt(ev.x_minus);
          r.first_speed = -PointVelocity(ev.x_minus, ev.point).z();
          r.first_impulse = ev.impact.normal_impulse.size() ? ev.impact.normal_impulse.maxCoeff() : 0.0;
          r.first_loss = Energy(m, ev.x_minus) - Energy(m, ev.x_plus);
          e0 = Energy(m, ev.x_plus);
        }
        r.liftoffs += ev.kind == EventKind::kLiftoff;
      }
      for (const ContactPoint& p : ListedPoints(model, s.x.qpos)) r.deepest = std::min(r.deepest, p.gap);
      if (r.touchdowns <= 1) r.energy_drift = std::max(r.energy_drift, std::abs(Energy(m, s.x) - e0));
      const Eigen::Quaterniond q(s.x.qpos(3), s.x.qpos(4), s.x.qpos(5), s.x.qpos(6));
      r.max_tilt = std::max(r.max_tilt, Vec3::UnitZ().cross(q * Vec3::UnitZ()).norm());
      if (sample) sample(s);
    }
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}


// Ξ of the corner → rim-point hand-over (the run's first event, a touchdown) against central
// differences (step eps) of the exact reference's flow across it: from the state `lead` before the
// hand-over (on the corners) to `after` past it, Φ(t1 ← t⁺) Ξ Φ(t⁻ ← t_pre) (each Φ by differences
// of its mode's flow) against the hybrid flow's, as relative Frobenius errors over the columns that
// move the puck without turning it (its translation and linear velocity: tangent 0–2, 6–8) and over
// every column. Near the listing threshold T (sin(tilt) = T at the hand-over) a tilt δ across the
// tilt's direction turns the rim point round the rim by δ/T, so the flow's derivatives there are
// ~1/T (FD entries ~1e5…1e7): DΔ's configuration probes step below the tilt (impact.cc,
// CylinderRimProbeStep; with Model::Options::fd_step = 1e-6 ≫ T they stepped across the threshold:
// every column O(1) off, 0.995 and 1.0e3). Φ(t1 ← t⁺) starts on the threshold: a perturbation that
// lowers the tilt unlists the held rim point (it is then matched to a corner: 1/ε entries, every
// column 2.9e-2 and 1.0e3 at ε 1e-11), so it is taken with the rim point listed at any tilt
// (CylinderRimListedAtAnyTilt), the mode's own smooth continuation, as the linearised flow is.
// `reset`: DΔ's ∂v⁺/∂q against central differences (step 1e-12 ≪ T) of the impact map of the
// event's impulse set, the rim point listed at any tilt.
struct XiErrors {
  double translating = INFINITY;  // over the columns 0–2, 6–8
  double every = INFINITY;        // over every column
  double reset = INFINITY;        // DΔ's ∂v⁺/∂q
};
XiErrors HandOverXiError(const std::string& xml, const State& start, double lead, double after, double eps) {
  ModelPtr m = LoadModelFromString(xml);
  Model model(m.get());
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(start);
  std::vector<RigidEvent> evs = sim.Advance(s, 1.0, 1);
  if (evs.size() != 1 || evs[0].kind != EventKind::kTouchdown) {
    ADD_FAILURE() << "no hand-over";
    return {};
  }
  const double t_pre = evs[0].time - lead;
  s = sim.Initialize(start);
  sim.Advance(s, t_pre);
  EXPECT_NEAR(s.x.time, t_pre, 1e-18);
  const HybridState pre = s;
  evs = sim.Advance(s, 1.0, 1);
  const RigidEvent& ev = evs.at(0);
  const double t1 = ev.time + after;
  Eigen::MatrixXd total;
  try {
    total = FlowJacobianFD(sim, pre, t1, eps, true);
  } catch (const std::exception& e) {
    std::printf("[ cylinder tip ]   ε %.0e, +%.1e s: %s\n", eps, after, e.what());
    return {};
  }
  const Eigen::MatrixXd before = FlowJacobianFD(sim, pre, ev.time, eps, false);
  Eigen::MatrixXd after_phi;
  {
    CylinderRimListedAtAnyTilt continued;
    after_phi = FlowJacobianFD(sim, HybridState{ev.x_plus, ev.mode_after}, t1, eps, false);
  }
  const Eigen::MatrixXd composed = after_phi * ev.xi.Dense() * before;
  const std::vector<int> cols = {0, 1, 2, 6, 7, 8};
  XiErrors err;
  err.translating = RelativeError(composed(Eigen::all, cols), total(Eigen::all, cols));
  err.every = RelativeError(composed, total);
  {
    Data data(model);
    const RestitutionTable restitution(model);
    const std::vector<ContactId> set = ev.impact.ImpulseSet();
    CylinderRimListedAtAnyTilt continued;
    const double h = 1e-12;
    Eigen::MatrixXd fd(model.nv(), model.nv());
    for (int c = 0; c < model.nv(); c++) {
      Eigen::VectorXd dq = Eigen::VectorXd::Zero(model.nv());
      dq(c) = h;
      Eigen::VectorXd qp = ev.x_minus.qpos, qm = ev.x_minus.qpos;
      mj_integratePos(m.get(), qp.data(), dq.data(), 1.0);
      mj_integratePos(m.get(), qm.data(), dq.data(), -1.0);
      fd.col(c) = (ImpactVelocity(model, data, restitution, qp, ev.x_minus.qvel, set) -
                   ImpactVelocity(model, data, restitution, qm, ev.x_minus.qvel, set)) / (2 * h);
    }
    err.reset = RelativeError(ev.xi.reset.DvDqDense(), fd);
    if (err.reset > 1e-6) std::printf("%s\n", CompareReport(ev.xi.reset.DvDqDense(), fd, "DΔ", "FD").c_str());
  }
  std::printf("[ cylinder tip ]   hand-over at %.9e s (from −%.0e s to +%.0e s, ε %.0e): Φ Ξ Φ vs FD of the flow %.3e "
              "over the translating columns, %.3e over every column; DΔ's ∂v⁺/∂q vs FD of the impact map %.3e\n",
              ev.time, lead, after, eps, err.translating, err.every, err.reset);
  if (err.every > 1e-3) std::printf("%s\n", CompareReport(composed, total, "Φ Ξ Φ", "FD of flow").c_str());
  return err;
}

class CylinderTip : public MujocoTest {};

// the puck flat on its corners (centre at h), frictionless, restitution 0, set tipping up at ω
// about the horizontal axis u = (−sin φ, cos φ, 0), the centre's velocity making the corner at +x
// rest (φ = π/4: the chord from +x to +y, both at rest): its side at φ goes down, the other corners
// rise, and the rim's lowest point (at φ, ψ = φ round the rim from the corner at +x) moves down
// relative to that corner at ω r (1 − cos φ); run to 0.4 s
Record TipUp(double phi, double w, double* energy0) {
  ModelPtr m = LoadModelFromString(PuckXml(1));
  Model model(m.get());
  RigidSimulator sim(model);
  State start;
  start.qpos.resize(7);
  start.qpos << 0, 0, kH, 1, 0, 0, 0;
  start.qvel.setZero(6);
  const Vec3 u(-std::sin(phi), std::cos(phi), 0), omega = w * u;
  start.qvel.head(3) = -omega.cross(Vec3(kR, 0, 0));  // the corner at +x at rest
  start.qvel.tail(3) = omega;                           // body frame = world frame at the start
  start.act.resize(0);
  HybridState s = sim.Initialize(start);
  const Record r = RunSampled(model, m.get(), sim, s, 0.4);
  *energy0 = Energy(m.get(), start);
  std::printf("[ cylinder tip ] tipping up %.3f rad off a corner (ω %.0f): to %.6f s%s%s; %d events (%d touchdowns, "
              "%d liftoffs, %d grazes, the first touchdown at %.9e s, sin(tilt) there %.12e, approach %.6e m/s); "
              "deepest listed gap %.3e m (%.2e r); energy drift up to the second %.2e J (of %.3f J); max sin(tilt) %.3f\n",
              phi, w, s.x.time, r.error.empty() ? "" : ": ", r.error.c_str(), r.events, r.touchdowns, r.liftoffs,
              r.grazes, r.first_touchdown, r.first_sin_tilt, r.first_speed, r.deepest, r.deepest / kR,
              r.energy_drift, *energy0, r.max_tilt);
  return r;
}

// the hand-over where the rim point's listing begins, sin(tilt) = T = CylinderFaceThreshold (written
// out), at t ≈ asin(T)/ω (the second-order term, gravity's and the pivot's, measured 3.9e-8 of
// it), located to round-off (sin(tilt) at x⁻ within 1e-15 of T: measured 6e-18, 2.5e-17), the rim
// point approaching at ω r (1 − cos φ) (measured to 1e-8 of it): a plastic impact of the rim point
// alone
void ExpectLocatedHandOver(const Record& r, double phi, double w) {
  const double T = 1e-8 / (1 - std::sqrt(0.5));
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_GT(r.max_tilt, 0.1);  // it tips past the corners' limit
  EXPECT_GE(r.touchdowns, 1);
  EXPECT_NEAR(r.first_sin_tilt, T, 1e-15);
  EXPECT_NEAR(r.first_touchdown, std::asin(T) / w, 1e-7 * T / w);
  EXPECT_NEAR(r.first_speed, w * kR * (1 - std::cos(phi)), 1e-6 * w * kR * (1 - std::cos(phi)));
}

TEST_F(CylinderTip, TippingUpOffACornerTheRimPointTakesOverWhereItIsListed) {
  // on main the rim point was listed already below the held corner (from sin(tilt) = 3.4e-6 on),
  // its crossing unseen: its touchdown was taken at the first step's end (2.5007e-4 s, sin(tilt)
  // 2e-3), 1.98e-6 m (4e-5 r) deep, and held there. Now the rim point takes over where its listing
  // begins, r T (1 − cos φ) = 3.40e-11 m below the corner (the model's error there, and the deepest
  // any listed point gets in the run: measured −3.402e-11 m), and pivots on it frictionless
  // (energy conserved: measured 1.4e-12 J of 0.196 J) until it lands flat
  const double phi = 0.2, w = 8, T = 1e-8 / (1 - std::sqrt(0.5));
  double e0 = 0;
  const Record r = TipUp(phi, w, &e0);
  ExpectLocatedHandOver(r, phi, w);
  EXPECT_GT(r.deepest, -1.001 * kR * T * (1 - std::cos(phi)));
  EXPECT_LT(r.energy_drift, 3e-12);
}

TEST_F(CylinderTip, TippingUpOnAChordOfTwoCornersRunsThrough) {
  // the chord of the corners at +x and +y (φ = π/4): the rim point midway round the rim between
  // them (ψ = π/4) takes over from both, r T (1 − cos 45°) = 5.0e-10 m deep (measured −5.000e-10 m,
  // the deepest of the run), pivots on it (energy measured 8.6e-13 J of 0.159 J) and lands flat on
  // its four corners. On main: "floor/puck@3 bounced off and back within step/16" at 0.0793 s, a
  // corner 2.9e-5 m (5.8e-4 r) deep.
  const double phi = M_PI / 4, w = 8, T = 1e-8 / (1 - std::sqrt(0.5));
  double e0 = 0;
  const Record r = TipUp(phi, w, &e0);
  ExpectLocatedHandOver(r, phi, w);
  EXPECT_GT(r.deepest, -1.001 * kR * T * (1 - std::cos(phi)));
  EXPECT_LT(r.energy_drift, 2e-12);
}

TEST_F(CylinderTip, TippingFromRestOnAChordTheRimPointTakesOverAtRest) {
  // the puck with a 2 kg lump (no collision) at local (r, r, 0): its centre of mass beyond the
  // chord of the corners at +x and +y; released flat at rest, frictionless, it tips over that
  // chord from rest (sin(tilt) ≈ α t²/2), the rim point midway between them at rest relative to
  // the plane at the start and approaching at r (1 − cos 45°)·d(tilt)/dt, α t* at the hand-over
  // (t* = √(2 asin(T)/α): 2.7e-5 s, 3.7e-5 m/s): the same located event, a plastic impulse of that
  // order (1.1e-4 N s, taking 2.0e-9 J), then it topples on over the rim point. On main the rim
  // point was listed at sin(tilt) 3.4e-6, below the corners
  ModelPtr m = LoadModelFromString(PuckXml(
      1, R"(<geom name="lump" type="sphere" size="0.005" pos="0.06 0.06 0" mass="2" contype="0" conaffinity="0"/>)"));
  Model model(m.get());
  RigidSimulator sim(model);
  State start;
  start.qpos.resize(7);
  start.qpos << 0, 0, kH, 1, 0, 0, 0;
  start.qvel.setZero(6);
  start.act.resize(0);
  HybridState s = sim.Initialize(start);
  const Record r = RunSampled(model, m.get(), sim, s, 0.1);
  const double T = 1e-8 / (1 - std::sqrt(0.5));
  std::printf("[ cylinder tip ] tipping from rest over a chord: to %.6f s%s%s; %d events (%d touchdowns, %d liftoffs), "
              "the first at %.9e s, sin(tilt) there %.12e, approach %.9e m/s, impulse %.3e N s, energy taken %.2e J; "
              "deepest listed gap %.3e m; energy drift up to the second %.2e J; max sin(tilt) %.3f\n",
              s.x.time, r.error.empty() ? "" : ": ", r.error.c_str(), r.events, r.touchdowns, r.liftoffs,
              r.first_touchdown, r.first_sin_tilt, r.first_speed, r.first_impulse, r.first_loss, r.deepest,
              r.energy_drift, r.max_tilt);
  // the closed form from rest: the chord fixed (frictionless: the centre of mass moves vertically
  // only), α = m g d / (I_u + m d²) about the chord's direction u, d the centre of mass's horizontal
  // distance beyond the chord, I_u its moment of inertia about u through the centre of mass
  const double mass = m->body_mass[1];
  const Vec3 u = Vec3(-1, 1, 0).normalized(), e = Vec3(1, 1, 0).normalized();
  const Vec3 com(m->body_ipos[3], m->body_ipos[4], m->body_ipos[5]);
  const Eigen::Quaterniond iq(m->body_iquat[4], m->body_iquat[5], m->body_iquat[6], m->body_iquat[7]);
  const Vec3 ui = iq.inverse() * u;
  const double i_u = m->body_inertia[3] * ui.x() * ui.x() + m->body_inertia[4] * ui.y() * ui.y() +
                     m->body_inertia[5] * ui.z() * ui.z();
  const double d = e.dot(com) - kR * std::sqrt(0.5), alpha = mass * kG * d / (i_u + mass * d * d);
  const double t_star = std::sqrt(2 * std::asin(T) / alpha), speed = kR * (1 - std::sqrt(0.5)) * alpha * t_star;
  std::printf("[ cylinder tip ]   closed form: α %.6f rad/s², t* %.9e s, approach %.9e m/s\n", alpha, t_star, speed);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_GT(r.max_tilt, 0.1);  // it topples on over the rim point
  EXPECT_NEAR(r.first_sin_tilt, T, 1e-15);
  EXPECT_NEAR(r.first_touchdown, t_star, 1e-8 * t_star);  // measured 4e-10 of it
  EXPECT_NEAR(r.first_speed, speed, 1e-8 * speed);        // measured 1e-9
  EXPECT_NEAR(r.first_loss, 0.5 * r.first_impulse * r.first_speed, 1e-3 * r.first_loss);  // plastic: ½ Λ v⁻
  EXPECT_GT(r.deepest, -1.001 * kR * T * (1 - std::sqrt(0.5)));  // the hand-over's r T (1 − cos 45°)
  EXPECT_LT(r.energy_drift, 1e-12);  // pivoting on the rim point, frictionless (measured 5e-13 J)
}

// Ξ of the hand-over is the transition's: the guard crossed is the listing's, sin(tilt) − T (its
// ∇h turns the puck only: ∂h/∂t = 0), F⁻ the flow pivoting on the held corner(s) — they leave the
// mode at the event — and the reset the rim point's plastic impact. On 3ed16c8 the event took F⁻
// without the corners (free flight) and ∇g the rim point's gap (J_n, nonzero on the height), over
// the approach J_n v (0.008 m/s, 3.7e-5 m/s): the relative errors below were 2.8e5 tipping up and
// 2.1e7 from rest (Φ Ξ Φ's entry (ω_y, z) −4.1e6 and 6.2e7 where the flow's is 0)
TEST_F(CylinderTip, HandOverXiAgreesWithTheFlowTippingUpOffACorner) {
  // tipping up at 8 rad/s 0.2 rad off a corner (TipUp): the hand-over at 4.27e-9 s; from 1e-9 s
  // before it to 1e-7 s after, ε 1e-11 (sweep: 1e-10 and up: a perturbed run's count of events
  // changes, or the height's column of the FD is off by O(1); 1e-12: the same error)
  const double phi = 0.2, w = 8;
  State start;
  start.qpos.resize(7);
  start.qpos << 0, 0, kH, 1, 0, 0, 0;
  start.qvel.setZero(6);
  const Vec3 u(-std::sin(phi), std::cos(phi), 0), omega = w * u;
  start.qvel.head(3) = -omega.cross(Vec3(kR, 0, 0));
  start.qvel.tail(3) = omega;
  start.act.resize(0);
  const XiErrors err = HandOverXiError(PuckXml(1), start, 1e-9, 1e-7, 1e-11);
  EXPECT_LT(err.translating, 3e-4);  // measured 1.3e-4 (the vertical velocity's column)
  // every column (ε sweep with DΔ fixed: 1.0e-3 at 1e-10, 1.1e-4 at 3e-11, 2.8e-4 at 3e-12, 3.9e-4
  // at 1e-12: the flow's differences; on 25e8c1e, DΔ probed with fd_step: 1.0)
  EXPECT_LT(err.every, 1e-4);   // measured 1.9e-5
  EXPECT_LT(err.reset, 1e-6);   // measured 9.0e-8 (on 25e8c1e: 1.0, its entries 0.07 where the map's are −3.6e6)
}

TEST_F(CylinderTip, HandOverXiAgreesWithTheFlowTippingFromRest) {
  // the lumped puck tipping from rest over a chord (TippingFromRest…): the hand-over at 2.73e-5 s;
  // from 1e-8 s before it to 1e-5 s after, ε 1e-11 (sweep: ε 1e-10 with a lead of 1e-8 s: a
  // perturbed run crosses the guard at once; a lead of 1e-7 s: 5.6e-4, through the tilt's columns)
  State start;
  start.qpos.resize(7);
  start.qpos << 0, 0, kH, 1, 0, 0, 0;
  start.qvel.setZero(6);
  start.act.resize(0);
  const std::string xml = PuckXml(
      1, R"(<geom name="lump" type="sphere" size="0.005" pos="0.06 0.06 0" mass="2" contype="0" conaffinity="0"/>)");
  const XiErrors err = HandOverXiError(xml, start, 1e-8, 1e-5, 1e-11);
  EXPECT_LT(err.translating, 2e-7);  // measured 5.0e-8
  // every column (ε 3e-11…1e-12 with DΔ fixed: 2.6e-5 to 2.9e-5; on 25e8c1e, DΔ probed with fd_step: 3.8)
  EXPECT_LT(err.every, 1e-4);   // measured 2.6e-5
  EXPECT_LT(err.reset, 1e-6);   // measured 7.7e-9 (on 25e8c1e: 1.0)
}

TEST_F(CylinderTip, ACoinPrecessingOnItsRimAtTilt005) {
  for (const int condim : {1, 3}) for (const double roll : {0.0, M_PI / 4}) {
    ModelPtr m = LoadModelFromString(PuckXml(condim));
    Model model(m.get());
    RigidSimulator sim(model);
    const double theta = 0.05, mass = 1;
    const double i1 = m->body_inertia[3], i3 = m->body_inertia[5];
    const double rho_x = kR * std::cos(theta) - kH * std::sin(theta);
    const double rho_z = -kH * std::cos(theta) - kR * std::sin(theta);
    const double omega = std::sqrt(mass * kG * rho_x /
                                   (std::sin(theta) * (i1 * std::cos(theta) - i3 * (kH / kR) * std::sin(theta))));
    const double spin = -rho_x * omega / kR;
    // axis towards +x, turned by `roll` about it first: the rim point on a corner (0) or midway (π/4)
    const Eigen::Quaterniond q = Eigen::Quaterniond(Eigen::AngleAxisd(theta, Vec3::UnitY())) *
                                 Eigen::Quaterniond(Eigen::AngleAxisd(roll, Vec3::UnitZ()));
    const Vec3 a = q * Vec3::UnitZ();
    State start;
    start.qpos.resize(7);
    start.qpos << -rho_x, 0, -rho_z, q.w(), q.x(), q.y(), q.z();  // the contact point at the origin
    start.qvel.setZero(6);
    start.qvel.tail(3) = q.inverse() * (omega * Vec3::UnitZ() + spin * a);
    start.act.resize(0);
    HybridState s = sim.Initialize(start);
    double drift = 0, tilt_drift = 0;
    const double T = 0.2;
    const Record r = RunSampled(model, m.get(), sim, s, T, [&](const HybridState& h) {
      const Eigen::Quaterniond qq(h.x.qpos(3), h.x.qpos(4), h.x.qpos(5), h.x.qpos(6));
      drift = std::max(drift, (h.x.qpos.head(3) - start.qpos.head(3)).norm());
      tilt_drift = std::max(tilt_drift, std::abs(std::acos(std::clamp((qq * Vec3::UnitZ()).z(), -1.0, 1.0)) - theta));
    });
    std::printf("[ cylinder tip ] coin precessing at tilt 0.05 (condim %d, roll %.2f; Ω %.3f rad/s, spin %.3f): to %.6f s%s%s; "
                "%d events (%d touchdowns, %d liftoffs, %d grazes); deepest listed gap %.2e m; energy drift %.2e J (of %.3f J); "
                "centre moved %.2e m, tilt by %.2e rad\n",
                condim, roll, omega, spin, s.x.time, r.error.empty() ? "" : ": ", r.error.c_str(), r.events, r.touchdowns,
                r.liftoffs, r.grazes, r.deepest, r.energy_drift, Energy(m.get(), start), drift, tilt_drift);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_NEAR(s.x.time, T, 1e-12);
    // the steady precession in closed form: no event, the rim point held at zero, the centre and
    // the tilt where they started, the energy conserved (measured: 2.6e-8 m, 2.0e-8 rad, 2.5e-7 J
    // of 0.136 J; on main the corners passing under the rim point touched down and it fell flat)
    EXPECT_EQ(r.events, 0) << "condim " << condim << " roll " << roll;
    EXPECT_GT(r.deepest, -1e-12);
    EXPECT_LT(drift, 5e-8);
    EXPECT_LT(tilt_drift, 3e-8);
    EXPECT_LT(r.energy_drift, 4e-7);
  }
}

}  // namespace
}  // namespace saltation::testing
