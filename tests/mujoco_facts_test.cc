// Facts of MuJoCo 4.0.1 the library relies on, each held by a test so that a MuJoCo upgrade that
// breaks one is seen here first (docs/port-notes.md lists them):
//  - mjd_transitionFD leaves mjData's time and state as they were (2.2.2 left the time one step
//    on, and the hook restored it by hand), and its A matches central differences of mj_step;
//  - mjd_transitionFD refuses RK4 (2.2.2 accepted it and returned every velocity column equal to
//    the last): the hook's compliant chain differences whole mj_step calls for RK4 still;
//  - growing geom gaps leaves the physics bitwise as it was, and MuJoCo then reports the pairs
//    within the gap (exclude = 1) with their distance: the hook's near-contact band. Which geom
//    type pairs keep both is the table GapWidening prints (ExactPair in the hook).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "saltation/finite_difference.h"
#include "saltation/tangent.h"
#include "near_contacts.h"
#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// a ball on two slide joints and a hinge, pressed into the floor and sliding: every column of the
// step's Jacobian is distinct (friction couples x to z and to the spin)
constexpr char kBallInContact[] = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.002" integrator="%s"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="ball" pos="0 0 0.1">
      <joint name="x" type="slide" axis="1 0 0" damping="0.3"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="r" type="hinge" axis="0 1 0"/>
      <geom name="ball" type="sphere" size="0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

std::string BallXml(const char* integrator) {
  char buf[1024];
  std::snprintf(buf, sizeof(buf), kBallInContact, integrator);
  return buf;
}

void PressAndSlide(const mjModel* m, mjData* d) {
  mj_resetData(m, d);
  d->qpos[0] = 0.01;
  d->qpos[1] = -0.002;  // 2 mm into the floor
  d->qpos[2] = 0.3;
  d->qvel[0] = 0.4;
  d->qvel[1] = -0.05;
  d->qvel[2] = 1.5;
  mj_forward(m, d);
  mj_step(m, d);  // a warm start of its own
}

class MujocoFacts : public MujocoTest {};

// mjd_transitionFD's A (forward differences, eps 1e-6) against central differences of whole
// mj_step calls, for the integrators it takes. Measured on 4.0.1: max |A - A_fd| = 1.61e-6
// for Euler, implicitfast and implicit alike (|A|_F = 6.09; forward against central differences).
TEST_F(MujocoFacts, TransitionFDMatchesCentralDifferencesOfStep) {
  for (const char* integrator : {"Euler", "implicitfast", "implicit"}) {
    SCOPED_TRACE(integrator);
    ModelPtr m = LoadModelFromString(BallXml(integrator));
    DataPtr d(mj_makeData(m.get()));
    PressAndSlide(m.get(), d.get());
    ASSERT_GT(d->ncon, 0);
    ASSERT_GT(d->efc_force[0], 0);  // in contact, pressed
    const int n = TangentDim(m.get());
    RowMatrix A(n, n);
    mjd_transitionFD(m.get(), d.get(), 1e-6, 0, A.data(), nullptr, nullptr, nullptr);

    const State x0 = StateFromData(m.get(), d.get());
    const std::vector<mjtNum> warm(d->qacc_warmstart, d->qacc_warmstart + m->nv);
    DataPtr w(mj_makeData(m.get()));
    auto step = [&](const State& x) {
      StateToData(m.get(), x, w.get());
      std::memcpy(w->qacc_warmstart, warm.data(), sizeof(mjtNum) * m->nv);
      mj_step(m.get(), w.get());
      return StateFromData(m.get(), w.get());
    };
    const Eigen::MatrixXd A_fd = TangentJacobianFD(m.get(), step, x0, 1e-6);
    const double err = (Eigen::MatrixXd(A) - A_fd).cwiseAbs().maxCoeff();
    std::printf("[ transitionFD ] %-12s max |A - A_fd| = %.2e, |A| = %.3g\n", integrator, err, A_fd.norm());
    EXPECT_LT(err, 3e-6) << CompareReport(A, A_fd, "mjd_transitionFD", "central FD of mj_step");
  }
}

