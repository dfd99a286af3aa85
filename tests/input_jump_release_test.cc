// A release caused by an input that changed between steps (the engine hook): a contact whose rigid
// normal force λ_n is negative at a step's start with that step's inputs releases at the step's
// start, exactly (HookEvent::input_jump), with Ξ = I: the guard is the time surface of the switch,
// not a state guard (docs/theory.md, "A release at an input jump").
//
// Scene (tests/models/pulled_ball.xml): a ball (radius r = 0.01 m, m = 0.1 kg) resting on a plane, pulled straight up by an
// applied force F = 2 m g (xfrc_applied, set between steps) from the first step starting at or
// after t_s = 0.02 s. Closed form: λ_n = m g − F = −m g < 0 at once. Before (66ca7a4) the hook
// never bracketed the sign change (it localised the liftoff guard with the previous step's inputs,
// where λ_n = m g at both ends) and recorded the ball only as a kinematic release once MuJoCo's
// gap passed release_gap = 1 mm (net acceleration g: about √(2·1 mm / g) = 14 ms later).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "saltation/event_json.h"
#include "saltation/hook.h"
#include "saltation/loading.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class InputJumpRelease : public MujocoTest {};

// the ball on its plane (its motor, ctrl 0, stays idle here: the pull is an applied force)
const char* kBallOnPlane = SALTATION_SOURCE_DIR "/tests/models/pulled_ball.xml";

// steps the hook to t_end, pulling the ball up by `pull` from the first step starting at or after
// t_s; returns that step's start time
double RunPulled(const mjModel* m, Hook& hook, mjData* d, double pull, double t_s, double t_end) {
  const int body = mj_name2id(m, mjOBJ_BODY, "ball");
  double switched = -1;
  while (d->time < t_end) {
    if (d->time >= t_s) {
      if (switched < 0) switched = d->time;
      d->xfrc_applied[6 * body + 2] = pull;
    }
    hook.Step(d);
  }
  return switched;
}

TEST_F(InputJumpRelease, ReleasesAtTheStepWhoseInputPulls) {
  ModelPtr m = LoadModel(kBallOnPlane);
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  // settle first: the ball rests in the mode
  while (d->time < 0.01) hook.Step(d.get());
  ASSERT_EQ(hook.mode().contacts.size(), 1u);
  const double weight = 0.1 * -m->opt.gravity[2];
  const double switched = RunPulled(m.get(), hook, d.get(), 2 * weight, 0.02, 0.05);
  std::vector<const HookEvent*> changes;
  for (const HookEvent& ev : hook.events()) {
    if (!ChangesContact(ev.kind)) continue;
    changes.push_back(&ev);
    std::printf("[ input jump ] %s at %.17g s (switch at %.17g s)%s%s\n", EventKindName(ev.kind), ev.time, switched,
                ev.proxy ? " (kinematic)" : "", ev.input_jump ? " (input jump)" : "");
  }
  ASSERT_EQ(changes.size(), 1u);
  const HookEvent& release = *changes[0];
  EXPECT_EQ(release.kind, EventKind::kLiftoff);
  EXPECT_FALSE(release.proxy);
  EXPECT_TRUE(release.input_jump);
  EXPECT_EQ(release.time, switched);  // the step's start, exactly
  EXPECT_EQ(release.bracket_lo, switched);
  EXPECT_EQ(release.bracket_hi, switched);
  EXPECT_TRUE(release.rigid.mode_after.contacts.empty());
  EXPECT_TRUE(hook.mode().contacts.empty());
  EXPECT_FALSE(release.grazing);
  // Ξ = I exactly (the switch's time does not move with the state); the time guard's pieces
  ASSERT_TRUE(release.has_xi);
  const int n = static_cast<int>(release.rigid.xi.grad_g.size());
  EXPECT_EQ((release.rigid.xi.Dense() - Eigen::MatrixXd::Identity(n, n)).norm(), 0.0);
  EXPECT_EQ(release.rigid.xi.grad_g.norm(), 0.0);
  EXPECT_EQ(release.rigid.xi.dg_dt, -1.0);
  EXPECT_EQ(release.rigid.xi.dt_dx.norm(), 0.0);
  // F⁻ (held, new inputs) and F⁺ (free) differ by the contact's force: a_z = 0 held, +g free
  EXPECT_NEAR(release.rigid.xi.f_minus(6 + 2), 0.0, 1e-9);
  EXPECT_NEAR(release.rigid.xi.f_plus(6 + 2), -m->opt.gravity[2], 1e-9);
  // the record says why
  const std::string json = HookEventToJson(hook.rigid_model(), release);
  EXPECT_NE(json.find("\"input_jump\":true"), std::string::npos) << json;
  EXPECT_NE(EventDetail(release).find("input jump"), std::string::npos);
}

