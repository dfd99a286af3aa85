// Contact islands (islands.h): which trees an event reaches, and that restricting an event to its
// island gives exactly the event of the robot alone, with Ξ the identity on every other tree.
#include <Eigen/SVD>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "force_island.h"
#include "island_passes.h"
#include "saltation/islands.h"
#include "saltation/saltation_matrix.h"
#include "hook_group.h"
#include "test_models.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// A one-legged robot (kOneLeggedRobot, test_models.h: a sphere foot of radius 0.03 whose centre is 0.25 m
// below the trunk's origin at knee angle 0), then `balls` free balls of radius 0.1 resting in a
// row; `weld` welds the last two balls together.
std::string Scene(int balls, bool weld = false) {
  std::string xml = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="20 20 0.1"/>
)";
  xml += kOneLeggedRobot;
  for (int k = 0; k < balls; k++) {
    const std::string name = "ball" + std::to_string(k);
    xml += "\n    <body name=\"" + name + "\" pos=\"" + std::to_string(2 + 1.5 * k) + " 0 0.1\"><freejoint/>" +
           "<geom name=\"" + name + "\" type=\"sphere\" size=\"0.1\" mass=\"" + std::to_string(1 + 0.5 * k) +
           "\"/></body>";
  }
  xml += "\n  </worldbody>";
  if (weld) {
    xml += "\n  <equality><weld body1=\"ball" + std::to_string(balls - 2) + "\" body2=\"ball" +
           std::to_string(balls - 1) + "\"/></equality>";
  }
  return xml + "\n</mujoco>";
}

// The leg's state at its touchdown: the foot's sphere on the floor (gap 0), trunk level, falling and
// turning; the balls at rest on the floor
State LegTouching(const mjModel* m) {
  State x = StateFromData(m, DataPtr(mj_makeData(m)).get());
  x.qpos(2) = 0.25 + 0.03;  // trunk height: the foot's centre 0.25 m below, radius 0.03
  x.qvel.setZero();
  x.qvel(0) = 0.4;    // forward
  x.qvel(2) = -1.3;   // down
  x.qvel(4) = 0.7;    // pitching
  x.qvel(6) = -2.0;   // knee
  return x;
}

// M (nv × nv) as d holds it (mj_fullM of d's sparse M)
Eigen::MatrixXd MassMatrixOf(const mjModel* m, const mjData* d) {
  RowMatrix M(m->nv, m->nv);
  mj_fullM(m, d, M.data());
  return M;
}

ContactId Contact(const Model& model, Data& data, const State& x, const std::string& geom) {
  EvaluatePosition(model, data.main(), x.qpos.data());
  std::vector<ContactPoint> points;
  ListContacts(model, data.main(), points);
  const int g = mj_name2id(model.mj(), mjOBJ_GEOM, geom.c_str());
  for (const ContactPoint& p : points) {
    if (p.id.geom1 == g || p.id.geom2 == g) return p.id;
  }
  ADD_FAILURE() << "no contact of " << geom;
  return {};
}

