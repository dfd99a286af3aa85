// SimulatorOptions::max_events holds over a whole run (issue 14): RunRigid, the run of the `rigid`
// command and of Python's saltation.rigid, advances one event per Advance call, so a limit counted
// per call never fired there; now more than max_events events within 0.1 s of simulated time stop
// the run with a NumericalError naming the limit and the time reached (event_limit.h), after
// delivering the event it stops at (the one past the limit: to the caller's events, RunRigid's
// on_event).
//
// The model: a ball of radius 0.05 dropped from 0.1 m above a plane with restitution e = 0.5
// bounces at the closed-form times t_n = t₁(1 + 2 Σ_{k=1}^{n−1} e^k), t₁ = √(2h/g) (the flight
// after the k-th bounce lasts 2 e^k t₁), until its impact speed e^{n−1} g t₁ drops below the
// model's plastic threshold min_bounce_speed = 0.01 m/s (the 9th touchdown) and it rests: 9
// events in 0.5 s. The windows of 0.1 s open at the 1st, the 2nd (0.2856 s) and the 4th touchdown
// (t₁ · 2.75 = 0.39266 s); with max_events = 3 the 7th (t₁ · 2.96875 = 0.42389 s), the 4th of that
// window, is one too many.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <gmock/gmock.h>

#include "saltation/errors.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

using ::testing::HasSubstr;

constexpr double kG = 9.81, kDrop = 0.1, kE = 0.5;

const char* kBouncingBall = R"(
<mujoco>
  <option gravity="0 0 -9.81"/>
  <custom><numeric name="saltation_restitution" data="0.5"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="ball" pos="0 0 0.15">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.05" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";

// the n-th touchdown's time (n ≥ 1)
double TouchdownTime(int n) {
  const double t1 = std::sqrt(2 * kDrop / kG);
  double sum = 0;
  for (int k = 1; k < n; k++) sum += std::pow(kE, k);
  return t1 * (1 + 2 * sum);
}

class RigidEventLimit : public MujocoTest {
 protected:
  void SetUp() override {
    MujocoTest::SetUp();
    m_ = LoadModelFromString(kBouncingBall);
    model_ = std::make_unique<Model>(m_.get());
  }
  State Start() const { return InitialState(m_.get(), ""); }
  // the limit the tests stop at: 3 events within 0.1 s
  static SimulatorOptions ThreeEvents() {
    SimulatorOptions options;
    options.max_events = 3;
    return options;
  }

  ModelPtr m_;
  std::unique_ptr<Model> model_;
};

TEST_F(RigidEventLimit, TheDefaultLimitLetsTheBallComeToRest) {
  RigidSimulator sim(*model_);
  HybridState s = sim.Initialize(Start());
  std::vector<RigidEvent> events;
  RunRigid(sim, s, 0.5, [&](const RigidEvent& ev) { events.push_back(ev); });
  ASSERT_EQ(events.size(), 9u);
  for (int n = 1; n <= 9; n++) {
    EXPECT_EQ(events[n - 1].kind, EventKind::kTouchdown);
    EXPECT_NEAR(events[n - 1].time, TouchdownTime(n), 1e-13) << "touchdown " << n;
  }
  EXPECT_EQ(s.mode.contacts.size(), 1u);  // resting
}

// what a run that may stop delivered: its events' times and the NumericalError's message ("" if none)
struct Delivered {
  std::vector<double> times;
  std::string message;
};
Delivered RunCatching(const std::function<void(std::vector<double>&)>& run) {
  Delivered out;
  try {
    run(out.times);
  } catch (const NumericalError& e) {
    out.message = e.what();
  }
  return out;
}

// the times of the events of an appending Advance `run`, also when it throws
std::function<void(std::vector<double>&)> Appending(const std::function<void(std::vector<RigidEvent>&)>& run) {
  return [run](std::vector<double>& times) {
    std::vector<RigidEvent> events;
    try {
      run(events);
    } catch (...) {
      for (const RigidEvent& ev : events) times.push_back(ev.time);
      throw;
    }
    for (const RigidEvent& ev : events) times.push_back(ev.time);
  };
}

// the 7th touchdown delivered as the last event, then the error naming the limit and the time
void ExpectStoppedAtTheSeventh(const Delivered& run) {
  ASSERT_EQ(run.times.size(), 7u) << run.message;
  for (int n = 1; n <= 7; n++) EXPECT_NEAR(run.times[n - 1], TouchdownTime(n), 1e-13) << "touchdown " << n;
  EXPECT_THAT(run.message, HasSubstr("more than 3 events within 0.1 s of simulated time (the limit max_events = 3)"));
  EXPECT_THAT(run.message, HasSubstr("event 4 of the window at t = 0.423890927"));
  EXPECT_THAT(run.message, HasSubstr("its first at t = 0.392656859"));
  EXPECT_THAT(run.message, HasSubstr("Zeno"));
}

