// Mode evaluations on an event's island (force_island.h, EvaluateMode's island): MuJoCo's passes
// on the trees the island's dynamics read, every other tree asleep, give the whole evaluation's
// dynamics on those trees bit for bit, and a touchdown's Ξ from them equals the Ξ from whole-model
// fields bit for bit.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_families.h"
#include "force_island.h"
#include "saltation/events.h"
#include "saltation/islands.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// Two robots on a floor: robot A, two free bodies (a ball "a1" and a box "a2", two kinematic trees)
// tied by a spatial tendon with a spring and a damper (islands.h joins their trees); robot B, a free trunk with a motor-driven hinged leg; and a free ball "c" apart.
constexpr char kTwoRobots[] = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.4"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="20 20 0.1"/>
    <body name="a1" pos="0 0 0.1">
      <freejoint/>
      <geom name="a1" type="sphere" size="0.1" mass="1"/>
      <site name="s1" pos="0.05 0 0.08"/>
    </body>
    <body name="a2" pos="0.2 0.4 0.6">
      <freejoint/>
      <geom name="a2" type="box" size="0.1 0.08 0.06" mass="2"/>
      <site name="s2" pos="0 -0.05 0"/>
    </body>
    <body name="trunk" pos="3 0 1">
      <freejoint/>
      <geom name="trunk" type="box" size="0.1 0.05 0.05" mass="2"/>
      <body name="shin" pos="0.1 0 -0.05">
        <joint name="knee" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom name="foot" type="sphere" pos="0.05 0 -0.2" size="0.03" mass="0.3"/>
      </body>
    </body>
    <body name="c" pos="-3 0 0.1"><freejoint/><geom name="c" type="sphere" size="0.1" mass="1.5"/></body>
  </worldbody>
  <tendon>
    <spatial name="tie" stiffness="10" damping="2" springlength="0.2"><site site="s1"/><site site="s2"/></spatial>
  </tendon>
  <actuator><motor name="knee" joint="knee" gear="2"/></actuator>
</mujoco>)";

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int Tree(const mjModel* m, const char* body) { return m->body_treeid[mj_name2id(m, mjOBJ_BODY, body)]; }

std::vector<int> TreeDofs(const mjModel* m, const char* body) {
  std::vector<int> dofs;
  const int t = Tree(m, body);
  for (int j = 0; j < m->tree_dofnum[t]; j++) dofs.push_back(m->tree_dofadr[t] + j);
  return dofs;
}

// a1 touching the floor while falling, turning and sliding; a2 in the air, moving (the tendon
// stretched: its spring and damper pull on both); robot B's foot and ball c resting on the floor
State TouchingState(const mjModel* m) {
  State x = StateFromData(m, DataPtr(mj_makeData(m)).get());
  const auto set = [&](const char* body, int dof, double v) { x.qvel(m->jnt_dofadr[m->body_jntadr[mj_name2id(m, mjOBJ_BODY, body)]] + dof) = v; };
  set("a1", 0, 0.3);
  set("a1", 2, -1.2);
  set("a1", 4, 2.0);
  set("a2", 0, -0.4);
  set("a2", 2, 0.5);
  set("a2", 3, 1.1);
  const int trunk = m->jnt_qposadr[m->body_jntadr[mj_name2id(m, mjOBJ_BODY, "trunk")]];
  x.qpos(trunk + 2) = 0.05 + 0.2 + 0.03;  // the foot's sphere (0.25 m below the trunk) on the floor
  return x;
}


// max |a − b| over the entries `dofs` (all when empty) of two nv-vectors, and max |b| there
double MaxDifference(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const std::vector<int>& dofs) {
  double d = 0;
  for (const int i : dofs) d = std::max(d, std::abs(a(i) - b(i)));
  return d;
}

// Ξ of ev assembled from its own DΔ and ∇g with F⁻ and F⁺ evaluated on the whole model (the
// evaluation before islands: the other trees' unconstrained dynamics in F)
SaltationMatrix XiOfWholeFields(const Model& model, Data& data, const RigidEvent& ev) {
  const mjModel* m = model.mj();
  const Eigen::VectorXd f_minus = ModeVectorField(model, data, ev.x_minus, RestrictMode(m, ev.mode_before, ev.island));
  const Eigen::VectorXd f_plus = ModeVectorField(model, data, ev.x_plus, RestrictMode(m, ev.mode_after, ev.island));
  return ComputeSaltation(ev.xi.reset, f_minus, f_plus, ev.xi.grad_g, ev.xi.dg_dt, ev.xi.dreset_dt);
}