TEST(Islands, FollowTreesContactsAndEqualities) {
  ModelPtr m = LoadModelFromString(Scene(3));
  Model model(m.get());
  Data data(model);
  const State x = LegTouching(m.get());
  const ContactId foot = Contact(model, data, x, "foot");
  const ContactId ball0 = Contact(model, data, x, "ball0");

  // the foot alone reaches the leg's 7 degrees of freedom (free trunk, knee)
  const Island leg = IslandOf(model, {ball0}, {foot});
  EXPECT_FALSE(leg.whole);
  EXPECT_EQ(leg.dofs, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(leg.Contains(m.get(), foot));
  EXPECT_FALSE(leg.Contains(m.get(), ball0));

  // a contact between the leg and ball 1 links their trees
  ContactId touch;
  touch.geom1 = mj_name2id(m.get(), mjOBJ_GEOM, "foot");
  touch.geom2 = mj_name2id(m.get(), mjOBJ_GEOM, "ball1");
  const Island linked = IslandOf(model, {ball0, touch}, {foot});
  std::vector<int> expected = {0, 1, 2, 3, 4, 5, 6};
  for (int j = 13; j < 19; j++) expected.push_back(j);
  EXPECT_EQ(linked.dofs, expected);

  // seeds on every tree: the whole model
  EXPECT_TRUE(IslandOf(model, {touch}, {foot, ball0, Contact(model, data, x, "ball2")}).whole);

  // a weld: the welded balls belong to every island (their rows are in every mode's solve)
  ModelPtr welded = LoadModelFromString(Scene(3, true));
  Model welded_model(welded.get());
  const Island with_weld = IslandOf(welded_model, {}, {foot});
  expected = {0, 1, 2, 3, 4, 5, 6};
  for (int j = 13; j < 25; j++) expected.push_back(j);
  EXPECT_EQ(with_weld.dofs, expected);

  // one tree: no restriction
  ModelPtr alone = LoadModelFromString(Scene(0));
  Model alone_model(alone.get());
  EXPECT_TRUE(IslandOf(alone_model, {}, {foot}).whole);
}

// ForceIsland (force_island.h) keeps a ball's island when nothing couples the trees' smooth forces
// (a motor on another tree's hinge), and gives the whole model for each reason the Model finds
// once (model_forces.h) — an equality constraint, an activation state, an adhesion (body)
// transmission, a control law — and for a passive-force callback set after the Model was made
// (read on every call: cleared, the island is back).
TEST(Islands, ForceIslandIsWholeWhenForcesReachAcrossTrees) {
  auto scene = [](const std::string& extra) {
    return std::string(R"(<mujoco><worldbody><geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="a" pos="0 0 1"><freejoint/><geom name="a" size="0.1"/></body>
    <body name="p" pos="1 0 1"><joint name="hp" type="hinge"/><geom name="p" size="0.1"/></body>
    <body name="q" pos="2 0 1"><freejoint/><geom name="q" size="0.1"/></body></worldbody>)") +
           extra + "</mujoco>";
  };
  auto island_of_a = [](const Model& model) {
    ContactId id;
    id.geom1 = mj_name2id(model.mj(), mjOBJ_GEOM, "floor");
    id.geom2 = mj_name2id(model.mj(), mjOBJ_GEOM, "a");
    return IslandOf(model, {}, {id});
  };
  const std::string motor = R"(<actuator><motor joint="hp"/></actuator>)";
  {
    ModelPtr m = LoadModelFromString(scene(motor));
    Model model(m.get());
    const Island island = island_of_a(model);
    ASSERT_FALSE(island.whole);
    EXPECT_EQ(island.dofs.size(), 6u);
    EXPECT_EQ(ForceIsland(model, island).dofs, island.dofs);
    mjcb_passive = [](const mjModel*, mjData*) {};
    EXPECT_TRUE(ForceIsland(model, island).whole);
    mjcb_passive = nullptr;
    EXPECT_FALSE(ForceIsland(model, island).whole);
  }
  const std::pair<const char*, std::string> reasons[] = {
      // (q welded to the world: its tree is in every island, p's stays out)
      {"equality", R"(<equality><weld body1="q"/></equality>)"},
      {"activation", R"(<actuator><general joint="hp" dyntype="filter" dynprm="0.1"/></actuator>)"},
      {"adhesion", R"(<actuator><adhesion body="p" ctrlrange="0 1"/></actuator>)"},
  };
  for (const auto& [name, extra] : reasons) {
    ModelPtr m = LoadModelFromString(scene(extra));
    Model model(m.get());
    const Island island = island_of_a(model);
    ASSERT_FALSE(island.whole) << name;
    const Island forces = ForceIsland(model, island);
    EXPECT_TRUE(forces.whole) << name;
    EXPECT_EQ(static_cast<int>(forces.dofs.size()), m->nv) << name;
  }
  ModelPtr m = LoadModelFromString(scene(motor));
  Options options;
  options.control = [](double, const mjtNum*, const mjtNum*, mjtNum* ctrl) { ctrl[0] = 0; };
  Model controlled(m.get(), options);
  const Island island = island_of_a(controlled);
  ASSERT_FALSE(island.whole);
  EXPECT_TRUE(ForceIsland(controlled, island).whole) << "control law";
}

// Trees coupled by forces rather than constraints: a damped spatial tendon through three balls
// joins all three (its damping reads every ball's velocity: an impact on one changes the others'
// accelerations); a fixed tendon with stiffness alone over two hinges joins them too (the flow);
// an actuator from a site to a reference site on another tree joins those two; a ball that nothing
// couples stays alone. Seeded by a contact of each ball with the floor.
TEST(Islands, TreesCoupledByTendonsAndSiteActuatorsAreJoined) {
  const char* xml = R"(
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="a" pos="0 0 1"><freejoint/><geom name="ga" size="0.1"/><site name="sa"/></body>
    <body name="b" pos="1 0 1"><freejoint/><geom name="gb" size="0.1"/><site name="sb"/></body>
    <body name="c" pos="2 0 1"><freejoint/><geom name="gc" size="0.1"/><site name="sc"/></body>
    <body name="d" pos="3 0 1"><freejoint/><geom name="gd" size="0.1"/><site name="sd"/></body>
    <body name="e" pos="4 0 1"><freejoint/><geom name="ge" size="0.1"/><site name="se"/></body>
    <body name="f" pos="5 0 1"><freejoint/><geom name="gf" size="0.1"/></body>
    <body name="p" pos="0 2 1"><joint name="hp" type="hinge"/><geom name="gp" size="0.1"/></body>
    <body name="q" pos="1 2 1"><joint name="hq" type="hinge"/><geom name="gq" size="0.1"/></body>
  </worldbody>
  <tendon>
    <spatial damping="3"><site site="sa"/><site site="sb"/><site site="sc"/></spatial>
    <fixed stiffness="10"><joint joint="hp" coef="1"/><joint joint="hq" coef="-1"/></fixed>
  </tendon>
  <actuator><general site="sd" refsite="se" gear="1 0 0 0 0 0"/></actuator>
</mujoco>)";
  ModelPtr m = LoadModelFromString(xml);
  Model model(m.get());
  auto on_floor = [&](const char* geom) {
    ContactId id;
    id.geom1 = mj_name2id(m.get(), mjOBJ_GEOM, "floor");
    id.geom2 = mj_name2id(m.get(), mjOBJ_GEOM, geom);
    return id;
  };
  auto trees = [&](const Island& island) {
    std::string names;
    for (int b = 1; b < m->nbody; b++) {
      if (island.whole || island.tree[m->body_treeid[b]]) names += mj_id2name(m.get(), mjOBJ_BODY, b);
    }
    return names;
  };
  EXPECT_EQ(trees(IslandOf(model, {}, {on_floor("gb")})), "abc");
  EXPECT_EQ(trees(IslandOf(model, {}, {on_floor("gd")})), "de");
  EXPECT_EQ(trees(IslandOf(model, {}, {on_floor("gf")})), "f");
  EXPECT_EQ(trees(IslandOf(model, {}, {on_floor("gq")})), "pq");
  EXPECT_EQ(IslandOf(model, {}, {on_floor("gf")}).dofs, (std::vector<int>{30, 31, 32, 33, 34, 35}));
}