// The bookkeeping on the worker thread (it replays each step from the saved start state and its
// inputs) records the same release, bit for bit
TEST_F(InputJumpRelease, TheWorkerThreadRecordsTheSameRelease) {
  ModelPtr m = LoadModel(kBallOnPlane);
  const double weight = 0.1 * -m->opt.gravity[2];
  std::vector<std::string> json[2];
  for (int worker = 0; worker < 2; worker++) {
    HookOptions options;
    options.worker_thread = worker == 1;
    Hook hook(m.get(), options);
    DataPtr d(mj_makeData(m.get()));
    RunPulled(m.get(), hook, d.get(), 2 * weight, 0.02, 0.05);
    for (const HookEvent& ev : hook.events()) {
      if (ChangesContact(ev.kind)) json[worker].push_back(HookEventToJson(hook.rigid_model(), ev));
    }
  }
  ASSERT_EQ(json[0].size(), 1u);
  EXPECT_EQ(json[0], json[1]);
  EXPECT_NE(json[0][0].find("\"input_jump\":true"), std::string::npos);
}

// A pull below the weight leaves λ_n = m g − F > 0: no release, and nothing flagged
TEST_F(InputJumpRelease, APullBelowTheWeightReleasesNothing) {
  ModelPtr m = LoadModel(kBallOnPlane);
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  const double weight = 0.1 * -m->opt.gravity[2];
  RunPulled(m.get(), hook, d.get(), 0.9 * weight, 0.02, 0.05);
  for (const HookEvent& ev : hook.events()) EXPECT_FALSE(ChangesContact(ev.kind)) << EventKindName(ev.kind) << " at " << ev.time;
  EXPECT_EQ(hook.mode().contacts.size(), 1u);
}


// A box resting on its four corners, pulled straight up by F = 3 m g from t_s: every corner pulls at
// the switch step's start, four input-jump crossings. The first release lets the three others go
// with it (ReleasePulling: they pull too); their own crossings then name contacts an earlier event of
// the step removed — not recorded, and counted (Hook::crossings_of_removed_contacts), not dropped
// silently
const char* kBoxOnPlane = R"(
<mujoco>
  <option timestep="0.001"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="ball" pos="0 0 0.01"><freejoint/><geom name="box" type="box" size="0.02 0.02 0.01" mass="0.1"/></body>
  </worldbody>
</mujoco>)";

TEST_F(InputJumpRelease, CrossingsOfContactsAnEarlierEventRemovedAreCounted) {
  ModelPtr m = LoadModelFromString(kBoxOnPlane);
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  while (d->time < 0.01) hook.Step(d.get());
  ASSERT_EQ(hook.mode().contacts.size(), 4u);
  EXPECT_EQ(hook.crossings_of_removed_contacts(), 0);
  const double weight = 0.1 * -m->opt.gravity[2];
  const double switched = RunPulled(m.get(), hook, d.get(), 3 * weight, 0.02, 0.05);
  std::vector<const HookEvent*> changes;
  for (const HookEvent& ev : hook.events()) {
    if (ChangesContact(ev.kind)) changes.push_back(&ev);
  }
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_TRUE(changes[0]->input_jump);
  EXPECT_EQ(changes[0]->time, switched);
  EXPECT_EQ(changes[0]->rigid.released.size(), 3u);
  EXPECT_TRUE(hook.mode().contacts.empty());
  EXPECT_EQ(hook.crossings_of_removed_contacts(), 3);
}

}  // namespace
}  // namespace saltation::testing
