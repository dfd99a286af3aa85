// A simultaneous group's two orderings composed with shared work (Hook::ComposeOrderings: one
// FieldMemo for F⁻/F⁺, Ξ kept factored on its island's indices) against the naive way: successive
// complete TouchdownEvents that share nothing, each Ξ made dense and multiplied into a dense
// composite.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "saltation/event_json.h"
#include "saltation/events.h"
#include "bench_families.h"
#include "hook_group.h"
#include "same_bits.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// the naive composite of one ordering: every member's complete TouchdownEvent in turn from the
// group's state and mode, C ← Ξ.Dense()·C
Eigen::MatrixXd NaiveComposite(const Model& model, const State& x0, const Mode& mode0, const std::vector<ContactId>& order) {
  Data data(model);
  const RestitutionTable restitution(model);
  const double tol = DefaultForceTolerance(model.mj());
  State x = x0;
  Mode mode = mode0;
  Eigen::MatrixXd C = Eigen::MatrixXd::Identity(model.ndx(), model.ndx());
  for (const ContactId& id : order) {
    if (InMode(mode, id)) continue;
    const RigidEvent ev = TouchdownEvent(model, data, restitution, x, mode, id, -1.0, tol);
    C = ev.xi.Dense() * C;
    x = ev.x_plus;
    mode = ev.mode_after;
  }
  return C;
}

// Both orderings' composites of the hook's group equal the naive ones to 1e-12 (relative, in the
// Frobenius norm) on a two-footed and a three-footed body landing level; the orders differ (the
// comparison could tell them apart).
TEST(Simultaneous, SharedCompositesEqualTheNaiveOrderings) {
  for (int feet : {2, 3}) {
    ModelPtr m = LoadModelFromString(families::Stool(feet));
    const SteppedToGroup run = StepToFirstGroup(m.get(), 0.4);  // the feet land at √(2·0.27/g) = 0.235 s
    const HookEvent* sim = run.sim;
    ASSERT_NE(sim, nullptr) << feet << " feet";
    const HookEvent* first = run.formed.first;
    const std::vector<ContactId>& group = run.formed.members;
    ASSERT_NE(first, nullptr);
    ASSERT_EQ(static_cast<int>(group.size()), feet);
    ASSERT_EQ(sim->group_size, feet);
    const Model& model = run.hook->rigid_model();
    const Eigen::MatrixXd naive_first = NaiveComposite(model, first->rigid.x_minus, first->rigid.mode_before, group);
    const Eigen::MatrixXd naive_reverse = NaiveComposite(model, first->rigid.x_minus, first->rigid.mode_before,
                                                         std::vector<ContactId>(group.rbegin(), group.rend()));
    const double scale = naive_first.norm();
    const double err_first = (sim->composite_first.Dense() - naive_first).norm() / scale;
    const double err_reverse = (sim->composite_reverse.Dense() - naive_reverse).norm() / scale;
    const double spread = (naive_first - naive_reverse).norm() / scale;
    std::printf("[ simultaneous ] %d feet: shared vs naive %.1e / %.1e, orders differ by %.3f\n", feet, err_first,
                err_reverse, spread);
    EXPECT_LT(err_first, 1e-12);
    EXPECT_LT(err_reverse, 1e-12);
    EXPECT_GT(spread, 1e-3);
  }
}

// Two balls landing together (their centres at different heights), joined by a damped spatial
// tendon: the tendon's damping force reads both balls' velocities, so each ball's impact changes
// the other's acceleration and the second impact sees the first's velocity jump. islands.h joins
// the trees the tendon spans: the group is one cluster, composed in sequence — the composites are
// the naive ones of the whole group in each order to 1e-12, and the two orders differ.
TEST(Simultaneous, TendonDampedBallsAreComposedInSequence) {
  const char* xml = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="a" pos="0 0 0.3"><freejoint/><geom size="0.1" mass="1"/><site name="sa"/></body>
    <body name="b" pos="0.5 0 0.35"><freejoint/><geom size="0.15" mass="2"/><site name="sb"/></body>
  </worldbody>
  <tendon><spatial damping="3"><site site="sa"/><site site="sb"/></spatial></tendon>
</mujoco>)";
  ModelPtr m = LoadModelFromString(xml);
  const SteppedToGroup run = StepToFirstGroup(m.get(), 0.4);
  const HookEvent* sim = run.sim;
  ASSERT_NE(sim, nullptr);
  const HookEvent* first = run.formed.first;
  const std::vector<ContactId>& group = run.formed.members;
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(group.size(), 2u);
  const Model& model = run.hook->rigid_model();
  // one island: each ball's touchdown reaches both balls
  EXPECT_TRUE(IslandOf(model, first->rigid.mode_before.contacts, {group[0]}).whole);
  const Eigen::MatrixXd sequence = NaiveComposite(model, first->rigid.x_minus, first->rigid.mode_before, group);
  const Eigen::MatrixXd reverse = NaiveComposite(model, first->rigid.x_minus, first->rigid.mode_before,
                                                 std::vector<ContactId>(group.rbegin(), group.rend()));
  const double scale = sequence.norm();
  const double err_first = (sim->composite_first.Dense() - sequence).norm() / scale;
  const double err_reverse = (sim->composite_reverse.Dense() - reverse).norm() / scale;
  const double spread = (sequence - reverse).norm() / scale;
  std::printf("[ simultaneous ] tendon-damped balls: shared vs naive %.1e / %.1e, orders differ by %.3f, hook's "
              "spread %.3f\n",
              err_first, err_reverse, spread, sim->order_spread);
  EXPECT_LT(err_first, 1e-12);
  EXPECT_LT(err_reverse, 1e-12);
  EXPECT_GT(spread, 1e-2);
  EXPECT_NEAR(sim->order_spread, (sequence - reverse).norm() / std::max(sequence.norm(), reverse.norm()), 1e-15);
  EXPECT_GT(sim->order_spread, 1e-2);
}