// Ξ of the leg's touchdown with resting balls in the mode, against the same touchdown in the
// model of the leg alone: the leg's block agrees to rounding, every other entry is the identity's
TEST(Islands, TouchdownAmongRestingBodiesIsTheRobotsAlone) {
  ModelPtr m = LoadModelFromString(Scene(4));
  ModelPtr m1 = LoadModelFromString(Scene(0));
  Model model(m.get()), model1(m1.get());
  Data data(model), data1(model1);
  const State x = LegTouching(m.get());
  State x1 = LegTouching(m1.get());
  Mode resting;
  for (int k = 0; k < 4; k++) resting.contacts.push_back(Contact(model, data, x, "ball" + std::to_string(k)));
  const RigidEvent ev = TouchdownEvent(model, data, RestitutionTable(model), x, resting,
                                       Contact(model, data, x, "foot"), 1e-9, DefaultForceTolerance(m.get()));
  const RigidEvent ev1 = TouchdownEvent(model1, data1, RestitutionTable(model1), x1, Mode{},
                                        Contact(model1, data1, x1, "foot"), 1e-9, DefaultForceTolerance(m1.get()));
  ASSERT_TRUE(ev.complete && ev1.complete);
  EXPECT_EQ(ev.mode_after.contacts.size(), 4 + ev1.mode_after.contacts.size());
  EXPECT_EQ(JoiningContacts(m.get(), ev), 1);

  const int nv = m->nv, nv1 = m1->nv;  // the leg's dofs come first in both
  const Eigen::MatrixXd xi = ev.xi.Dense(), xi1 = ev1.xi.Dense();
  const double scale = xi1.cwiseAbs().maxCoeff();
  ASSERT_GT((xi1 - Eigen::MatrixXd::Identity(2 * nv1, 2 * nv1)).cwiseAbs().maxCoeff(), 0.1);  // not trivial
  const BlockAgainstAlone error = CompareWithAlone(xi, nv, xi1, nv1);
  EXPECT_LE(error.block, 1e-12 * scale);
  EXPECT_EQ(error.outside, 0.0);
}

