// The exact rigid reference on a pile of boxes turned alike (bench_families.h's BoxPile(24)): box
// on box, face on face, the support's corners are edge–edge points of nearly parallel edges that
// slide along them ~1 mm per 1 ms step. An inactive point's guard must follow its own point through
// the step (RigidSimulator::StartOf, AnchorAt in rigid_simulator.cc): matched to the nearest start
// anchor instead, the guard jumped to a neighbouring point inside the step, the crossing the step's
// end showed went unlocated while the point sank 0.1 mm into the box below, and the run stopped at
// 0.354 s with "bounced off and back within step/16 … Zeno or chattering".
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_families.h"
#include "saltation/contacts.h"
#include "saltation/loading.h"
#include "saltation/rigid_simulator.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

class BoxPile : public MujocoTest {};

// Through 0.36 s (past where it stopped) no point outside the mode is left penetrating after an
// event: every crossing was located as it came.
TEST_F(BoxPile, SlidingEdgePointsAreFollowedThroughTheStep) {
  ModelPtr m = LoadModelFromString(families::BoxPile(24));
  Model model(m.get());
  RigidSimulator sim(model);
  HybridState s = sim.Initialize(InitialState(m.get(), ""));
  Data data(model);
  std::vector<ContactPoint> points;
  std::vector<int> match;
  double deepest = 0;  // the deepest point outside the mode after any event
  std::string where;
  int events = 0;
  ASSERT_NO_THROW(RunRigid(sim, s, 0.36, [&](const RigidEvent& ev) {
    events++;
    EvaluatePosition(model, data.main(), ev.x_plus.qpos.data());
    ListContacts(model, data.main(), points);
    MatchContacts(ev.mode_after.contacts, points, match);
    for (size_t i = 0; i < points.size(); i++) {
      if (std::find(match.begin(), match.end(), static_cast<int>(i)) != match.end()) continue;
      if (points[i].gap < deepest) {
        deepest = points[i].gap;
        where = ContactLabel(model, points[i].id) + " at t = " + std::to_string(ev.time);
      }
    }
  }));
  std::printf("BoxPile(24) to 0.36 s: %d events, deepest inactive point %.3g m (%s)\n", events, deepest,
              where.c_str());
  EXPECT_NEAR(s.x.time, 0.36, 1e-12);
  // measured 1.04e-6 m (b16/b22@3 at 0.3554 s, not yet explained); before: 1.08e-4 m (b16/b22@2,
  // sunk unlocated over 80 µs), then the run stopped at 0.354 s
  EXPECT_GT(deepest, -1.1e-6) << where;
}

}  // namespace
}  // namespace saltation::testing