// Two clusters landing at the same instant — a two-footed stool, its mass off-centre (its feet's
// order matters; not families::Stool(2): beside the ball its group counts 2, its second foot
// inside the first one's impact), and a ball on a tree of its own — beside a body in the air that nothing touches:
// the composites are kept factored (the identity outside the indices the members' Ξ move, the
// untouched body's among them), and their Dense() equals the dense construction, each cluster's
// members' Ξ.Dense() multiplied in order from the group's state and the clusters' products
// multiplied, to 1e-15 (relative, Frobenius). Their JSON is the dense matrix's, character for
// character, and order_spread the dense matrices' to 1e-15.
TEST(Simultaneous, FactoredCompositesOfTwoClustersEqualTheDenseConstruction) {
  const char* xml = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="stool" pos="0 0 0.4"><freejoint/>
      <geom type="cylinder" size="0.2 0.02" mass="1" pos="0.03 -0.02 0"/>
      <geom name="foot0" type="sphere" size="0.03" pos="0.2 0 -0.1" mass="0.1"/>
      <geom name="foot1" type="sphere" size="0.03" pos="-0.2 0 -0.1" mass="0.5"/>
    </body>
    <body name="ball" pos="1 0 0.37"><freejoint/><geom name="ball" size="0.1" mass="2"/></body>
    <body name="high" pos="-1 0 5"><freejoint/><geom name="high" size="0.1" mass="1"/></body>
  </worldbody>
</mujoco>)";
  ModelPtr m = LoadModelFromString(xml);
  const SteppedToGroup run = StepToFirstGroup(m.get(), 0.4);  // the feet and the ball land at √(2·0.27/g) = 0.235 s
  const HookEvent* sim = run.sim;
  ASSERT_NE(sim, nullptr);
  const HookEvent* first = run.formed.first;
  const std::vector<ContactId>& group = run.formed.members;
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(sim->group_size, 3);  // two feet, one ball
  // the clusters: the stool's feet and the ball, each in the group's order
  const int ball = mj_name2id(m.get(), mjOBJ_GEOM, "ball");
  std::vector<ContactId> feet, balls;
  for (const ContactId& id : group) (id.geom1 == ball || id.geom2 == ball ? balls : feet).push_back(id);
  ASSERT_EQ(feet.size(), 2u);
  ASSERT_EQ(balls.size(), 1u);
  const Model& model = run.hook->rigid_model();
  const State& x0 = first->rigid.x_minus;
  const Mode& mode0 = first->rigid.mode_before;
  const Eigen::MatrixXd ball_xi = NaiveComposite(model, x0, mode0, balls);
  const Eigen::MatrixXd dense_first = NaiveComposite(model, x0, mode0, feet) * ball_xi;
  const Eigen::MatrixXd dense_reverse = NaiveComposite(model, x0, mode0, {feet[1], feet[0]}) * ball_xi;
  const int n = model.ndx(), high = m->body_dofadr[mj_name2id(m.get(), mjOBJ_BODY, "high")];
  for (const IdentityExceptBlock* c : {&sim->composite_first, &sim->composite_reverse}) {
    EXPECT_EQ(c->n, n);
    // the stool's and the ball's q and v rows; not the body in the air
    EXPECT_EQ(c->support.size(), 24u);
    EXPECT_EQ(c->Position(high), -1);
    EXPECT_EQ(c->Position(m->nv + high), -1);
    EXPECT_EQ(CompactMatrixJson(*c), CompactMatrixJson(c->Dense()));
  }
  const double scale = dense_first.norm();
  const double err_first = (sim->composite_first.Dense() - dense_first).norm() / scale;
  const double err_reverse = (sim->composite_reverse.Dense() - dense_reverse).norm() / scale;
  const double spread = (dense_first - dense_reverse).norm() / std::max(dense_first.norm(), dense_reverse.norm());
  std::printf("[ simultaneous ] two clusters, factored on %zu of %d indices: vs dense %.1e / %.1e, order spread %.4f "
              "(dense %.4f)\n",
              sim->composite_first.support.size(), n, err_first, err_reverse, sim->order_spread, spread);
  EXPECT_LE(err_first, 1e-15);
  EXPECT_LE(err_reverse, 1e-15);
  EXPECT_GT(spread, 1e-3);  // the orders differ: the comparison could tell them apart
  EXPECT_NEAR(sim->order_spread, spread, 1e-15);
}

