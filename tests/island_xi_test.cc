// Ξ of one robot among others costs and equals the robot's alone (issue 15): MuJoCo's passes on the
// event's island (island_passes.h) place the static, mocap and world bodies as a whole pass does,
// the touchdown's position stage collides only the pairs touching the island, and the impact's
// probes (ImpactResetJacobian's ∂v⁺/∂q), its energies and the transversality are the island's.
#include <cmath>
#include <string>
#include <vector>

#include "island_passes.h"
#include "saltation/guards.h"
#include "saltation/impact.h"
#include "saltation/islands.h"
#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// A one-legged robot (kOneLeggedRobot, test_models.h) landing on a mocap pad,
// a static step (a body welded to the world), the floor; `other`: a second robot, a free ball
// flying over the step (its dofs after the leg's)
std::string Scene(bool other) {
  std::string xml = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="20 20 0.1"/>
    <site name="mark" pos="1 2 0.5" quat="0.9 0.1 0.2 0.3"/>
    <body name="step" pos="3 0 0.05" euler="0 0 20"><geom name="step" type="box" size="0.3 0.3 0.05"/></body>
    <body name="pad" mocap="true" pos="0 0 -1"><geom name="pad" type="box" size="0.2 0.2 0.02"/></body>
)";
  xml += kOneLeggedRobot;
  if (other) xml += R"(<body name="other" pos="3 0 1"><freejoint/><geom name="other" type="sphere" size="0.1" mass="3"/></body>)";
  return xml + "\n  </worldbody>\n</mujoco>";
}

// the pad moved from its model place (under the floor) to under the foot, turned about z: its top
// at z = 0.12
void MovePad(mjData* d) {
  d->mocap_pos[0] = 0.15;
  d->mocap_pos[1] = 0;
  d->mocap_pos[2] = 0.1;
  d->mocap_quat[0] = std::cos(0.15);
  d->mocap_quat[1] = d->mocap_quat[2] = 0;
  d->mocap_quat[3] = std::sin(0.15);
}

// the leg at its touchdown on the pad (foot centre 0.28 below the trunk at knee 0), falling,
// pitching and bending; the ball flying and spinning over the step
State LegOnPad(const mjModel* m) {
  State x = StateFromData(m, DataPtr(mj_makeData(m)).get());
  x.qpos(2) = 0.12 + 0.25 + 0.03;
  x.qvel.setZero();
  x.qvel(0) = 0.4;
  x.qvel(2) = -1.3;
  x.qvel(4) = 0.7;
  x.qvel(6) = -2.0;
  if (m->nv > 7) {
    x.qpos(9) = 0.6;
    x.qvel.tail(6) << 1.0, 0.5, -2.0, 3.0, -1.0, 2.0;
  }
  return x;
}