// DΔ of a touchdown among resting bodies is restricted to the event's island (ResetJacobian::dofs:
// the leg's trees), exactly the identity off it, and Ξ's products read only the island's blocks:
// Apply, ApplyTranspose, the correction and Norm agree to 1e-12 with the same Ξ taken as dense
// (every dof), on vectors that are non-zero on every coordinate
TEST(Islands, RestrictedResetProductsEqualTheDenseOnes) {
  ModelPtr m = LoadModelFromString(Scene(4));
  Model model(m.get());
  Data data(model);
  const State x = LegTouching(m.get());
  Mode resting;
  for (int k = 0; k < 4; k++) resting.contacts.push_back(Contact(model, data, x, "ball" + std::to_string(k)));
  const RigidEvent ev = TouchdownEvent(model, data, RestitutionTable(model), x, resting,
                                       Contact(model, data, x, "foot"), 1e-9, DefaultForceTolerance(m.get()));
  ASSERT_TRUE(ev.complete);
  const int nv = m->nv, ndx = model.ndx();
  const ResetJacobian& reset = ev.xi.reset;
  ASSERT_TRUE(reset.Restricted());
  EXPECT_EQ(reset.dofs, ev.island.dofs);
  EXPECT_EQ(static_cast<int>(reset.dofs.size()), 7);  // the leg: free trunk and knee
  // only the island's blocks are held (an event among many bodies: |dofs|², not nv²) ...
  EXPECT_EQ(reset.dv_dq.rows(), 7);
  EXPECT_EQ(reset.dv_dv.cols(), 7);
  // ... and off the island the impact map's finite-difference twin (SolveImpact re-solved per
  // probe, nothing restricted) is the identity's velocity rows to its truncation
  const Eigen::MatrixXd fd = ImpactResetJacobianFD(model, data, RestitutionTable(model), ev.x_minus, ev.impact.candidates);
  std::vector<char> in(nv, 0);
  for (int i : reset.dofs) in[i] = 1;
  double off = 0, on = 0;
  for (int r = 0; r < nv; r++) {
    for (int c = 0; c < 2 * nv; c++) {
      const double entry = std::abs(fd(nv + r, c) - (c == nv + r ? 1.0 : 0.0));
      if (in[r] && in[c % nv]) {
        on = std::max(on, std::abs(fd(nv + r, c) - (c < nv ? reset.DvDq(r, c) : reset.DvDv(r, c - nv))));
      } else {
        off = std::max(off, entry);
      }
    }
  }
  EXPECT_LT(off, 1e-8);
  EXPECT_LT(on, 1e-5) << "the island's blocks against the finite-difference twin";

  SaltationMatrix dense = ev.xi;  // the same numbers as nv × nv blocks, every dof read
  dense.reset.dv_dq = reset.DvDqDense();
  dense.reset.dv_dv = reset.DvDvDense();
  dense.reset.all_dofs = true;
  ASSERT_FALSE(dense.reset.Restricted());
  const Eigen::MatrixXd xi = dense.Dense();
  ASSERT_GT((xi - Eigen::MatrixXd::Identity(ndx, ndx)).cwiseAbs().maxCoeff(), 0.1);  // not trivial
  std::srand(7);
  for (int trial = 0; trial < 3; trial++) {
    const Eigen::VectorXd dx = Eigen::VectorXd::Random(ndx) + Eigen::VectorXd::Constant(ndx, 2.0);
    const Eigen::VectorXd a = ev.xi.Apply(dx), b = dense.Apply(dx), c = xi * dx;
    EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-12 * b.cwiseAbs().maxCoeff());
    EXPECT_LE((a - c).cwiseAbs().maxCoeff(), 1e-12 * c.cwiseAbs().maxCoeff());
    const Eigen::VectorXd at = ev.xi.ApplyTranspose(dx), bt = dense.ApplyTranspose(dx), ct = xi.transpose() * dx;
    EXPECT_LE((at - bt).cwiseAbs().maxCoeff(), 1e-12 * bt.cwiseAbs().maxCoeff());
    EXPECT_LE((at - ct).cwiseAbs().maxCoeff(), 1e-12 * ct.cwiseAbs().maxCoeff());
  }
  EXPECT_NEAR(ev.xi.Norm(), dense.Norm(), 1e-12 * dense.Norm());
  // the correction u = (F⁺ − DΔF⁻)/(∇gᵀF⁻) from the restricted product equals the dense one
  const SaltationMatrix again = ComputeSaltation(dense.reset, ev.xi.f_minus, ev.xi.f_plus, ev.xi.grad_g);
  EXPECT_LE((again.correction - ev.xi.correction).cwiseAbs().maxCoeff(), 1e-12 * again.correction.cwiseAbs().maxCoeff());
}