// the largest entry of Ξ − Ξ_whole relative to Ξ_whole's largest entry
double XiError(const SaltationMatrix& xi, const SaltationMatrix& whole) {
  const Eigen::MatrixXd a = xi.Dense(), b = whole.Dense();
  return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
}

// The tendon ties a1's and a2's trees, so a1's dynamics read a2's: the island holds both (IslandOf
// joins them), and ForceIsland keeps it; robot B's motor and ball c stay apart. A model whose
// forces cannot be split (a passive-force callback, an equality) gives the whole model.
TEST(IslandDynamics, ForceIslandJoinsTheTreesATendonTies) {
  ModelPtr m = LoadModelFromString(kTwoRobots);
  Model model(m.get());
  Data data(model);
  const State x = TouchingState(m.get());
  const Island island = IslandOf(model, {}, {ContactOfGeom(model, data, x, "a1")});
  const Island forces = ForceIsland(model, island);
  ASSERT_FALSE(forces.whole);
  EXPECT_TRUE(forces.tree[Tree(m.get(), "a1")]);
  EXPECT_TRUE(forces.tree[Tree(m.get(), "a2")]);
  EXPECT_FALSE(forces.tree[Tree(m.get(), "trunk")]);
  EXPECT_FALSE(forces.tree[Tree(m.get(), "c")]);
  EXPECT_EQ(forces.dofs.size(), 12u);
  EXPECT_EQ(forces.dofs, island.dofs);
  const Island leg = ForceIsland(model, IslandOf(model, {}, {ContactOfGeom(model, data, x, "foot")}));
  ASSERT_FALSE(leg.whole);
  EXPECT_EQ(leg.dofs, TreeDofs(m.get(), "trunk"));
  mjcb_passive = [](const mjModel*, mjData*) {};
  EXPECT_TRUE(ForceIsland(model, island).whole);
  mjcb_passive = nullptr;
}

// EvaluateMode on the island equals the whole evaluation on the dofs of a1 and a2 (the tendon's
// force read from a2's configuration and velocity) bit for bit, and is 0 on robot B's and c's
TEST(IslandDynamics, EvaluationOnTheIslandEqualsTheWholeOnItsDofs) {
  ModelPtr m = LoadModelFromString(kTwoRobots);
  Model model(m.get());
  Data data(model);
  data.main()->ctrl[0] = 0.7;  // robot B's motor pushes
  const State x = TouchingState(m.get());
  const ContactId a1 = ContactOfGeom(model, data, x, "a1");
  const Island island = IslandOf(model, {}, {a1});
  const Mode mode{{a1}};
  const ModeDynamics whole = EvaluateMode(model, data, x, mode);
  const ModeDynamics local = EvaluateMode(model, data, x, mode, &island);
  std::vector<int> tied = TreeDofs(m.get(), "a1"), a2 = TreeDofs(m.get(), "a2");
  tied.insert(tied.end(), a2.begin(), a2.end());
  const double scale = whole.qacc.cwiseAbs().maxCoeff();
  // bitwise: MuJoCo's passes do the same arithmetic on each awake tree
  EXPECT_EQ(MaxDifference(local.qacc, whole.qacc, tied), 0.0) << scale;
  EXPECT_EQ(MaxDifference(local.qacc_smooth, whole.qacc_smooth, tied), 0.0);
  EXPECT_EQ(local.normal_force(0), whole.normal_force(0));
  EXPECT_GT(whole.normal_force(0), 0);
  EXPECT_EQ(local.rank, whole.rank);
  // the tendon matters: a2's acceleration is not gravity's alone
  EXPECT_GT(std::abs(whole.qacc(a2[0])), 1e-3);
  for (const char* other : {"trunk", "c"}) {
    const std::vector<int> dofs = TreeDofs(m.get(), other);
    EXPECT_EQ(local.qacc(dofs).cwiseAbs().maxCoeff(), 0.0) << other;
    EXPECT_GT(whole.qacc(dofs).cwiseAbs().maxCoeff(), 1.0) << other;  // evaluated whole: falling, the leg driven
  }
  // and the field: F's velocities everywhere, its accelerations on the island
  const Eigen::VectorXd f = ModeVectorField(model, data, x, mode, &island);
  const int nv = m->nv;
  EXPECT_EQ(f.head(nv), x.qvel);
  EXPECT_EQ(f.segment(nv, nv), local.qacc);
}

