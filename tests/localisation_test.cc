// The hook's localisation of a liftoff (crossings.h, CrossingFinder::Localize): its guard, λ_n of
// the mode restricted to the contact's island, reads the inputs of the step it re-simulates, and a
// liftoff localised again on a mode whose restriction to its island is unchanged (an event of
// another robot earlier in the step changed the mode) keeps its search, which a new search would
// reproduce bit for bit; a liftoff searched again decides afresh whether it is an input jump; and
// Rename leaves guards evaluated on another mode alone (the review mends of 8b92366: each test fails
// with its mend reverted).
#include <vector>

#include "crossings.h"
#include "resimulation.h"
#include "saltation/islands.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// Robot A: a 2 kg ball on a vertical slide, held up by a stiff joint spring and a motor, with a
// second sphere on its body ("a2", 0.2 m aside; both touch the floor at qpos 0). Robot B: a 1 kg
// ball on a slide of its own, resting 1 m away. A moves down into the floor at 0.5 m/s: its
// spring's push grows by 5 N a step, so that λ_n of its contacts crosses zero inside the step.
constexpr char kTwoRobots[] = R"(
<mujoco>
  <option gravity="0 0 -9.81" timestep="0.001"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="a">
      <joint name="za" type="slide" axis="0 0 1" stiffness="10000" springref="0.0015"/>
      <geom name="a" type="sphere" pos="0 0 0.05" size="0.05" mass="2" condim="1"/>
      <geom name="a2" type="sphere" pos="0.2 0 0.05" size="0.05" mass="0.001" condim="1"/>
    </body>
    <body name="b" pos="1 0 0">
      <joint name="zb" type="slide" axis="0 0 1"/>
      <geom name="b" type="sphere" pos="0 0 0.05" size="0.05" mass="1" condim="1"/>
    </body>
  </worldbody>
  <actuator><motor name="lift" joint="za"/></actuator>
</mujoco>)";


class LocalisationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_ = LoadModelFromString(kTwoRobots);
    ASSERT_TRUE(m_);
    model_ = std::make_unique<Model>(m_.get());
    data_ = std::make_unique<Data>(*model_);
    resim_ = std::make_unique<Resimulator>(m_.get());
    finder_ = std::make_unique<CrossingFinder>(*model_, *data_, *resim_, options_, 1e-6);
    // x_{k−1}: both robots touching, A moving down with the motor's 3 N; x_k: MuJoCo's step
    DataPtr d(mj_makeData(m_.get()));
    d->qvel[0] = -0.5;
    d->ctrl[0] = 3;
    Capture(m_.get(), d.get(), prev_);
    mj_step(m_.get(), d.get());
    Capture(m_.get(), d.get(), cur_);
    a_ = ContactOfGeom(*model_, *data_, prev_.state(), "a");
    a2_ = ContactOfGeom(*model_, *data_, prev_.state(), "a2");
    b_ = ContactOfGeom(*model_, *data_, prev_.state(), "b");
  }

  // a liftoff of contact k of `mode`, localised in [x_{k−1}, x_k] with data's inputs `ctrl`
  Crossing LocalisedLiftoff(const Mode& mode, int k, double ctrl) {
    Crossing c;
    c.type = Crossing::kLiftoff;
    c.id = mode.contacts[k];
    c.k = k;
    Relocalise(c, mode, k, ctrl);
    return c;
  }
  void Relocalise(Crossing& c, const Mode& mode, int k, double ctrl) {
    c.k = k;
    for (mjData* w : {data_->main(), data_->aux()}) w->ctrl[0] = ctrl;
    finder_->Localize(c, mode, prev_, cur_, m_->opt.timestep);
  }
  // the forward passes of the searches run from now on (a pass prepared before is dropped)
  long PassesFromNow() {
    resim_->Load(cur_);
    return resim_->forward_passes();
  }

  HookOptions options_;
  ModelPtr m_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Data> data_;
  std::unique_ptr<Resimulator> resim_;
  std::unique_ptr<CrossingFinder> finder_;
  SavedStep prev_, cur_;
  ContactId a_, a2_, b_;
};

TEST_F(LocalisationTest, TheLiftoffGuardReadsTheInputsOfTheStepResimulated) {
  const Mode mode{{a_, b_}};
  // the motor matters: λ_n of A at x_{k−1} with the step's 3 N and with none differ
  for (mjData* w : {data_->main(), data_->aux()}) w->ctrl[0] = 3;
  const double pressing = EvaluateMode(*model_, *data_, prev_.state(), mode).normal_force(0);
  for (mjData* w : {data_->main(), data_->aux()}) w->ctrl[0] = 0;
  EXPECT_GT(EvaluateMode(*model_, *data_, prev_.state(), mode).normal_force(0), pressing + 2.9);
  EXPECT_GT(pressing, 0);

  const Crossing in_step = LocalisedLiftoff(mode, 0, 3);
  ASSERT_TRUE(in_step.valid);
  ASSERT_GT(in_step.s, 0);
  ASSERT_LT(in_step.s, m_->opt.timestep);
  // data's mjData holding other inputs (an earlier step's event left its own there): the same search
  for (double stale : {0.0, 10.0}) {
    const Crossing c = LocalisedLiftoff(mode, 0, stale);
    EXPECT_TRUE(c.valid) << stale;
    EXPECT_EQ(c.s, in_step.s) << stale;
    EXPECT_EQ(c.lo, in_step.lo) << stale;
    EXPECT_EQ(c.hi, in_step.hi) << stale;
  }
}

