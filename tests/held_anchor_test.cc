// A held contact's anchor follows its point (rigid_simulator.cc, FollowHeld): the exact reference
// refreshes every held contact's anchor to its point after each accepted step and each event, so a
// point that slides far over geom2 keeps matching its own point, not a neighbour's.
//
// Pile(35) stopped at 0.463904 s ("contact b17/b26@3 bounced off and back within step/16"): a held
// edge–edge point had slid 25 mm from its anchor (where it was first seen), which then lay nearer to
// another listed point of the pair, not held (gap 0.059 m): the mode held that one, the real point
// went unheld, sank, and came back as a touchdown.
//
// The scene: a thin plate (half sizes h = 0.05, 0.05, t = 0.004) lying flat on a fixed base box (top
// face z = 0), frictionless, sliding at v = 1 m/s along +x under gravity. The plate comes first in
// the model, so the pair is plate/base and its anchors lie in the base's frame (the world's, moved
// by the base's centre): the plate's four bottom corners (gap 0, held) slide along x at v there
// (its top corners are not listed: no support of the plate towards the base, box_box_points.cc;
// before, they were, 2t above, and the stale anchor lay nearer the top one over its neighbour once
// s > h + t²/(4h) = 50.08 mm). After a slide s, the anchor of a +x bottom corner, where it was first
// seen, lies s from its own point and 2h − s from its −x neighbour's: nearer to that one once s > h.
// (With the first anchors and the top corners listed, the mode held the top corners over the −x
// ones, lost its +x supports and the plate tipped over its −x edge.) With the anchors refreshed
// after each step (1 mm of slide), the plate slides 0.1 m through, flat, without an event.
#include <cmath>
#include <vector>

#include "saltation/contacts.h"
#include "saltation/loading.h"
#include "saltation/rigid_simulator.h"
#include "plate_on_base_scene.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

using Vec3 = Eigen::Vector3d;

constexpr double kHalf = kPlateHalf, kThick = kPlateThick, kSpeed = 1.0, kStartX = kPlateStartX;

// the pair's listed points with the plate flat, its centre at x
std::vector<ContactPoint> PointsAt(const Model& model, double x) {
  Eigen::VectorXd qpos(7);
  qpos << x, 0.0, kThick, 1.0, 0.0, 0.0, 0.0;
  return ListedPoints(model, qpos);
}

// the index of the point at `anchor` (base frame) to 1e-12 m, or −1
int PointAt(const std::vector<ContactPoint>& points, const Vec3& anchor) {
  for (size_t i = 0; i < points.size(); i++) {
    if ((points[i].id.anchor - anchor).norm() < 1e-12) return static_cast<int>(i);
  }
  return -1;
}

// a plate corner's point in the base's frame (its centre 0.05 m below the top face) with the
// plate's centre at x: bottom corners on the face, top corners' points t above it
Vec3 Corner(double x, double sx, double sy, bool top) {
  return Vec3(x + sx * kHalf, sy * kHalf, 0.05 + (top ? kThick : 0.0));
}

class HeldAnchor : public MujocoTest {};