// mjd_transitionFD leaves mjData's time, state and warm start bitwise as they were (2.2.2 left
// the time one step on, and the hook restored it by hand).
TEST_F(MujocoFacts, TransitionFDRestoresTimeAndState) {
  ModelPtr m = LoadModelFromString(BallXml("Euler"));
  DataPtr d(mj_makeData(m.get()));
  PressAndSlide(m.get(), d.get());
  const double time = d->time;
  const std::vector<mjtNum> qpos(d->qpos, d->qpos + m->nq), qvel(d->qvel, d->qvel + m->nv),
      warm(d->qacc_warmstart, d->qacc_warmstart + m->nv);
  RowMatrix A(TangentDim(m.get()), TangentDim(m.get()));
  mjd_transitionFD(m.get(), d.get(), 1e-6, 0, A.data(), nullptr, nullptr, nullptr);
  EXPECT_EQ(d->time, time);
  EXPECT_EQ(std::memcmp(qpos.data(), d->qpos, sizeof(mjtNum) * m->nq), 0);
  EXPECT_EQ(std::memcmp(qvel.data(), d->qvel, sizeof(mjtNum) * m->nv), 0);
  EXPECT_EQ(std::memcmp(warm.data(), d->qacc_warmstart, sizeof(mjtNum) * m->nv), 0);
}