// MuJoCo's passes with the trees outside an island asleep (island_passes.h) give the island's
// bodies, its M block and its contact points exactly as the whole passes do, on a fresh mjData
// (whose world geoms no pass has placed yet) and at a second configuration; a whole island runs
// the whole model
TEST(Islands, PassesWithTheOtherTreesAsleepEqualTheWholeOnTheIsland) {
  ModelPtr m = LoadModelFromString(Scene(4));
  Model model(m.get());
  Data data(model), asleep(model), whole(model);
  State x = LegTouching(m.get());
  const ContactId foot = Contact(model, data, x, "foot");
  const Island island = IslandOf(model, {foot}, {foot});
  ASSERT_FALSE(island.whole);
  mjData* a = asleep.aux();
  mjData* b = whole.aux();
  const mjModel* passes = SleepOutside(model, a, island);
  ASSERT_NE(passes, model.mj());
  EXPECT_EQ(a->nv_awake, 7);
  for (double dz : {0.0, 1e-4}) {
    x.qpos(2) += dz;
    x.qpos(7) += dz;  // the knee
    std::vector<ContactPoint> pa, pb;
    EvaluatePositionForPairs(model, a, x.qpos.data(), {foot}, pa, /*inertia=*/true, passes);
    EvaluatePositionForPairs(model, b, x.qpos.data(), {foot}, pb, /*inertia=*/true);
    ASSERT_EQ(pa.size(), pb.size());
    ASSERT_GT(pa.size(), 0u);
    EXPECT_EQ(pa[0].gap, pb[0].gap);
    EXPECT_EQ((pa[0].pos - pb[0].pos).norm(), 0.0);
    for (int body = 1; body <= 2; body++) {  // trunk and shin
      for (int k = 0; k < 3; k++) {
        EXPECT_EQ(a->xpos[3 * body + k], b->xpos[3 * body + k]);
        EXPECT_EQ(a->subtree_com[3 * body + k], b->subtree_com[3 * body + k]);
      }
    }
    const Eigen::MatrixXd Ma = MassMatrixOf(m.get(), a), Mb = MassMatrixOf(m.get(), b);
    EXPECT_EQ((Ma.topLeftCorner(7, 7) - Mb.topLeftCorner(7, 7)).cwiseAbs().maxCoeff(), 0.0);
  }
  ModelPtr alone = LoadModelFromString(Scene(0));
  Model alone_model(alone.get());
  Data alone_data(alone_model);
  const Island all = IslandOf(alone_model, {}, {Contact(alone_model, alone_data, LegTouching(alone.get()), "foot")});
  EXPECT_TRUE(all.whole);
  EXPECT_EQ(SleepOutside(alone_model, alone_data.aux(), all), alone_model.mj());
}

