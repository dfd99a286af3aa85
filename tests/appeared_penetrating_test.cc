// A contact point that appears already penetrating at a step's end (unseen at its start: outside
// the detection band, or not yet one of its pair's points) waits for an event that comes earlier in
// the same step — the next feature's point cutting in past a held one's boundary appears at the
// boundary itself — but only if it does not penetrate yet at that event: otherwise it crossed
// first, unseen, and the event would follow a missed one (RigidSimulator::Advance).
//
// Two balls (radius 0.05, no gravity) fall onto a floor far apart, with a detection band of 2 mm:
// the fast one (10 m/s, 1 cm per 1 ms step) is outside the band at the start of the step in which
// it crosses, at t_A = 10.4 ms; the slow one (1 m/s) is inside it and crosses at t_B = 10.7 ms.
#include <string>
#include <vector>

#include "test_util.h"

#include "saltation/rigid_simulator.h"

namespace saltation::testing {
namespace {

class AppearedPenetrating : public MujocoTest {};

// balls of radius 0.05 named `names`, in that order (their geoms' order), 1 m apart along x ending at
// x = 1, over a floor, without gravity
std::string Balls(const std::vector<std::string>& names) {
  std::string xml = R"(<mujoco><option gravity="0 0 0"/><worldbody><geom name="floor" type="plane" size="5 5 0.1"/>)";
  for (size_t b = 0; b < names.size(); b++) {
    const std::string x = std::to_string(1.0 - static_cast<double>(names.size() - 1 - b));
    xml += "<body name=\"" + names[b] + "\" pos=\"" + x + " 0 1\"><freejoint/><geom name=\"" + names[b] +
           "\" type=\"sphere\" size=\"0.05\" mass=\"1\"/></body>";
  }
  return xml + "</worldbody></mujoco>";
}

// the balls' state at t = 0: ball b falls at speed[b] and crosses the floor at crossing[b]
State Falling(const mjModel* m, const std::vector<double>& crossing, const std::vector<double>& speed) {
  State x;
  x.qpos = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
  x.qvel = Eigen::VectorXd::Zero(m->nv);
  x.act.resize(0);
  for (size_t b = 0; b < crossing.size(); b++) {
    x.qpos(7 * b + 2) = 0.05 + speed[b] * crossing[b];
    x.qvel(6 * b + 2) = -speed[b];
  }
  return x;
}

TEST_F(AppearedPenetrating, APointThatCrossedBeforeTheStepsEventIsAnError) {
  ModelPtr m = LoadModelFromString(Balls({"fast", "slow"}));
  Options options;
  options.detect_margin = 0.002;
  Model model(m.get(), options);
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(Falling(m.get(), {0.0104, 0.0107}, {10, 1}));
  // the slow ball's touchdown at 10.7 ms is not reported: the fast one went through the floor at
  // 10.4 ms, unseen (before: the slow ball's event, and the error only at the next step)
  try {
    const std::vector<RigidEvent> events = sim.Advance(s, 0.02, 1);
    ADD_FAILURE() << events.size() << " events, the first at t = " << (events.empty() ? -1.0 : events[0].time);
  } catch (const NumericalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("floor/fast appeared penetrating at t = 0.011"), std::string::npos) << what;
    // 10 m/s × (10.7 − 10.4) ms = 3 mm deep at the slow ball's touchdown
    EXPECT_NE(what.find("penetrated by 0.003 m already at t = 0.0107"), std::string::npos) << what;
  }
}

TEST_F(AppearedPenetrating, APointThatCrossesAfterTheStepsEventWaitsForIt) {
  // the other order within the step: the slow ball first (10.15 ms), the fast one after (10.3 ms:
  // 3 mm above the floor at the step's start, outside the band, 1.5 mm above at 10.15 ms, inside
  // it): both touchdowns, at their times
  ModelPtr m = LoadModelFromString(Balls({"fast", "slow"}));
  Options options;
  options.detect_margin = 0.002;
  Model model(m.get(), options);
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(Falling(m.get(), {0.0103, 0.01015}, {10, 1}));
  const std::vector<RigidEvent> events = sim.Advance(s, 0.0109);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, EventKind::kTouchdown);
  EXPECT_EQ(ContactLabel(model, events[0].contact), "floor/slow");
  EXPECT_NEAR(events[0].time, 0.01015, 1e-13);
  EXPECT_EQ(ContactLabel(model, events[1].contact), "floor/fast");
  EXPECT_NEAR(events[1].time, 0.0103, 1e-13);
}

// Two points appearing penetrating in one step: each is checked at the step's event, not the first
// alone. Three balls: the slow one (1 m/s) crosses at 10.7 ms, inside the band at the step's start;
// two fast ones (10 m/s) are outside it then and both appear at the step's end: "late" (listed
// first: its geom comes first) crosses at 10.9 ms, after the slow ball's event, and "early" at
// 10.4 ms, before it, unseen.
TEST_F(AppearedPenetrating, EveryPointThatAppearedIsCheckedAtTheStepsEvent) {
  ModelPtr m = LoadModelFromString(Balls({"late", "early", "slow"}));
  Options options;
  options.detect_margin = 0.002;
  Model model(m.get(), options);
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(Falling(m.get(), {0.0109, 0.0104, 0.0107}, {10, 10, 1}));
  // before: only "late" was checked at the slow ball's event (it does not penetrate yet there), and
  // the slow ball's touchdown was returned with "early" 3 mm through the floor
  try {
    const std::vector<RigidEvent> events = sim.Advance(s, 0.02, 1);
    ADD_FAILURE() << events.size() << " events, the first at t = " << (events.empty() ? -1.0 : events[0].time);
  } catch (const NumericalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("floor/early appeared penetrating at t = 0.011"), std::string::npos) << what;
    EXPECT_NE(what.find("penetrated by 0.003 m already at t = 0.0107"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace saltation::testing