TEST_F(HeldAnchor, APlateSlidingFarOverABoxKeepsHoldingItsOwnCorners) {
  ModelPtr m = LoadModelFromString(kPlateOnBase);
  Model model(m.get());
  const int plate = mj_name2id(m.get(), mjOBJ_GEOM, "plate"), base = mj_name2id(m.get(), mjOBJ_GEOM, "base");

  // the scene is what it is for: four points of plate/base (anchors in the base's frame), the
  // bottom corners touching; after a slide s = 0.06 m, the +x bottom corner's first anchor lies
  // nearer to its −x neighbour's point than to its own
  const double s_far = 0.06;
  const std::vector<ContactPoint> first = PointsAt(model, kStartX), far = PointsAt(model, kStartX + s_far);
  ASSERT_EQ(first.size(), 4u);
  ASSERT_EQ(far.size(), 4u);
  for (const ContactPoint& p : first) {
    EXPECT_EQ(p.id.geom1, plate);
    EXPECT_EQ(p.id.geom2, base);
  }
  for (double sx : {-1.0, 1.0}) {
    for (double sy : {-1.0, 1.0}) {
      const int bottom = PointAt(first, Corner(kStartX, sx, sy, false));
      ASSERT_GE(bottom, 0);
      EXPECT_NEAR(first[bottom].gap, 0, 1e-15);
    }
  }
  const ContactId neighbour = first[PointAt(first, Corner(kStartX, -1, -1, false))].id;
  const ContactId stale = first[PointAt(first, Corner(kStartX, 1, -1, false))].id;
  const int neighbour_own = PointAt(far, Corner(kStartX + s_far, -1, -1, false));
  const int own = PointAt(far, Corner(kStartX + s_far, 1, -1, false));
  ASSERT_GE(neighbour_own, 0);
  ASSERT_GE(own, 0);
  EXPECT_NEAR((far[own].id.anchor - stale.anchor).norm(), s_far, 1e-12);
  EXPECT_NEAR((far[neighbour_own].id.anchor - stale.anchor).norm(), 2 * kHalf - s_far, 1e-12);
  // (the +x corner, matched first, takes its −x neighbour's point; the neighbour then the nearest
  // left, its +y neighbour's, √(s² + 4h²) away)
  std::vector<int> match;
  MatchContacts({stale, neighbour}, far, match);
  EXPECT_EQ(match[0], neighbour_own);
  EXPECT_EQ(match[1], PointAt(far, Corner(kStartX + s_far, -1, 1, false)));

  // 0.1 m of slide (twice the plate's half size) at 1 m/s, 100 steps
  RigidSimulator sim(model);
  State x0 = InitialState(m.get(), "");
  x0.qvel(0) = kSpeed;
  HybridState s = sim.Initialize(x0);
  ASSERT_EQ(s.mode.contacts.size(), 4u);
  const double duration = 0.1;
  const std::vector<RigidEvent> events = sim.Advance(s, duration);
  EXPECT_EQ(events.size(), 0u);
  ASSERT_NEAR(s.x.time, duration, 1e-15);
  // flat and level, at the speed it started with: only gravity and the four normal rows act
  EXPECT_NEAR(s.x.qpos(0), kStartX + kSpeed * duration, 1e-12);
  EXPECT_NEAR(s.x.qpos(2), kThick, 1e-12);
  EXPECT_NEAR(s.x.qvel(0), kSpeed, 1e-12);
  EXPECT_LT(s.x.qvel.tail(5).norm(), 1e-12);
  // the mode holds the four bottom corners, each anchored where the closed form puts its corner
  // at the end (the plate's centre at x₀ + v t): one anchor per corner
  ASSERT_EQ(s.mode.contacts.size(), 4u);
  const double x_end = kStartX + kSpeed * duration;
  std::vector<bool> taken(4, false);
  for (size_t k = 0; k < s.mode.contacts.size(); k++) {
    int corner = -1;
    for (int c = 0; c < 4; c++) {
      const Vec3 at = Corner(x_end, c & 1 ? 1.0 : -1.0, c & 2 ? 1.0 : -1.0, false);
      if ((s.mode.contacts[k].anchor - at).norm() < 1e-12) corner = c;
    }
    ASSERT_GE(corner, 0) << "contact " << k << " anchored at " << s.mode.contacts[k].anchor.transpose()
                         << ", no bottom corner of the plate at x = " << x_end;
    EXPECT_FALSE(taken[corner]) << "two contacts on corner " << corner;
    taken[corner] = true;
  }
}

// One id matched alone (MatchContact: the engine hook's guards, point following) takes the point of
// its held feature as MatchContacts does, not the nearest anchor: a box's corner on the other's rim
// and an edge–edge point of its edge across the rim lie ~1e-6 m apart with normals at right angles,
// the anchor cannot tell them (before, MatchContact took the nearer: the other feature's point)
TEST(HeldAnchorMatch, OneIdTakesItsHeldFeaturesPointAsMatchContactsDoes) {
  ContactPoint edge_edge, vertex;
  edge_edge.id.geom1 = vertex.id.geom1 = 1;
  edge_edge.id.geom2 = vertex.id.geom2 = 2;
  edge_edge.id.anchor = Eigen::Vector3d(0.1, 0.05, 0.02);
  vertex.id.anchor = Eigen::Vector3d(0.1 + 1e-6, 0.05, 0.02);
  edge_edge.own_feature = 250;
  vertex.own_feature = 130;
  ContactPoint other_pair = vertex;
  other_pair.id.geom1 = 0;
  other_pair.own_feature = 250;
  const std::vector<ContactPoint> points = {other_pair, vertex, edge_edge};
  ContactId held = vertex.id;  // anchored at the vertex's point, holding the edge–edge feature
  held.feature = 250;
  std::vector<int> match;
  MatchContacts({held}, points, match);
  EXPECT_EQ(match[0], 2);
  EXPECT_EQ(MatchContact(held, points), 2);
  // without a held feature (or one its pair does not list) the nearest anchor of the pair
  held.feature = -1;
  EXPECT_EQ(MatchContact(held, points), 1);
  held.feature = 131;
  EXPECT_EQ(MatchContact(held, points), 1);
  MatchContacts({held}, points, match);
  EXPECT_EQ(match[0], 1);
}

}  // namespace
}  // namespace saltation::testing
