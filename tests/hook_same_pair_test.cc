// Two points of ONE geom pair closer to each other than the hook's detection margin, touching down
// one after the other: the engine hook records both (hook_events.cc decides whether a touchdown's
// point is already in the mode by matching it to the mode's points, not by a distance).
//
// The scene: a small free box (half size a = 6 mm, well under the default detection margin's
// 1 cm) pitched by β = 0.02 rad about y (its +x edge lowest), falling without gravity or rotation
// at v = 1 m/s onto a plane, restitution 0. Its two +x corners (A) touch down together at t_A =
// 10.3 ms and stay in the mode (plastic impact); its two −x corners (B), 2a·sin β = 0.24 mm higher,
// touch down at t_B = t_A + 2a·sin β / v inside the same 1 ms step. Inside that step MuJoCo's
// trajectory, on which the hook localises, is free flight (its contact forces are computed at the
// step's start, where every gap is positive), so t_B is a closed form. B's corners are 12 mm from
// A's: with a tolerance of 2·detect_margin = 2 cm the hook took B's touchdown for A's, already in
// the mode, and dropped it without a word.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_families.h"
#include "saltation/contacts.h"
#include "saltation/hook.h"
#include "test_util.h"

namespace saltation::testing {
namespace {

constexpr double kHalf = 0.006;   // m, the box's half size
constexpr double kPitch = 0.02;   // rad, about y
constexpr double kSpeed = 1.0;    // m/s, downwards
constexpr double kTouchA = 0.0103;  // s, the +x corners' touchdown

struct Scene {
  Eigen::Matrix3d R;
  Eigen::Vector3d centre;  // at t = 0
  std::string xml;
};

Scene MakeScene() {
  Scene s;
  s.R = Eigen::AngleAxisd(kPitch, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const double lowest = (s.R * Eigen::Vector3d(kHalf, 0, -kHalf)).z();  // the +x corners' height over the centre
  s.centre = Eigen::Vector3d(0, 0, kSpeed * kTouchA - lowest);
  const Eigen::Quaterniond q(s.R);
  char buf[800];
  std::snprintf(buf, sizeof(buf), R"(
<mujoco>
  <option gravity="0 0 0" timestep="0.001"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="box" pos="%.17g %.17g %.17g" quat="%.17g %.17g %.17g %.17g"><freejoint/>
      <geom name="box" type="box" size="%.17g %.17g %.17g" mass="0.01"/>
    </body>
  </worldbody>
</mujoco>)",
                s.centre.x(), s.centre.y(), s.centre.z(), q.w(), q.x(), q.y(), q.z(), kHalf, kHalf, kHalf);
  s.xml = buf;
  return s;
}

// the time a corner (box coordinates) reaches the plane in free flight, and its place then
struct Touch {
  double time;
  Eigen::Vector3d point;
};
Touch CornerTouch(const Scene& s, const Eigen::Vector3d& corner) {
  const Eigen::Vector3d p0 = s.centre + s.R * corner;
  Touch t;
  t.time = p0.z() / kSpeed;
  t.point = p0 - t.time * kSpeed * Eigen::Vector3d::UnitZ();
  return t;
}

class HookSamePair : public MujocoTest {};

TEST_F(HookSamePair, SecondEdgeOfASmallBoxIsRecorded) {
  const Scene scene = MakeScene();
  ModelPtr m = LoadModelFromString(scene.xml);
  Hook hook(m.get());
  ASSERT_LT(2 * kHalf, 2 * hook.rigid_model().detect_margin());  // the scene is what it is for
  const Touch a = CornerTouch(scene, {kHalf, kHalf, -kHalf});
  const Touch b1 = CornerTouch(scene, {-kHalf, -kHalf, -kHalf}), b2 = CornerTouch(scene, {-kHalf, kHalf, -kHalf});
  const double h = m->opt.timestep;
  ASSERT_EQ(std::floor(a.time / h), std::floor(b1.time / h));  // one step holds both touchdowns

  DataPtr d(mj_makeData(m.get()));
  d->qvel[2] = -kSpeed;
  while (d->time < 0.013) hook.Step(d.get());

  std::vector<const HookEvent*> touchdowns;
  for (const HookEvent& ev : hook.events()) {
    if (ev.kind == EventKind::kTouchdown || ev.kind == EventKind::kGraze) touchdowns.push_back(&ev);
    std::printf("[ same pair ] %s at %.15f s, point (%.9f %.9f %.9f), anchor x %.6f\n", EventKindName(ev.kind), ev.time,
                ev.point.x(), ev.point.y(), ev.point.z(), ev.contact.anchor.x());
  }
  std::printf("[ same pair ] closed form: A at %.15f s, B at %.15f s\n", a.time, b1.time);
  // A's two corners: one impact (the second joined it, not recorded again); B's likewise
  ASSERT_EQ(touchdowns.size(), 2u);
  const HookEvent& first = *touchdowns[0];
  const HookEvent& second = *touchdowns[1];
  EXPECT_EQ(first.kind, EventKind::kTouchdown);
  EXPECT_NEAR(first.time, a.time, 1e-15);
  EXPECT_GT(first.contact.anchor.x(), 0);  // geom2 is the box: an anchor in its frame
  EXPECT_EQ(second.kind, EventKind::kTouchdown);
  EXPECT_TRUE(second.has_xi);
  EXPECT_NEAR(second.time, b1.time, 1e-15);
  EXPECT_TRUE(second.contact.SamePair(first.contact));
  EXPECT_NEAR(second.contact.anchor.x(), -kHalf, 1e-15);  // a −x corner of the box
  const Eigen::Vector3d& b = second.point.y() < 0 ? b1.point : b2.point;
  EXPECT_LT((second.point - b).norm(), 1e-14);
  std::printf("[ same pair ] errors: A %.2g s; B %.2g s, %.2g m\n", std::abs(first.time - a.time),
              std::abs(second.time - b1.time), (second.point - b).norm());
}

// One point's touchdown is one record. In BoxPile(16) (bench_families.h) at 0.6467 s two points
// of b11/b14 at a step's end follow one start point (crossings.h): two crossings, located at the
// same time on the same point; the first one's impact bounces its trigger off (not in the mode
// after it), and the second named that point again. No two touchdowns (or grazes) of one pair may
// share their time and place.
TEST_F(HookSamePair, NoTouchdownIsRecordedTwice) {
  ModelPtr m = LoadModelFromString(families::BoxPile(16));
  Hook hook(m.get());
  DataPtr d(mj_makeData(m.get()));
  while (d->time < 0.65) hook.Step(d.get());
  std::vector<const HookEvent*> touchdowns;
  for (const HookEvent& ev : hook.events()) {
    if (ev.kind == EventKind::kTouchdown || ev.kind == EventKind::kGraze) touchdowns.push_back(&ev);
  }
  ASSERT_GT(touchdowns.size(), 50u);
  int twice = 0;
  for (size_t i = 0; i < touchdowns.size(); i++) {
    for (size_t j = i + 1; j < touchdowns.size(); j++) {
      const HookEvent &a = *touchdowns[i], &b = *touchdowns[j];
      const bool same = a.contact.SamePair(b.contact) && std::abs(a.time - b.time) < 1e-9 && (a.point - b.point).norm() < 1e-6;
      twice += same;
      EXPECT_FALSE(same) << ContactLabel(hook.rigid_model(), a.contact) << " at " << a.time << " recorded twice";
    }
  }
  std::printf("[ same pair ] BoxPile(16) to 0.65 s: %zu touchdowns and grazes, %d recorded twice\n", touchdowns.size(), twice);
}

}  // namespace
}  // namespace saltation::testing
