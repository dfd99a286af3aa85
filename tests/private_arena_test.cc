// The hook's private mjData start with a small arena and grow to the full one (private_arena.h):
// what they compute is what a full arena gives, bit for bit, whether the small arena filled (the
// stage is taken again) or only came close (it grows ahead).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cstring>
#include <sstream>
#include <string>

#include "private_arena.h"
#include "resimulation.h"
#include "saltation/contacts.h"
#include "saltation/model.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// 64 balls resting on a floor (8 × 8, 1 mm into it): 64 contacts
std::string Balls() {
  std::ostringstream xml;
  xml << "<mujoco><size memory=\"16M\"/><option timestep=\"0.002\"/><worldbody>"
      << "<geom type=\"plane\" size=\"5 5 .1\"/>";
  for (int i = 0; i < 64; i++) {
    const double x = (i % 8) * 0.25, y = (i / 8) * 0.25, z = 0.099;
    xml << "<body pos=\"" << x << " " << y << " " << z << "\"><freejoint/><geom type=\"sphere\" size=\"0.1\"/></body>";
  }
  xml << "</worldbody></mujoco>";
  return xml.str();
}

// an arena for a handful of contacts: MuJoCo's stack of these passes fits, the 64 contacts do not
constexpr mjtSize kTiny = 24 * 1024;

TEST(PrivateArena, EvaluatePositionTakesAFullSmallArenaAgainOnTheFullOne) {
  ModelPtr user = LoadModelFromString(Balls());
  ASSERT_TRUE(user);
  const Model model(user.get());
  Data full(model);
  DataPtr tiny = MakeSizedData(model.mj(), kTiny);
  ASSERT_EQ(tiny->narena, kTiny);
  EvaluatePosition(model, full.main(), user->qpos0);
  EvaluatePosition(model, tiny.get(), user->qpos0);
  ASSERT_GE(full.main()->ncon, 64);  // and the band's ball–ball points
  ASSERT_GT(static_cast<mjtSize>(full.main()->ncon * sizeof(mjContact)), kTiny);  // it cannot fit
  EXPECT_EQ(tiny->narena, model.mj()->narena);  // grown to the full arena
  ASSERT_EQ(tiny->ncon, full.main()->ncon);
  for (int i = 0; i < tiny->ncon; i++) {
    const mjContact &a = tiny->contact[i], &b = full.main()->contact[i];
    EXPECT_EQ(a.geom[0], b.geom[0]);
    EXPECT_EQ(a.geom[1], b.geom[1]);
    EXPECT_EQ(std::memcmp(&a.dist, &b.dist, sizeof(mjtNum)), 0);
    EXPECT_EQ(std::memcmp(a.pos, b.pos, sizeof(a.pos)), 0);
    EXPECT_EQ(std::memcmp(a.frame, b.frame, sizeof(a.frame)), 0);
  }
  // the small attempt warned nobody; the full arena did not fill
  EXPECT_EQ(tiny->warning[mjWARN_CONTACTFULL].number, 0);
  EXPECT_EQ(tiny->warning[mjWARN_CNSTRFULL].number, 0);
}

TEST(PrivateArena, SmallArenaIsTheFullOneWhenThatIsSmaller) {
  ModelPtr user = LoadModelFromString(Balls());
  ASSERT_TRUE(user);
  EXPECT_LT(SmallArenaBytes(user.get()), user->narena);  // 16 MiB
  user->narena = 4096;
  EXPECT_EQ(SmallArenaBytes(user.get()), 4096);
}

// the state of the balls t s in, as the re-simulator reads it
SavedStep StateAt(const mjModel* m, double t) {
  DataPtr d(mj_makeData(m));
  while (d->time < t) mj_step(m, d.get());
  SavedStep s;
  Capture(m, d.get(), s);
  return s;
}