// MuJoCo 4.0.1 refuses RK4 in mjd_transitionFD ("RK4 integrator is not supported"), so the
// hook's compliant chain keeps differencing whole mj_step calls for RK4 (checked against
// central differences of the trajectory in HookTest.RigidAndCompliantSensitivitiesSideBySide).
// When this fails, MuJoCo takes RK4 again: check its velocity columns (2.2.2's were all equal
// to the last) and let the hook call it.
TEST_F(MujocoFacts, TransitionFDRefusesRK4) {
  ModelPtr m = LoadModelFromString(BallXml("RK4"));
  DataPtr d(mj_makeData(m.get()));
  PressAndSlide(m.get(), d.get());
  RowMatrix A(TangentDim(m.get()), TangentDim(m.get()));
  try {
    mjd_transitionFD(m.get(), d.get(), 1e-6, 0, A.data(), nullptr, nullptr, nullptr);
    ADD_FAILURE() << "mjd_transitionFD took RK4";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("RK4 integrator is not supported"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Gap widening, per pair of geom types. Geom 1 is fixed (a plane, or a primitive/mesh in the
// world), geom 2 on a free body falls onto it tilted and spinning, lands, and rolls or rests:
// 0.6 s of 2 ms steps, in four scenarios (tilt, drift, spin). "bitwise": qpos and qvel after every step equal those of the same model
// with every gap grown by δ/2 (δ = 0.01, the hook's default detect margin for a small scene).
// "reports": with the widened gaps and geom 2 placed (along z, in its falling orientation) at a
// distance s = 0.4 δ from geom 1 by mj_geomDistance, MuJoCo lists the pair in the gap (exclude =
// 1) with dist within 1e-6 of s; at 1.5 δ it does not list it.

const char* const kTypes[] = {"plane", "sphere", "capsule", "box", "cylinder", "ellipsoid", "mesh"};

std::string GeomXml(const std::string& type, const char* name) {
  std::string g = "<geom name=\"" + std::string(name) + "\" type=\"" + type + "\" ";
  if (type == "plane") return g + "size=\"2 2 0.1\"/>";
  if (type == "sphere") return g + "size=\"0.1\"/>";
  if (type == "capsule") return g + "size=\"0.05 0.1\"/>";
  if (type == "box") return g + "size=\"0.08 0.07 0.06\"/>";
  if (type == "cylinder") return g + "size=\"0.08 0.07\"/>";
  if (type == "ellipsoid") return g + "size=\"0.1 0.07 0.05\"/>";
  return g + "mesh=\"hull\"/>";  // mesh
}

// scenario k: the falling body's tilt, drift and spin
struct Scenario {
  const char* euler;
  double v[6];
};
const Scenario kScenarios[] = {{"25 15 35", {0.1, 0, 0, 2, -1, 3}},
                               {"0 0 0", {0, 0, 0, 0, 0, 0}},
                               {"90 0 10", {-0.3, 0.2, 0, 0, 4, -1}},
                               {"-40 70 5", {0.05, -0.1, -1, -3, 0, 1}}};

std::string PairXml(const std::string& t1, const std::string& t2, const Scenario& sc) {
  return R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.002"/>
  <asset>
    <mesh name="hull" vertex="-0.08 -0.07 -0.06  0.08 -0.07 -0.06  -0.08 0.07 -0.06  0.08 0.07 -0.06
                              -0.06 -0.05 0.07  0.06 -0.05 0.07  -0.06 0.05 0.07  0.06 0.05 0.07  0 0 0.1"/>
  </asset>
  <worldbody>
    )" + GeomXml(t1, "g1") + R"(
    <body name="b" pos="0.02 0.01 0.4" euler=")" + std::string(sc.euler) + R"(">
      <freejoint/>
      )" + GeomXml(t2, "g2") + R"(
    </body>
  </worldbody>
</mujoco>)";
}

struct PairOutcome {
  bool bitwise = true;
  int first_difference = -1;  // step
  int contacts = 0;           // steps with an active contact (the scenario did touch)
  int untouched = 0;          // scenarios without any contact
  bool reports = true;        // listed in the gap with its distance, in every scenario
  double dist_error = NAN;
  bool listed_beyond = false;  // listed at 1.5 δ
};

constexpr double kDelta = 0.01;

void RunScenario(const std::string& t1, const std::string& t2, const Scenario& sc, PairOutcome& out) {
  const std::string xml = PairXml(t1, t2, sc);
  ModelPtr plain = LoadModelFromString(xml), wide = LoadModelFromString(xml);
  for (int g = 0; g < wide->ngeom; g++) wide->geom_gap[g] += 0.5 * kDelta;
  DataPtr a(mj_makeData(plain.get())), b(mj_makeData(wide.get()));
  for (int i = 0; i < 6; i++) a->qvel[i] = sc.v[i];
  mj_forward(plain.get(), a.get());
  mj_copyData(b.get(), wide.get(), a.get());
  const int base = out.contacts;
  for (int k = 0; k < 300; k++) {
    mj_step(plain.get(), a.get());
    mj_step(wide.get(), b.get());
    bool active = false;
    for (int i = 0; i < a->ncon; i++) active |= a->contact[i].exclude == 0;
    out.contacts += active;
    if (out.bitwise && (std::memcmp(a->qpos, b->qpos, sizeof(mjtNum) * plain->nq) != 0 ||
                        std::memcmp(a->qvel, b->qvel, sizeof(mjtNum) * plain->nv) != 0)) {
      out.bitwise = false;
      out.first_difference = k;
    }
  }
  if (out.contacts == base) out.untouched++;
  // near contact: place geom 2 at distance s above geom 1 (bisection on the body's height)
  DataPtr c(mj_makeData(wide.get()));
  auto listed_at = [&](double s, double* dist) {
    mj_resetData(wide.get(), c.get());
    double lo = -0.5, hi = 1.0;  // offsets of z
    const double z0 = c->qpos[2];
    for (int it = 0; it < 100; it++) {
      const double mid = 0.5 * (lo + hi);
      c->qpos[2] = z0 + mid;
      mj_kinematics(wide.get(), c.get());
      mjtNum fromto[6];
      const double dd = mj_geomDistance(wide.get(), c.get(), 0, 1, 1.0, fromto);
      (dd > s ? hi : lo) = mid;
    }
    c->qpos[2] = z0 + 0.5 * (lo + hi);
    mj_forward(wide.get(), c.get());
    bool listed = false;
    *dist = INFINITY;
    for (int i = 0; i < c->ncon; i++) {
      if (c->contact[i].exclude == 1) {
        listed = true;
        *dist = std::min(*dist, static_cast<double>(c->contact[i].dist));
      }
    }
    return listed;
  };
  double dist = 0;
  const double s = 0.4 * kDelta;
  if (listed_at(s, &dist)) {
    const double err = std::abs(dist - s);
    out.dist_error = std::isnan(out.dist_error) ? err : std::max(out.dist_error, err);
    if (err >= 1e-6) out.reports = false;
  } else {
    out.reports = false;
  }
  out.listed_beyond |= listed_at(1.5 * kDelta, &dist);
}

PairOutcome RunPair(const std::string& t1, const std::string& t2) {
  PairOutcome out;
  for (const Scenario& sc : kScenarios) RunScenario(t1, t2, sc, out);
  return out;
}

// What the hook assumes: GapWideningIsExact (near_contacts.h)
int GeomType(const std::string& name) {
  const std::pair<const char*, int> types[] = {{"plane", mjGEOM_PLANE},         {"sphere", mjGEOM_SPHERE},
                                               {"capsule", mjGEOM_CAPSULE},     {"box", mjGEOM_BOX},
                                               {"cylinder", mjGEOM_CYLINDER},   {"ellipsoid", mjGEOM_ELLIPSOID},
                                               {"mesh", mjGEOM_MESH}};
  for (const auto& [n, t] : types) {
    if (name == n) return t;
  }
  ADD_FAILURE() << "unknown geom type " << name;
  return -1;
}

bool HookTracks(const std::string& t1, const std::string& t2) {
  return GapWideningIsExact(GeomType(t1), GeomType(t2));
}

TEST_F(MujocoFacts, GapWidening) {
  std::printf("[ gaps ] %-10s %-10s %-8s %-7s %-8s %-10s %-8s %s\n", "geom1", "geom2", "bitwise", "steps", "reports",
              "|dist-s|", "beyond", "hook tracks");
  for (const char* t1 : kTypes) {
    for (const char* t2 : kTypes) {
      if (std::string(t2) == "plane") continue;
      // each unordered pair once (geom 1 fixed), plus the plane against each
      if (std::string(t1) != "plane" &&
          std::find(std::begin(kTypes), std::end(kTypes), std::string(t2)) <
              std::find(std::begin(kTypes), std::end(kTypes), std::string(t1))) {
        continue;
      }
      SCOPED_TRACE(std::string(t1) + "/" + t2);
      const PairOutcome o = RunPair(t1, t2);
      const bool tracked = HookTracks(t1, t2);
      std::printf("[ gaps ] %-10s %-10s %-8s %-7d %-8s %-10.1e %-8s %s\n", t1, t2,
                  o.bitwise ? "yes" : ("no@" + std::to_string(o.first_difference)).c_str(), o.contacts,
                  o.reports ? "yes" : "no", o.dist_error, o.listed_beyond ? "listed" : "-", tracked ? "yes" : "no");
      EXPECT_EQ(o.untouched, 0) << "a scenario never touched";
      if (tracked) {
        EXPECT_TRUE(o.bitwise) << "first difference at step " << o.first_difference;
        EXPECT_TRUE(o.reports) << "|dist - s| = " << o.dist_error;
        EXPECT_FALSE(o.listed_beyond);
      } else {
        // and every pair for which widening is exact is tracked
        EXPECT_FALSE(o.bitwise && o.reports && !o.listed_beyond) << "exact here, but the hook does not track it";
      }
    }
  }
}

}  // namespace
}  // namespace saltation::testing

namespace saltation::testing {
namespace {

// A rod on a hinge about z, its tip (L from the axis) held to a world point by an equality: a
// connect, or a weld — whose rod-side point is its relpose's position and its world-side point
// its anchor (MuJoCo 4's weld reads eq_data the other way round from a connect), put apart here so
// that reading them the wrong way round would show.
constexpr double kRodLength = 0.7;
std::string RodHeldBy(const std::string& equality) {
  return R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <worldbody>
    <body name="rod">
      <joint name="hinge" type="hinge" axis="0 0 1"/>
      <geom type="capsule" fromto="0 0 0 0.7 0 0" size="0.02" mass="1"/>
    </body>
  </worldbody>
  <equality>)" + equality + "</equality>\n</mujoco>";
}

// The worst relative errors of the equality's translational bias (its first three rows) against
// the tip's centripetal acceleration −ω² p over three states: ConstraintBias's, and the five-point
// stencil's on the same rows for contrast.
std::pair<double, double> TipBiasErrors(const std::string& xml, int rows) {
  ModelPtr mm = LoadModelFromString(xml);
  Model model(mm.get());
  Data data(model);
  const mjModel* m = mm.get();
  double worst_exact = 0, worst_stencil = 0;
  for (const auto& [theta, omega] : {std::pair{0.3, 2.0}, std::pair{1.9, -7.5}, std::pair{-2.6, 31.0}}) {
    State x = StateFromData(m, data.main());
    x.qpos[0] = theta;
    x.qvel[0] = omega;
    const Eigen::VectorXd bias = ConstraintBias(model, data, x, {});
    EXPECT_EQ(bias.size(), rows);
    // J = J_tip(rod) − J(world): J̇v is the tip's acceleration at zero angular acceleration
    const Eigen::Vector3d tip(kRodLength * std::cos(theta), kRodLength * std::sin(theta), 0);
    const Eigen::Vector3d expected = -omega * omega * tip;
    worst_exact = std::max(worst_exact, (bias.head(3) - expected).norm() / expected.norm());
    const double h = model.options().jdot_step;
    auto rows_v = [&](double s) {
      Eigen::VectorXd q = x.qpos;
      mj_integratePos(m, q.data(), x.qvel.data(), s);
      EvaluatePosition(model, data.aux(), q.data());
      RowMatrix equality;
      EqualityRows(model, data.aux(), equality);
      return Eigen::VectorXd(equality.topRows(3) * x.qvel);
    };
    const Eigen::VectorXd stencil = (rows_v(-2 * h) - 8 * rows_v(-h) + 8 * rows_v(h) - rows_v(2 * h)) / (12 * h);
    worst_stencil = std::max(worst_stencil, (stencil - expected).norm() / expected.norm());
  }
  return {worst_exact, worst_stencil};
}

// MuJoCo 4's mj_jacDot is the exact J̇ of a point fixed on a body, so the constraint bias of a
// connect equality (both anchors body-fixed) is exact: the tip's centripetal acceleration
// −ω² p, to round-off, where the five-point stencil the other rows use is off by its O(h⁴) and
// round-off error. (Contact points move on the surfaces and a weld's rotation rows carry the
// quaternion error: there the stencil stays.)
TEST_F(MujocoFacts, JacDotGivesTheConnectBiasExactly) {
  const auto [exact, stencil] = TipBiasErrors(RodHeldBy(R"(<connect body1="rod" body2="world" anchor="0.7 0 0"/>)"), 3);
  std::printf("[ jacDot ] connect bias vs -w^2 p: mj_jacDot %.1e, five-point stencil %.1e (relative)\n", exact, stencil);
  EXPECT_LE(exact, 1e-14);
  EXPECT_GT(stencil, exact);
}

// The same for a weld's translational rows (its two points are body-fixed too; its rotation rows
// keep the stencil), with the weld's own reading of eq_data.
TEST_F(MujocoFacts, JacDotGivesTheWeldBiasExactly) {
  const auto [exact, stencil] =
      TipBiasErrors(RodHeldBy(R"(<weld body1="rod" body2="world" anchor="0.3 0.1 0" relpose="0.7 0 0 1 0 0 0"/>)"), 6);
  std::printf("[ jacDot ] weld translational bias vs -w^2 p: mj_jacDot %.1e, five-point stencil %.1e (relative)\n",
              exact, stencil);
  EXPECT_LE(exact, 1e-14);
  EXPECT_GT(stencil, exact);
}

// A ball rolling on the floor (test_models.h's free ball, turning about y): the contact point is
// no material point of the ball — it stays under the centre while the ball turns — so the normal
// row J_n = ∂z/∂q is constant and the true J̇_n v is 0. mj_jacDot at the contact point treats it as
// fixed on the ball and gives the material point's centripetal term R ω² instead: why the contact
// rows keep the stencil along the motion (contact points recomputed), which gets the 0.
TEST_F(MujocoFacts, JacDotIsNotTheBiasOfARollingContact) {
  constexpr double kRadius = 0.1;  // kFreeBall's
  ModelPtr ball = LoadModelFromString(kFreeBall);
  const mjModel* m = ball.get();
  Model model(m);
  Data data(model);
  State x = StateFromData(m, data.main());
  for (const double omega : {3.0, -12.0}) {
    // the centre at R (touching), turned by 0.7 rad about y; ω about y, v = ω R: rolling
    x.qpos << 0.4, 0, kRadius, std::cos(0.35), 0, std::sin(0.35), 0;
    x.qvel << omega * kRadius, 0, 0, 0, omega, 0;
    EvaluatePosition(model, data.aux(), x.qpos.data());
    std::vector<ContactPoint> points;
    ListContacts(model, data.aux(), points);
    ASSERT_EQ(points.size(), 1u);
    const ContactPoint p = points[0];
    ASSERT_NEAR(p.gap, 0, 1e-12);
    // the bias the library uses: the stencil along the motion, the point recomputed
    const double stencil = ConstraintBias(model, data, x, {p.id})(0);
    // mj_jacDot at the contact point, as if it were fixed on the ball (the floor is the world)
    EvaluatePosition(model, data.aux(), x.qpos.data());
    mju_copy(data.aux()->qvel, x.qvel.data(), m->nv);
    mj_comVel(m, data.aux());
    RowMatrix jdot(3, m->nv);
    mj_jacDot(m, data.aux(), jdot.data(), nullptr, p.pos.data(), m->geom_bodyid[p.id.geom2]);
    const double material = p.frame.row(0).dot(jdot * x.qvel);
    std::printf("[ jacDot ] rolling ball, omega %g: true J_n-dot v 0, stencil %.1e, mj_jacDot %.6g (R w^2 %.6g)\n",
                omega, stencil, material, kRadius * omega * omega);
    EXPECT_LE(std::abs(stencil), 1e-8);
    EXPECT_NEAR(material, kRadius * omega * omega, 1e-9 * omega * omega);
  }
}

}  // namespace
}  // namespace saltation::testing