// TouchdownEvent with a FieldMemo gives the same bits as without, and the memo answers F⁻ of an
// event from the F⁺ its predecessor kept: two of a three-footed body's feet in turn.
TEST(Simultaneous, FieldMemoGivesTheSameEventAndSharesF) {
  ModelPtr m = LoadModelFromString(families::Stool(3));
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  while (d->time < 0.4) hook.Step(d.get());
  const HookEvent* first = nullptr;
  for (const HookEvent& ev : hook.events()) {
    if (ev.kind == EventKind::kTouchdown && ev.group >= 0 && !first) first = &ev;
  }
  ASSERT_NE(first, nullptr);
  std::vector<ContactId> feet;
  for (const ContactId& id : first->rigid.impact.candidates) {
    if (!InMode(first->rigid.mode_before, id)) feet.push_back(id);
  }
  ASSERT_EQ(feet.size(), 3u);
  const Model& model = hook.rigid_model();
  const RestitutionTable restitution(model);
  const double tol = DefaultForceTolerance(m.get());
  Data plain(model), shared(model);
  FieldMemo fields;
  State x = first->rigid.x_minus;
  Mode mode = first->rigid.mode_before;
  for (int k = 0; k < 2; k++) {
    const RigidEvent a = TouchdownEvent(model, plain, restitution, x, mode, feet[k], -1.0, tol);
    const RigidEvent b = TouchdownEvent(model, shared, restitution, x, mode, feet[k], -1.0, tol, true, &fields);
    EXPECT_TRUE(SameBits(a.xi.Dense(), b.xi.Dense())) << "event " << k;
    EXPECT_TRUE(SameBits(a.xi.f_minus, b.xi.f_minus)) << "event " << k;
    EXPECT_TRUE(SameBits(a.xi.f_plus, b.xi.f_plus)) << "event " << k;
    EXPECT_TRUE(SameBits(a.x_plus.qvel, b.x_plus.qvel)) << "event " << k;
    x = a.x_plus;
    mode = a.mode_after;
  }
  // F⁻ of the first and of the second event evaluated; each event's F⁺ kept by its release check
  // and read back by CompleteEvent, the first's F⁺ read again as the second's F⁻
  EXPECT_EQ(fields.evaluations(), 1);
  EXPECT_EQ(fields.hits(), 3);
}