void ExpectSameStep(const mjModel* m, const mjData* a, const mjData* b) {
  EXPECT_EQ(a->time, b->time);
  EXPECT_EQ(std::memcmp(a->qpos, b->qpos, sizeof(mjtNum) * m->nq), 0);
  EXPECT_EQ(std::memcmp(a->qvel, b->qvel, sizeof(mjtNum) * m->nv), 0);
  EXPECT_EQ(std::memcmp(a->qacc_warmstart, b->qacc_warmstart, sizeof(mjtNum) * m->nv), 0);
  EXPECT_EQ(a->ncon, b->ncon);
  EXPECT_EQ(a->nefc, b->nefc);
}

TEST(PrivateArena, ResimulatorRetakesAStepThatFilledItsSmallArena) {
  ModelPtr stepped = LoadModelFromString(Balls());
  ASSERT_TRUE(stepped);
  const SavedStep from = StateAt(stepped.get(), 0.1);
  Resimulator full(stepped.get(), 1 << 30), tiny(stepped.get(), kTiny);
  ASSERT_EQ(full.data()->narena, full.full_arena());
  const double dt = stepped->opt.timestep;
  full.Step(from, 0.5 * dt);
  tiny.Step(from, 0.5 * dt);
  ASSERT_GT(static_cast<mjtSize>(full.data()->ncon * sizeof(mjContact)), kTiny);
  EXPECT_EQ(tiny.data()->narena, tiny.full_arena());
  ExpectSameStep(stepped.get(), tiny.data(), full.data());
  EXPECT_EQ(stepped->opt.timestep, dt);  // the borrowed model's own, put back
  EXPECT_EQ(tiny.data()->warning[mjWARN_CONTACTFULL].number, 0);
  // the sub-steps' forward pass and MuJoCo's step Jacobian, from a tiny arena too
  Resimulator tiny2(stepped.get(), kTiny), tiny3(stepped.get(), kTiny);
  tiny2.PrepareSubsteps(from);
  tiny2.Substep(from, 0.5 * dt);
  EXPECT_EQ(tiny2.data()->narena, tiny2.full_arena());
  full.PrepareSubsteps(from);
  full.Substep(from, 0.5 * dt);
  ExpectSameStep(stepped.get(), tiny2.data(), full.data());
  const Eigen::MatrixXd A = full.StepJacobian(from, dt, 1e-6), B = tiny3.StepJacobian(from, dt, 1e-6);
  EXPECT_EQ(tiny3.data()->narena, tiny3.full_arena());
  EXPECT_EQ((A - B).norm(), 0.0);
}

TEST(PrivateArena, ResimulatorGrowsAheadWhenHalfItsArenaWasUsed) {
  ModelPtr stepped = LoadModelFromString(Balls());
  ASSERT_TRUE(stepped);
  const SavedStep from = StateAt(stepped.get(), 0.1);
  Resimulator full(stepped.get(), 1 << 30);
  full.Step(from, stepped->opt.timestep);
  const mjtSize used = full.data()->maxuse_arena;
  // room for the step (it does not fill), but less than twice what it uses
  Resimulator close(stepped.get(), used + used / 2);
  close.Step(from, stepped->opt.timestep);
  EXPECT_EQ(close.data()->warning[mjWARN_CONTACTFULL].number, 1);  // the quiet pre-count only:
  EXPECT_EQ(close.data()->warning[mjWARN_CNSTRFULL].number, 1);    // the step fitted
  EXPECT_EQ(close.data()->narena, used + used / 2);
  ExpectSameStep(stepped.get(), close.data(), full.data());
  // the next call grows it first (and gives the same step)
  close.Step(from, stepped->opt.timestep);
  EXPECT_EQ(close.data()->narena, close.full_arena());
  ExpectSameStep(stepped.get(), close.data(), full.data());
  // with room for twice the use it stays small
  Resimulator roomy(stepped.get(), 3 * used);
  roomy.Step(from, stepped->opt.timestep);
  roomy.Step(from, stepped->opt.timestep);
  EXPECT_EQ(roomy.data()->narena, 3 * used);
  ExpectSameStep(stepped.get(), roomy.data(), full.data());
}

}  // namespace
}  // namespace saltation::testing