// RunRigid (one event per Advance) stops at the 7th touchdown and passes it on, after the six
// before it (before, the 7th was neither passed on nor counted: the run stopped past an event it
// never reported)
TEST_F(RigidEventLimit, ARunStopsAtTheEventPastTheLimitDeliveringItAndNamingTheLimit) {
  RigidSimulator sim(*model_, ThreeEvents());
  HybridState s = sim.Initialize(Start());
  ExpectStoppedAtTheSeventh(RunCatching([&](std::vector<double>& times) {
    RunRigid(sim, s, 0.5, [&](const RigidEvent& ev) { times.push_back(ev.time); });
  }));
  EXPECT_NEAR(s.x.time, TouchdownTime(7), 1e-13);  // the state reached: just after the 7th
}

// one Advance over the whole run applies the same limit to its own events: the appending form
// keeps them all, the one it stops at last, s its post-event state (the returning form loses the
// call's events with the error)
TEST_F(RigidEventLimit, OneAdvanceStopsAtTheSameEvent) {
  RigidSimulator sim(*model_, ThreeEvents());
  HybridState s = sim.Initialize(Start());
  ExpectStoppedAtTheSeventh(RunCatching(Appending([&](std::vector<RigidEvent>& events) {
    try {
      sim.Advance(s, 0.5, events);
    } catch (...) {
      EXPECT_TRUE(!events.empty() && events.back().x_plus.time == s.x.time);
      throw;
    }
  })));
  EXPECT_NEAR(s.x.time, TouchdownTime(7), 1e-13);
  HybridState again = sim.Initialize(Start());
  const Delivered returning = RunCatching([&](std::vector<double>&) { sim.Advance(again, 0.5); });
  EXPECT_THAT(returning.message, HasSubstr("event 4 of the window at t = 0.423890927"));
}

// a caller looping Advance itself, one event per call, is held to the same limit: the count is the
// simulator's run, continued by each call that starts from the state the last one left (before,
// each call counted only its own one event and the loop ran on)
TEST_F(RigidEventLimit, ALoopOfOneEventAdvancesStopsAtTheSameEvent) {
  RigidSimulator sim(*model_, ThreeEvents());
  HybridState s = sim.Initialize(Start());
  ExpectStoppedAtTheSeventh(RunCatching(Appending([&](std::vector<RigidEvent>& events) {
    while (s.x.time < 0.5) sim.Advance(s, 0.5, events, 1);
  })));
  EXPECT_NEAR(s.x.time, TouchdownTime(7), 1e-13);
  // the state the throw left continues the run: the 8th touchdown is the 5th of its window
  const Delivered on = RunCatching(Appending([&](std::vector<RigidEvent>& events) { sim.Advance(s, 0.5, events); }));
  ASSERT_EQ(on.times.size(), 1u) << on.message;
  EXPECT_NEAR(on.times[0], TouchdownTime(8), 1e-13);
  EXPECT_THAT(on.message, HasSubstr("event 5 of the window"));
  // a new run (Initialize) counts afresh, and so does a call that starts elsewhere than where the
  // last call left its state: from 0.4 s again after a call reached 0.42 s (the window the 4th
  // touchdown opened holds the 4th to 6th then; continuing that count the 5th would be one too many)
  s = sim.Initialize(Start());
  EXPECT_EQ(sim.Advance(s, 0.4).size(), 4u);
  const HybridState at_04 = s;
  EXPECT_EQ(sim.Advance(s, 0.42).size(), 2u);
  HybridState again = at_04;
  EXPECT_EQ(sim.Advance(again, 0.42).size(), 2u);
}

// Only the state the last Advance left, unchanged, continues its run: a copy of it perturbed for a
// finite difference, at the same time, starts a new run (before, any state at the time the last
// call left its state at continued that count, and the perturbed ball's 7th touchdown was one too
// many). At 0.42 s the window holds the 4th to 6th touchdowns: the unchanged state's (or a copy's)
// 7th is one too many, a perturbed copy's 7th to 9th are the 1st to 3rd of its own run.
TEST_F(RigidEventLimit, APerturbedCopyOfTheRunsStateStartsANewRun) {
  RigidSimulator sim(*model_, ThreeEvents());
  for (const double dz : {0.0, 1e-9, -1e-9}) {
    HybridState s = sim.Initialize(Start());
    ASSERT_EQ(sim.Advance(s, 0.42).size(), 6u);
    HybridState copy = s;
    copy.x.qpos(2) += dz;
    const Delivered rest = RunCatching([&](std::vector<double>& times) {
      for (const RigidEvent& ev : sim.Advance(copy, 0.5)) times.push_back(ev.time);
    });
    if (dz == 0) {
      EXPECT_THAT(rest.message, HasSubstr("event 4 of the window at t = 0.423890927"));
    } else {
      EXPECT_EQ(rest.message, "") << "dz = " << dz;
      ASSERT_EQ(rest.times.size(), 3u) << "dz = " << dz;
      EXPECT_NEAR(rest.times[2], TouchdownTime(9), 1e-6) << "dz = " << dz;
    }
  }
}

TEST_F(RigidEventLimit, ALimitBelowOneIsAConfigError) {
  SimulatorOptions options;
  options.max_events = 0;
  try {
    RigidSimulator sim(*model_, options);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("max_events must be at least 1, not 0"));
  }
}

}  // namespace
}  // namespace saltation::testing