// A liftoff of the leg's foot while the balls rest: the mode index maps into the island, and Ξ's
// leg block is the leg's alone (∇g = ∂λ_n/∂x by differences on the island's columns only)
TEST(Islands, LiftoffAmongRestingBodiesIsTheRobotsAlone) {
  ModelPtr m = LoadModelFromString(Scene(3));
  ModelPtr m1 = LoadModelFromString(Scene(0));
  Model model(m.get()), model1(m1.get());
  Data data(model), data1(model1);
  State x = LegTouching(m.get()), x1 = LegTouching(m1.get());
  x.qvel(2) = x1.qvel(2) = 0;  // standing on the foot: sliding, pitching, bending
  // the foot between the balls in the mode's order
  Mode mode, mode1;
  mode.contacts = {Contact(model, data, x, "ball0"), Contact(model, data, x, "foot"), Contact(model, data, x, "ball1"),
                   Contact(model, data, x, "ball2")};
  mode1.contacts = {Contact(model1, data1, x1, "foot")};
  const double tol = DefaultForceTolerance(m.get());
  const RigidEvent ev = LiftoffEvent(model, data, RestitutionTable(model), x, mode, 1, tol);
  const RigidEvent ev1 = LiftoffEvent(model1, data1, RestitutionTable(model1), x1, mode1, 0, tol);
  EXPECT_EQ(ev.kind, ev1.kind);
  EXPECT_EQ(ev.mode_index, 1);
  EXPECT_EQ(ev.mode_after.contacts.size(), 3 + ev1.mode_after.contacts.size());
  const int nv = m->nv, nv1 = m1->nv;
  const Eigen::MatrixXd xi = ev.xi.Dense(), xi1 = ev1.xi.Dense();
  ASSERT_GT((xi1 - Eigen::MatrixXd::Identity(2 * nv1, 2 * nv1)).cwiseAbs().maxCoeff(), 1e-3);
  const double scale = xi1.cwiseAbs().maxCoeff();
  const BlockAgainstAlone error = CompareWithAlone(xi, nv, xi1, nv1);
  EXPECT_LE(error.block, 1e-9 * scale);
  EXPECT_EQ(error.outside, 0.0);
}


namespace {

// the spectral norm of a dense matrix by its singular values (the reference)
double DenseNorm(const Eigen::MatrixXd& a) {
  return Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues()(0);
}

// a saltation matrix that differs from I only on the coordinates `island` of its nv dofs: a
// reset block, a correction and a guard gradient with entries there only (with_q: also on the
// configuration's columns, as an impact's ∂v⁺/∂q; without, on the velocities alone)
saltation::SaltationMatrix IslandXi(int nv, int na, const std::vector<int>& island, double reset_scale,
                                    bool with_q) {
  saltation::SaltationMatrix xi;
  xi.reset = saltation::ResetJacobian::Identity(nv, na);
  const int n = 2 * nv + na;
  xi.correction = Eigen::VectorXd::Zero(n);
  xi.grad_g = Eigen::VectorXd::Zero(n);
  int seed = 1;
  auto next = [&]() { return std::sin(1.7 * seed++); };
  for (int r : island) {
    for (int c : island) {
      if (with_q) xi.reset.dv_dq(r, c) = next();
      xi.reset.dv_dv(r, c) = reset_scale * ((r == c) + 0.1 * next());
    }
    xi.correction(nv + r) = reset_scale * 0.3 * next();
    xi.grad_g(with_q ? r : nv + r) = next();
  }
  return xi;
}

}  // namespace

// ‖Ξ‖₂ formed on the island's indices equals the dense matrix's: Ξ = blockdiag(Ξ_SS, I), so the
// norm is max(‖Ξ_SS‖, 1) — checked where the island's block is larger than 1 and where it is
// smaller (a strongly damping reset of the velocities), and with the island covering everything
TEST(Islands, XiNormOnTheIslandEqualsTheDenseNorm) {
  for (double scale : {2.0, 0.05}) {
    for (bool with_q : {true, false}) {
      const saltation::SaltationMatrix xi = IslandXi(12, 2, {3, 4, 7}, scale, with_q);
      const double dense = DenseNorm(xi.Dense());
      EXPECT_NEAR(xi.Norm(), dense, 1e-13 * dense) << "scale " << scale << " with_q " << with_q;
    }
  }
  const saltation::SaltationMatrix small = IslandXi(12, 2, {3, 4, 7}, 0.05, false);
  EXPECT_EQ(small.Norm(), 1.0);  // the identity part dominates
  // every index differs from I (a contracting 1-dof event: Ξ = diag(0.1, 0.05)): no identity part
  saltation::SaltationMatrix whole;
  whole.reset = saltation::ResetJacobian::Identity(1, 0);
  whole.reset.dv_dv(0, 0) = 0.05;
  whole.grad_g = Eigen::Vector2d(1, 0);
  whole.correction = Eigen::Vector2d(-0.9, 0);
  EXPECT_NEAR(DenseNorm(whole.Dense()), 0.1, 1e-15);
  EXPECT_NEAR(whole.Norm(), 0.1, 1e-15);
}

