// Near misses (ContactTracker::NearMisses): a guard's local minimum just above zero over three
// steps is a near miss of its pair — unless the pair touches elsewhere at that step (a mesh's
// face resting on the floor, its other hull vertices a millimetre above it, jittering with the
// soft contact: Spot's trunk gave 444 near misses in 2 s, 22 with this rule).
#include <gtest/gtest.h>

#include <vector>

#include "contact_tracking.h"

namespace saltation::testing {
namespace {

ContactPoint Point(int g1, int g2, double x, double gap) {
  ContactPoint p;
  p.id.geom1 = g1;
  p.id.geom2 = g2;
  p.id.anchor = Eigen::Vector3d(x, 0, 0);
  p.pos = p.id.anchor;
  p.frame.setIdentity();
  p.gap = gap;
  return p;
}

int NearMissCount(const std::vector<ContactPoint>& before, const std::vector<ContactPoint>& at,
                  const std::vector<ContactPoint>& after) {
  HookOptions options;
  options.near_miss_distance = 0.01;
  int count = 0;
  ContactTracker tracker(options, [&](const HookEvent& ev) { count += ev.kind == EventKind::kNearMiss; });
  tracker.NearMisses(before, at, 0.1, after);
  return count;
}

TEST(NearMiss, AHoveringPointOfAPairThatTouchesElsewhereIsNoMiss) {
  const double g = 1e-3;  // within the near-miss distance (set to 1 cm below)
  // one vertex dips to g and rises again: a near miss of its pair
  EXPECT_EQ(NearMissCount({Point(0, 1, 0.1, 2 * g)}, {Point(0, 1, 0.1, g)}, {Point(0, 1, 0.1, 2 * g)}), 1);
  // the same, while another point of the pair touches: none
  EXPECT_EQ(NearMissCount({Point(0, 1, 0.1, 2 * g), Point(0, 1, -0.1, 0)}, {Point(0, 1, 0.1, g), Point(0, 1, -0.1, -1e-4)},
                          {Point(0, 1, 0.1, 2 * g), Point(0, 1, -0.1, 0)}),
            0);
  // a point of another pair touching does not hide it
  EXPECT_EQ(NearMissCount({Point(0, 1, 0.1, 2 * g), Point(0, 2, -0.1, 0)}, {Point(0, 1, 0.1, g), Point(0, 2, -0.1, -1e-4)},
                          {Point(0, 1, 0.1, 2 * g), Point(0, 2, -0.1, 0)}),
            1);
}

}  // namespace
}  // namespace saltation::testing