// A touchdown of a1 (its damper's force on a2 jumps with a1's velocity: Ξ − I reaches a2's
// velocity rows) among the other robot's resting contacts: Ξ from the island's fields equals Ξ from
// whole-model fields bit for bit
TEST(IslandDynamics, TouchdownXiEqualsTheXiOfWholeFields) {
  ModelPtr m = LoadModelFromString(kTwoRobots);
  Model model(m.get());
  Data data(model);
  data.main()->ctrl[0] = 0.7;
  const State x = TouchingState(m.get());
  const Mode resting{{ContactOfGeom(model, data, x, "foot"), ContactOfGeom(model, data, x, "c")}};
  const RigidEvent ev = TouchdownEvent(model, data, RestitutionTable(model), x, resting, ContactOfGeom(model, data, x, "a1"),
                                       1e-9, DefaultForceTolerance(m.get()));
  ASSERT_TRUE(ev.complete);
  EXPECT_GE(ev.mode_after.contacts.size(), 2u);  // the resting contacts carried over
  const SaltationMatrix whole = XiOfWholeFields(model, data, ev);
  const double error = XiError(ev.xi, whole);
  std::fprintf(stderr, "[ island dynamics ] two robots: Ξ vs Ξ of whole fields %.1e\n", error);
  EXPECT_EQ(error, 0.0);  // bitwise (measured): the same arithmetic on the island's trees
  const int nv = m->nv;
  const std::vector<int> a2 = TreeDofs(m.get(), "a2");
  EXPECT_GT(whole.correction.segment(nv, nv)(a2).cwiseAbs().maxCoeff(), 1e-3);  // the damper's jump
  EXPECT_EQ(whole.correction.segment(nv, nv)(TreeDofs(m.get(), "c")).cwiseAbs().maxCoeff(), 0.0);
}

// The first touchdown (the first touching point, gap ≤ 0, after a step) of the body tree rooted at
// `root` in the model stepped by MuJoCo from its initial state: the state, the trigger, and every
// other touching point (the mode)
struct FirstTouchdown {
  State x;
  ContactId trigger;
  Mode mode;
};
FirstTouchdown StepToTouchdown(const Model& model, Data& data, int root) {
  const mjModel* m = model.mj();
  DataPtr d(mj_makeData(m));
  const auto in_root = [&](int geom) { return m->body_rootid[m->geom_bodyid[geom]] == root; };
  FirstTouchdown out;
  for (int step = 0; step < 5000; step++) {
    mj_step(m, d.get());
    out.x = StateFromData(m, d.get());
    EvaluatePosition(model, data.main(), out.x.qpos.data());
    std::vector<ContactPoint> points;
    ListContacts(model, data.main(), points);
    bool found = false;
    out.mode.contacts.clear();
    for (const ContactPoint& p : points) {
      if (p.gap > 0) continue;  // within the detection margin only
      if (!found && (in_root(p.id.geom1) || in_root(p.id.geom2))) {
        out.trigger = p.id;
        found = true;
      } else {
        out.mode.contacts.push_back(p.id);
      }
    }
    if (found) return out;
  }
  ADD_FAILURE() << "no touchdown";
  return out;
}

// The same among many bodies: a ball among 50 (its island one tree, the others' contacts in the
// mode) and the humanoid among 100 objects
TEST(IslandDynamics, TouchdownAmongManyXiEqualsTheXiOfWholeFields) {
  const std::string humanoid = SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml";
  for (const std::string& xml : {families::Balls(50), families::HumanoidWithObjects(ReadText(humanoid), 100)}) {
    ModelPtr m = LoadModelFromString(xml);
    Model model(m.get());
    Data data(model);
    const int torso = mj_name2id(m.get(), mjOBJ_BODY, "torso");
    const int root = torso >= 0 ? m->body_rootid[torso] : m->body_rootid[mj_name2id(m.get(), mjOBJ_BODY, "ball20")];
    const FirstTouchdown at = StepToTouchdown(model, data, root);
    const RigidEvent ev = TouchdownEvent(model, data, RestitutionTable(model), at.x, at.mode, at.trigger, 1e-9,
                                         DefaultForceTolerance(m.get()));
    ASSERT_FALSE(ev.island.whole);
    const SaltationMatrix whole = XiOfWholeFields(model, data, ev);
    const double error = XiError(ev.xi, whole);
    std::fprintf(stderr, "[ island dynamics ] nv %d: Ξ vs Ξ of whole fields %.1e\n", m->nv, error);
    EXPECT_EQ(error, 0.0);
    EXPECT_GT((whole.Dense() - Eigen::MatrixXd::Identity(model.ndx(), model.ndx())).cwiseAbs().maxCoeff(), 0.1);
  }
}

}  // namespace
}  // namespace saltation::testing
