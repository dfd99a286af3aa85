// The rigid reference at scale (rigid_simulator.h): each crossing is located along its own
// island's mode (SimulatorOptions::locate_on_islands). The events equal those of the whole-mode
// location, and the work of a touchdown's location does not grow with bodies it does not touch.
#include <cmath>
#include <string>
#include <vector>

#include "bench_families.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

// `boxes` boxes (half-size 0.1, mass 1) resting on the floor 1 m apart, a ball (radius 0.1)
// falling onto the floor beside them from 0.2 m above it, and a capsule falling onto box 0 from
// 0.3 m: the ball's island is its own tree, the capsule's joins box 0's
std::string Scene(int boxes) {
  std::string xml = R"(<mujoco>
  <custom><numeric name="saltation_restitution" data="0.4"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="20 20 0.1"/>
    <body name="ball" pos="-1 0 0.3"><freejoint/><geom name="ball" type="sphere" size="0.1" mass="1"/></body>
    <body name="capsule" pos="0.02 0.01 0.55"><freejoint/>
      <geom name="capsule" type="capsule" size="0.04 0.08" euler="0 90 0" mass="0.5"/></body>
)";
  for (int k = 0; k < boxes; k++) {
    xml += "    <body name=\"box" + std::to_string(k) + "\" pos=\"" + std::to_string(k) +
           " 0 0.1\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"1\"/></body>\n";
  }
  return xml + "  </worldbody>\n</mujoco>\n";
}

std::vector<RigidEvent> RunScene(const Model& model, bool on_islands, double duration, RigidWork* work = nullptr,
                                 int max_events = -1) {
  SimulatorOptions options;
  options.locate_on_islands = on_islands;
  RigidSimulator sim(model, options);
  HybridState s = sim.Initialize(StateFromData(model.mj(), DataPtr(mj_makeData(model.mj())).get()));
  std::vector<RigidEvent> events;
  if (max_events > 0) {
    events = sim.Advance(s, duration, max_events);
  } else {
    RunRigid(sim, s, duration, [&](const RigidEvent& ev) { events.push_back(ev); });
  }
  if (work) *work = sim.work();
  return events;
}

// every event of the island path against the whole-mode path: the same kinds, contacts, times,
// states and Ξ. Measured: bit for bit on this scene (the island's rows are solved by the same
// blocks in the same order); held to 1e-12 relative.
void ExpectSameEvents(const std::vector<RigidEvent>& a, const std::vector<RigidEvent>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i++) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ(a[i].kind, b[i].kind);
    EXPECT_TRUE(a[i].contact.SamePair(b[i].contact));
    EXPECT_LE(std::abs(a[i].time - b[i].time), 1e-12 * std::max(1.0, std::abs(b[i].time)));
    EXPECT_LE((a[i].x_plus.qvel - b[i].x_plus.qvel).cwiseAbs().maxCoeff(), 1e-12 * std::max(1.0, b[i].x_plus.qvel.norm()));
    EXPECT_LE((a[i].x_plus.qpos - b[i].x_plus.qpos).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_EQ(a[i].mode_after.contacts.size(), b[i].mode_after.contacts.size());
    const Eigen::MatrixXd xa = a[i].xi.Dense(), xb = b[i].xi.Dense();
    EXPECT_LE((xa - xb).cwiseAbs().maxCoeff(), 1e-12 * std::max(1.0, xb.cwiseAbs().maxCoeff()));
  }
}

TEST(RigidIslands, LocationOnIslandsEqualsTheWholeMode) {
  ModelPtr m = LoadModelFromString(Scene(3));
  Model model(m.get());
  RigidWork island_work, whole_work;
  const std::vector<RigidEvent> on_islands = RunScene(model, true, 0.8, &island_work);
  const std::vector<RigidEvent> whole = RunScene(model, false, 0.8, &whole_work);
  // touchdowns of the ball and the capsule (bounces on the floor and on box 0) and their settling
  ASSERT_GE(on_islands.size(), 6u);
  ExpectSameEvents(on_islands, whole);
  // the same guard samples, fewer contacts integrated in them
  EXPECT_EQ(island_work.locate_samples, whole_work.locate_samples);
  EXPECT_LT(island_work.locate_contacts, whole_work.locate_contacts);
}

// the pile of the benchmarks (families::Pile): layers landing on one another, islands merging
TEST(RigidIslands, PileLocationOnIslandsEqualsTheWholeMode) {
  ModelPtr m = LoadModelFromString(families::Pile(25));
  Model model(m.get());
  const std::vector<RigidEvent> on_islands = RunScene(model, true, 0.25);
  const std::vector<RigidEvent> whole = RunScene(model, false, 0.25);
  ASSERT_GE(on_islands.size(), 40u);
  ExpectSameEvents(on_islands, whole);
}

// The ball's first touchdown is located along its own tree's free flight: no contact of the
// resting boxes is integrated at any guard sample, however many boxes rest (the whole-mode path
// integrates all their contacts at each sample)
TEST(RigidIslands, LocatingATouchdownIntegratesItsIslandAlone) {
  for (int boxes : {1, 6}) {
    SCOPED_TRACE(std::to_string(boxes) + " boxes");
    ModelPtr m = LoadModelFromString(Scene(boxes));
    Model model(m.get());
    RigidWork work;
    const std::vector<RigidEvent> first = RunScene(model, true, 1.0, &work, 1);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].kind, EventKind::kTouchdown);
    EXPECT_EQ(first[0].contact.geom2 >= 0 ? mj_id2name(m.get(), mjOBJ_GEOM, first[0].contact.geom2) : "",
              std::string("ball"));
    EXPECT_GE(first[0].mode_before.contacts.size(), 4u * boxes);  // the boxes' corners rest in the mode
    EXPECT_GT(work.locate_samples, 0);
    EXPECT_EQ(work.locate_contacts, 0);
  }
}

}  // namespace
}  // namespace saltation::testing