TEST_F(LocalisationTest, ALiftoffLocalisedAgainOnItsIslandsSameModeKeepsItsSearch) {
  const Mode first{{a_, b_}};
  Crossing c = LocalisedLiftoff(first, 0, 3);
  ASSERT_TRUE(c.valid);
  const double s = c.s, lo = c.lo, hi = c.hi;
  // B's contact now before A's (A's index moves): A's island holds the same mode, no search runs
  const Mode moved{{b_, a_}};
  long passes = PassesFromNow();
  Relocalise(c, moved, 1, 3);
  EXPECT_EQ(resim_->forward_passes(), passes);
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.s, s);
  EXPECT_EQ(c.lo, lo);
  EXPECT_EQ(c.hi, hi);
  // and a new search of that mode gives the same bits (B's contact does not reach A's guard)
  passes = PassesFromNow();
  const Crossing fresh = LocalisedLiftoff(moved, 1, 3);
  EXPECT_GT(resim_->forward_passes(), passes);
  EXPECT_EQ(fresh.s, s);
  EXPECT_EQ(fresh.lo, lo);
  EXPECT_EQ(fresh.hi, hi);
  // A's island gains a contact: its guard is another, searched again
  const Mode joined{{b_, a2_, a_}};
  ASSERT_EQ(RestrictMode(m_.get(), joined, IslandOf(*model_, joined.contacts, {a_})).contacts.size(), 2u);
  passes = PassesFromNow();
  Relocalise(c, joined, 2, 3);
  EXPECT_GT(resim_->forward_passes(), passes);
  const Crossing searched = LocalisedLiftoff(joined, 2, 3);
  EXPECT_EQ(c.valid, searched.valid);
  EXPECT_EQ(c.s, searched.s);
}

// A crossing searched a second time in its step (an earlier event changed its island's mode)
// decides afresh whether it is an input jump: the first search, with the motor pressing A down over
// the step and lifting it hard from the step's end, finds A pulling only with the next step's inputs
// (a release at the step's start); the second, on another guard and the step as taken, locates it
// inside the step — the flag of the first must not stay
TEST_F(LocalisationTest, ASecondSearchDecidesTheInputJumpAfresh) {
  SavedStep pressed = prev_, lifted = cur_;
  pressed.ctrl.setConstant(-20);
  lifted.ctrl.setConstant(200);
  const Mode mode{{a_, b_}};
  Crossing c;
  c.type = Crossing::kLiftoff;
  c.id = a_;
  c.k = 0;
  finder_->Localize(c, mode, pressed, lifted, m_->opt.timestep);
  ASSERT_TRUE(c.valid);
  ASSERT_TRUE(c.input_jump);
  ASSERT_EQ(c.s, 0);
  const Mode joined{{b_, a2_, a_}};
  Relocalise(c, joined, 2, 3);
  const Crossing fresh = LocalisedLiftoff(joined, 2, 3);
  ASSERT_TRUE(fresh.valid);
  ASSERT_FALSE(fresh.input_jump);
  ASSERT_GT(fresh.s, 0);
  EXPECT_TRUE(c.valid);
  EXPECT_FALSE(c.input_jump);
  EXPECT_EQ(c.s, fresh.s);
}

// Rename (the mode's anchors followed to their points) renames the guards' ids only when the guards
// were evaluated on the mode renamed; guards of another mode keep their ids, the solved ones too
TEST_F(LocalisationTest, RenameLeavesGuardsOfAnotherModeAlone) {
  ContactId a_moved = a_;
  a_moved.anchor.x() += 1e-3;
  StepGuards g;
  g.mode_ids = {a_, b_};
  g.solved_ids = {a_};
  finder_->Rename({a_}, {a_moved}, g);  // another mode: {a_} alone
  EXPECT_TRUE(SameContacts(g.mode_ids, {a_, b_}));
  EXPECT_TRUE(SameContacts(g.solved_ids, {a_}));
  finder_->Rename({a_, b_}, {a_moved, b_}, g);  // g's own mode: renamed, the solved ids too
  EXPECT_TRUE(SameContacts(g.mode_ids, {a_moved, b_}));
  EXPECT_TRUE(SameContacts(g.solved_ids, {a_moved}));
}

}  // namespace
}  // namespace saltation::testing