ContactId FootOnPad(const Model& model, Data& data, const State& x) {
  MovePad(data.main());
  EvaluatePosition(model, data.main(), x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  const int foot = mj_name2id(model.mj(), mjOBJ_GEOM, "foot"), pad = mj_name2id(model.mj(), mjOBJ_GEOM, "pad");
  for (const ContactPoint& p : points) {
    if ((p.id.geom1 == foot && p.id.geom2 == pad) || (p.id.geom1 == pad && p.id.geom2 == foot)) return p.id;
  }
  ADD_FAILURE() << "the foot does not touch the pad";
  return {};
}

// On fresh mjData (no whole pass ever ran on them), the island's passes place the world's geoms and
// sites, the static step and the moved mocap pad bit for bit as the whole passes, and give the same
// island contacts and the same M block
TEST(IslandXi, PassesPlaceStaticMocapAndWorldBodiesAsTheWholePass) {
  ModelPtr m = LoadModelFromString(Scene(true));
  Model model(m.get());
  Data data(model), asleep(model), whole(model);
  const State x = LegOnPad(m.get());
  const ContactId foot = FootOnPad(model, data, x);
  const Island island = IslandOf(model, {foot}, {foot});
  ASSERT_FALSE(island.whole);
  ASSERT_EQ(island.dofs.size(), 7u);
  mjData* a = asleep.aux();
  mjData* b = whole.aux();
  MovePad(a);
  MovePad(b);
  EvaluatePosition(model, a, x.qpos.data(), SleepOutside(model, a, island));
  EvaluatePosition(model, b, x.qpos.data());
  for (const char* name : {"floor", "step", "pad", "trunk", "foot"}) {
    const int g = mj_name2id(m.get(), mjOBJ_GEOM, name);
    for (int k = 0; k < 3; k++) EXPECT_EQ(a->geom_xpos[3 * g + k], b->geom_xpos[3 * g + k]) << name;
    for (int k = 0; k < 9; k++) EXPECT_EQ(a->geom_xmat[9 * g + k], b->geom_xmat[9 * g + k]) << name;
  }
  const int pad = mj_name2id(m.get(), mjOBJ_GEOM, "pad");
  EXPECT_EQ(a->geom_xpos[3 * pad + 2], 0.1);  // at the mocap body's place, not the model's
  const int mark = mj_name2id(m.get(), mjOBJ_SITE, "mark");
  for (int k = 0; k < 9; k++) EXPECT_EQ(a->site_xmat[9 * mark + k], b->site_xmat[9 * mark + k]);
  // the island's contacts (the foot on the pad, and the pairs in the detection band: the trunk over
  // the pad, the foot over the floor): the same points in the same order
  std::vector<ContactPoint> pa, pb, ia, ib;
  ListContacts(model, a, pa);
  ListContacts(model, b, pb);
  for (const ContactPoint& p : pa) {
    if (island.Contains(m.get(), p.id)) ia.push_back(p);
  }
  for (const ContactPoint& p : pb) {
    if (island.Contains(m.get(), p.id)) ib.push_back(p);
  }
  ASSERT_GE(ib.size(), 2u);
  ASSERT_EQ(ia.size(), ib.size());
  for (size_t k = 0; k < ia.size(); k++) {
    EXPECT_TRUE(ia[k].id.SamePair(ib[k].id));
    EXPECT_EQ(ia[k].gap, ib[k].gap);
    EXPECT_EQ((ia[k].pos - ib[k].pos).norm(), 0.0);
  }
  RowMatrix Ma(m->nv, m->nv), Mb(m->nv, m->nv);
  mj_fullM(m.get(), a, Ma.data());
  mj_fullM(m.get(), b, Mb.data());
  EXPECT_EQ((Ma.topLeftCorner(7, 7) - Mb.topLeftCorner(7, 7)).cwiseAbs().maxCoeff(), 0.0);
}

// The leg landing on the pad while the ball flies: its touchdown (position stage, impact, DΔ's
// probes, F±, Ξ) on the island equals the leg's alone, where the island is the whole model: Ξ's leg
// block to 1e-12, exactly the identity elsewhere; v⁺ the leg's, the ball's velocity untouched;
// the transversality and the impact's energies are the leg's (the flying ball's energy left out:
// with it, the leg's share of the energy would read as a graze)
TEST(IslandXi, TouchdownAmongMovingBodiesIsTheRobotsAlone) {
  ModelPtr m = LoadModelFromString(Scene(true));
  ModelPtr m1 = LoadModelFromString(Scene(false));
  Model model(m.get()), model1(m1.get());
  Data data(model), data1(model1);
  const State x = LegOnPad(m.get()), x1 = LegOnPad(m1.get());
  const ContactId foot = FootOnPad(model, data, x), foot1 = FootOnPad(model1, data1, x1);
  const RestitutionTable table(model), table1(model1);
  const RigidEvent ev = TouchdownEvent(model, data, table, x, Mode{}, foot, 1e-9, DefaultForceTolerance(m.get()));
  const RigidEvent ev1 = TouchdownEvent(model1, data1, table1, x1, Mode{}, foot1, 1e-9, DefaultForceTolerance(m1.get()));
  ASSERT_TRUE(ev.complete && ev1.complete);
  ASSERT_FALSE(ev.island.whole);
  ASSERT_TRUE(ev1.island.whole);
  ASSERT_EQ(ev.impact.candidates.size(), 1u);
  ASSERT_EQ(ev1.impact.candidates.size(), 1u);
  EXPECT_EQ((ev.point - ev1.point).norm(), 0.0);

  const int nv = m->nv, nv1 = m1->nv;  // the leg's dofs first in both
  EXPECT_LE((ev.impact.qvel_plus.head(nv1) - ev1.impact.qvel_plus).cwiseAbs().maxCoeff(),
            1e-12 * ev1.impact.qvel_plus.cwiseAbs().maxCoeff());
  EXPECT_EQ((ev.impact.qvel_plus.tail(nv - nv1) - x.qvel.tail(nv - nv1)).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_NEAR(ev.impact.kinetic_energy_minus, ev1.impact.kinetic_energy_minus, 1e-12 * ev1.impact.kinetic_energy_minus);
  EXPECT_NEAR(ev.impact.kinetic_energy_plus, ev1.impact.kinetic_energy_plus, 1e-12 * ev1.impact.kinetic_energy_minus);
  ASSERT_GT(ev1.xi.transversality_rel, 0.05);
  ASSERT_LT(ev1.xi.transversality_rel, 0.95);  // the trunk's motion counts: not trivially head-on
  EXPECT_NEAR(ev.xi.transversality_rel, ev1.xi.transversality_rel, 1e-12);
  // the whole model's measure reads the ball's energy too (what the island leaves out)
  mjData* d = data.main();
  EvaluatePosition(model, d, x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, d, points);
  const int i = MatchContact(ev.contact, points);
  ASSERT_GE(i, 0);
  const Eigen::VectorXd grad = TouchdownGuardGradient(model, d, points[i], data.work());
  EXPECT_LT(KineticTransversality(model, d, grad, x.qvel), 0.8 * ev.xi.transversality_rel);

  // DΔ by the impact's equations on the island: the same blocks as the leg's alone
  const ResetJacobian reset = ImpactResetJacobian(model, data, table, x, ev.impact.ImpulseSet());
  const ResetJacobian reset1 = ImpactResetJacobian(model1, data1, table1, x1, ev1.impact.ImpulseSet());
  EXPECT_EQ(reset.dv_dq_method, ConfigurationBlockMethod::kEquations);
  EXPECT_EQ(reset1.dv_dq_method, ConfigurationBlockMethod::kEquations);
  ASSERT_EQ(reset.dofs.size(), 7u);
  const double dq_scale = reset1.dv_dq.cwiseAbs().maxCoeff();
  ASSERT_GT(dq_scale, 0.1);
  EXPECT_LE((reset.dv_dq - reset1.dv_dq).cwiseAbs().maxCoeff(), 1e-12 * dq_scale);
  EXPECT_LE((reset.dv_dv - reset1.dv_dv).cwiseAbs().maxCoeff(), 1e-12 * reset1.dv_dv.cwiseAbs().maxCoeff());

  const Eigen::MatrixXd xi = ev.xi.Dense(), xi1 = ev1.xi.Dense();
  const double scale = xi1.cwiseAbs().maxCoeff();
  ASSERT_GT((xi1 - Eigen::MatrixXd::Identity(2 * nv1, 2 * nv1)).cwiseAbs().maxCoeff(), 0.1);
  const BlockAgainstAlone error = CompareWithAlone(xi, nv, xi1, nv1);
  EXPECT_LE(error.block, 1e-12 * scale);
  EXPECT_EQ(error.outside, 0.0);
}

}  // namespace
}  // namespace saltation::testing