namespace {

// the composite Ξ of a simultaneous group in one ordering, the whole group in sequence from the
// first member's state and mode (what Hook::ComposeOrderings computed before it split the group by
// island): the reference
Eigen::MatrixXd SequentialComposite(const Model& model, Data& data, const State& x0, const Mode& mode0,
                                    const std::vector<ContactId>& order) {
  RestitutionTable restitution(model);
  State x = x0;
  Mode mode = mode0;
  Eigen::MatrixXd C = Eigen::MatrixXd::Identity(model.ndx(), model.ndx());
  for (const ContactId& id : order) {
    bool in_mode = false;
    for (const ContactId& c : mode.contacts) in_mode |= c.SamePair(id) && (c.anchor - id.anchor).norm() <= 1e-12;
    if (in_mode) continue;
    const RigidEvent ev = TouchdownEvent(model, data, restitution, x, mode, id, -1.0, -1.0);
    C = ev.xi.Dense() * C;
    x = ev.x_plus;
    mode = ev.mode_after;
  }
  return C;
}

}  // namespace

// A box landing flat beside two balls landing at the same instant: one simultaneous group whose
// members lie on three islands. The hook composes each island's members on their own (both orders
// only for the box's corners); both composites equal the whole group's in sequence, in either
// order, and the balls' blocks are their own touchdowns'.
TEST(Islands, SimultaneousGroupComposedPerIslandEqualsTheSequence) {
  const char* xml = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="box" pos="0 0 0.4"><freejoint/><geom name="box" type="box" size="0.1 0.15 0.2" mass="1"/></body>
    <body name="ball0" pos="1 0 0.3"><freejoint/><geom name="ball0" size="0.1" mass="2"/></body>
    <body name="ball1" pos="2 0 0.3"><freejoint/><geom name="ball1" size="0.1" mass="3"/></body>
  </worldbody>
</mujoco>)";
  ModelPtr m = LoadModelFromString(xml);
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  const double t_end = 0.35;  // lands at √(2·0.2/g) = 0.2019 s
  while (d->time < t_end) hook.Step(d.get());
  const HookEvent* sim = nullptr;
  for (const HookEvent& ev : hook.events()) {
    if (ev.kind == EventKind::kSimultaneous) sim = &ev;
  }
  ASSERT_NE(sim, nullptr);
  const FormedGroup formed = GroupAsTheHookFormsIt(hook.events(), *sim);
  const HookEvent* first = formed.first;
  const std::vector<ContactId>& group = formed.members;
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(static_cast<int>(group.size()), sim->group_size);
  // the four corners (the first corner's impact candidates), two balls — each once: the corners that
  // joined the first corner's impact are not recorded again from their own crossings (they were 9:
  // three corners twice, and four touchdown records of one bouncing impact)
  EXPECT_EQ(sim->group_size, 6);
  int touchdowns = 0;
  for (const HookEvent& ev : hook.events()) touchdowns += ev.kind == EventKind::kTouchdown;
  EXPECT_EQ(touchdowns, 3);  // the box's impact and the two balls
  Data data(hook.rigid_model());
  const Eigen::MatrixXd first_order =
      SequentialComposite(hook.rigid_model(), data, first->rigid.x_minus, first->rigid.mode_before, group);
  const Eigen::MatrixXd reverse_order = SequentialComposite(
      hook.rigid_model(), data, first->rigid.x_minus, first->rigid.mode_before,
      std::vector<ContactId>(group.rbegin(), group.rend()));
  const double scale = first_order.norm();
  const double err_first = (sim->composite_first.Dense() - first_order).norm() / scale;
  const double err_reverse = (sim->composite_reverse.Dense() - reverse_order).norm() / scale;
  std::printf("[ islands      ] group of %d on 3 islands: composites vs the sequence %.1e / %.1e, order spread %.3f\n",
              sim->group_size, err_first, err_reverse, sim->order_spread);
  EXPECT_LT(err_first, 1e-12);
  EXPECT_LT(err_reverse, 1e-12);
  EXPECT_GT(sim->order_spread, 1e-3);  // the box's corners still depend on the order
}

}  // namespace
}  // namespace saltation::testing