// The moment's probe passes shared (ProbeMemo, impact.h), as Hook::ComposeOrderings shares them:
// every member's complete TouchdownEvent in both orders with the memo gives the bits of the same
// event without it (Ξ, v⁺), and the memo makes one pass per probe of the group — a three-footed
// stool (one cluster: its six dofs' 2·6 probes serve every foot's impact in both orders) and four
// balls landing level (four clusters on their own trees, probed together: 2·6 passes for the four
// balls' 4·2·6 probes) — against one pass per probe and event without it.
TEST(Simultaneous, ProbeMemoSharesTheGroupsProbePassesWithTheSameBits) {
  struct Case {
    std::string name, xml;
    int clusters;
  };
  for (const Case& c : {Case{"stool3", families::Stool(3), 1}, Case{"level_balls4", families::Balls(4, 0.0), 4}}) {
    ModelPtr m = LoadModelFromString(c.xml);
    const SteppedToGroup run = StepToFirstGroup(m.get(), 0.4);
    ASSERT_NE(run.sim, nullptr) << c.name;
    const FormedGroup& formed = run.formed;
    ASSERT_NE(formed.first, nullptr) << c.name;
    const std::vector<ContactId>& group = formed.members;
    const Model& model = run.hook->rigid_model();
    const State& x0 = formed.first->rigid.x_minus;
    const Mode& mode0 = formed.first->rigid.mode_before;
    // the clusters as ComposeOrderings forms them: each member's island, the mode and group as links
    std::vector<ContactId> links = mode0.contacts;
    links.insert(links.end(), group.begin(), group.end());
    std::vector<Island> islands;
    for (const ContactId& id : group) {
      const Island island = IslandOf(model, links, {id});
      bool known = false;
      for (const Island& other : islands) known |= other.tree == island.tree && other.whole == island.whole;
      if (!known) islands.push_back(island);
    }
    ASSERT_EQ(static_cast<int>(islands.size()), c.clusters) << c.name;
    ProbeMemo memo(model, x0.qpos, islands, links);
    const RestitutionTable restitution(model);
    const double tol = DefaultForceTolerance(m.get());
    Data plain(model), shared(model);
    int probes = 0, events = 0;
    for (bool reverse : {false, true}) {
      std::vector<ContactId> order = group;
      if (reverse) order.assign(group.rbegin(), group.rend());
      // each cluster from the group's state, as ComposeOrderings composes them
      for (const Island& cluster : islands) {
        State x = x0;
        Mode mode = mode0;
        for (const ContactId& id : order) {
          if (InMode(mode, id) || !cluster.Contains(m.get(), id)) continue;
          const RigidEvent a = TouchdownEvent(model, plain, restitution, x, mode, id, -1.0, tol);
          const RigidEvent b = TouchdownEvent(model, shared, restitution, x, mode, id, -1.0, tol, true, nullptr, &memo);
          EXPECT_TRUE(SameBits(a.xi.Dense(), b.xi.Dense())) << c.name << " event " << events;
          EXPECT_TRUE(SameBits(a.x_plus.qvel, b.x_plus.qvel)) << c.name << " event " << events;
          const std::vector<ContactId> set = a.impact.ImpulseSet();
          if (!set.empty()) probes += 2 * static_cast<int>(IslandOf(model, set, set).dofs.size());
          events++;
          x = a.x_plus;
          mode = a.mode_after;
        }
      }
    }
    std::printf("[ simultaneous ] %s: %d events, %d probes answered by %d passes (%d unserved)\n", c.name.c_str(),
                events, memo.hits(), memo.passes(), memo.unserved());
    EXPECT_GE(events, 4) << c.name;
    EXPECT_EQ(memo.unserved(), 0) << c.name;
    EXPECT_EQ(memo.hits(), probes) << c.name;  // every probe of every event from the memo
    EXPECT_EQ(memo.passes(), 2 * 6) << c.name;  // one pass per probe of a six-dof island
  }
}

// A memo that may hold only its first pass (max_bytes 1): every later probe not stored is made as
// without a memo — the same bits, one pass stored, the rest unserved, the memory bounded.
TEST(Simultaneous, AFullProbeMemoStoresNoMoreAndGivesTheSameBits) {
  ModelPtr m = LoadModelFromString(families::Stool(3));
  const SteppedToGroup run = StepToFirstGroup(m.get(), 0.4);
  ASSERT_NE(run.sim, nullptr);
  const FormedGroup& formed = run.formed;
  ASSERT_NE(formed.first, nullptr);
  const Model& model = run.hook->rigid_model();
  const State& x0 = formed.first->rigid.x_minus;
  const Mode& mode0 = formed.first->rigid.mode_before;
  std::vector<ContactId> links = mode0.contacts;
  links.insert(links.end(), formed.members.begin(), formed.members.end());
  const Island island = IslandOf(model, links, {formed.members.front()});
  ProbeMemo unbounded(model, x0.qpos, {island}, links), full(model, x0.qpos, {island}, links, 1);
  const RestitutionTable restitution(model);
  const double tol = DefaultForceTolerance(m.get());
  Data plain(model), a_data(model), b_data(model);
  State x = x0;
  Mode mode = mode0;
  int events = 0;
  for (const ContactId& id : formed.members) {
    if (InMode(mode, id)) continue;
    const RigidEvent a = TouchdownEvent(model, plain, restitution, x, mode, id, -1.0, tol);
    const RigidEvent b = TouchdownEvent(model, a_data, restitution, x, mode, id, -1.0, tol, true, nullptr, &unbounded);
    const RigidEvent c = TouchdownEvent(model, b_data, restitution, x, mode, id, -1.0, tol, true, nullptr, &full);
    EXPECT_TRUE(SameBits(a.xi.Dense(), b.xi.Dense())) << "event " << events;
    EXPECT_TRUE(SameBits(a.xi.Dense(), c.xi.Dense())) << "event " << events;
    x = a.x_plus;
    mode = a.mode_after;
    events++;
  }
  ASSERT_GE(events, 2);
  EXPECT_EQ(full.passes(), 1);  // the first pass is stored, then the memo is full
  EXPECT_GT(full.unserved(), 0);
  EXPECT_EQ(full.hits() + full.unserved(), unbounded.hits());
  EXPECT_GT(unbounded.bytes(), full.bytes());
  EXPECT_GT(full.bytes(), 0u);
}

}  // namespace
}  // namespace saltation::testing
