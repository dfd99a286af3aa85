// The Resimulator's sub-steps share MuJoCo's forward pass (resimulation.h): a PrepareSubsteps from
// the state whose forward pass its data holds runs none, and the sub-steps taken after it are
// still bit for bit MuJoCo's step of that length; any other call in between (another state, Load,
// Step, data()) makes the next PrepareSubsteps run the forward pass again.
#include <cmath>
#include <cstring>

#include "resimulation.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class ResimulationTest : public MujocoTest {};

// x_k of the humanoid falling onto the floor (feet touching) at step k
SavedStep HumanoidAt(const mjModel* m, mjData* d, int k) {
  mj_resetData(m, d);
  for (int i = 0; i < k; i++) mj_step(m, d);
  SavedStep s;
  Capture(m, d, s);
  return s;
}

// the sub-step of length h from `from` is a fresh Resimulator's mj_step of length h, bit for bit
void ExpectMujocosStep(mjModel* m, Resimulator& r, const SavedStep& from, double h, const char* what) {
  Resimulator fresh(m);
  fresh.Step(from, h);
  const State a = r.StateNow(), b = fresh.StateNow();
  EXPECT_EQ(a.time, b.time) << what;
  EXPECT_EQ(std::memcmp(a.qpos.data(), b.qpos.data(), sizeof(double) * m->nq), 0) << what;
  EXPECT_EQ(std::memcmp(a.qvel.data(), b.qvel.data(), sizeof(double) * m->nv), 0) << what;
}

TEST_F(ResimulationTest, SubstepsFromTheSameStateShareOneForwardPass) {
  ModelPtr m = LoadModel(SALTATION_MUJOCO_MODELS "/humanoid/humanoid.xml");
  ASSERT_EQ(m->opt.integrator, mjINT_EULER);
  DataPtr d(mj_makeData(m.get()));
  const SavedStep a = HumanoidAt(m.get(), d.get(), 250), b = HumanoidAt(m.get(), d.get(), 251);
  ASSERT_GT(d->ncon, 0);
  const double dt = m->opt.timestep;
  Resimulator r(m.get());
  ASSERT_TRUE(r.ForwardIgnoresTimestep());

  r.PrepareSubsteps(a);
  EXPECT_EQ(r.forward_passes(), 1);
  r.Substep(a, 0.3 * dt);
  r.PrepareSubsteps(a);  // the forward pass at a is still held: none runs
  EXPECT_EQ(r.forward_passes(), 1);
  r.Substep(a, 0.71 * dt);
  ExpectMujocosStep(m.get(), r, a, 0.71 * dt, "a sub-step after another, one forward pass");

  r.PrepareSubsteps(b);  // another state
  EXPECT_EQ(r.forward_passes(), 2);
  r.Substep(b, 0.5 * dt);
  ExpectMujocosStep(m.get(), r, b, 0.5 * dt, "from b");
  r.PrepareSubsteps(a);  // a again: its forward pass is gone
  EXPECT_EQ(r.forward_passes(), 3);
  r.Substep(a, 0.4 * dt);
  ExpectMujocosStep(m.get(), r, a, 0.4 * dt, "from a again");

  // a state that differs from a in one input only (bit for bit: the control, the warmstart)
  SavedStep a_ctrl = a;
  a_ctrl.ctrl(0) = std::nextafter(a.ctrl(0), 1.0);
  r.PrepareSubsteps(a_ctrl);
  EXPECT_EQ(r.forward_passes(), 4);
  r.Substep(a_ctrl, 0.4 * dt);
  ExpectMujocosStep(m.get(), r, a_ctrl, 0.4 * dt, "a with another control");
  SavedStep a_warm = a_ctrl;
  a_warm.warmstart(3) = std::nextafter(a_ctrl.warmstart(3), 1e9);
  r.PrepareSubsteps(a_warm);
  EXPECT_EQ(r.forward_passes(), 5);

  // a whole step, a Load or the data handed out in between: the forward pass runs again
  r.PrepareSubsteps(a);
  EXPECT_EQ(r.forward_passes(), 6);
  r.Step(a, 0.2 * dt);
  r.PrepareSubsteps(a);
  EXPECT_EQ(r.forward_passes(), 7);
  r.Substep(a, 0.6 * dt);
  ExpectMujocosStep(m.get(), r, a, 0.6 * dt, "after a whole step");
  r.Load(b);
  r.PrepareSubsteps(a);
  EXPECT_EQ(r.forward_passes(), 8);
  r.data();
  r.PrepareSubsteps(a);
  EXPECT_EQ(r.forward_passes(), 9);
  r.PrepareSubsteps(a);
  EXPECT_EQ(r.forward_passes(), 9);
}

}  // namespace
}  // namespace saltation::testing
