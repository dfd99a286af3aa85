// The table-edge closed forms (theory.md §9) as checks shared by every feature family that has a
// rounded boundary a ball can slide over: a box's edge (edge_test.cc), a cylinder's rim
// (cylinder_features_test.cc).
//
// The scene: a frictionless ball of radius kBallRadius, mass 1, on slide joints x and z (state
// (x, z, v_x, v_z)), on a flat feature (`before`) whose boundary with the rounded one (`after`, an
// edge or rim of radius 0 through the origin) is the line x = 0, z = 0, gravity kGravity along −z.
//  - fast (v₀² > g r): it leaves at the boundary, t = x₀/v₀, the switch's Ξ[v_z, x] = −g/v₀;
//  - slow (v₀² < g r): it switches onto the edge at x₀/v₀ (Ξ[v_z, x] = −v₀/r, the centripetal jump)
//    and leaves where λ = m(g cos θ − v²/r) vanishes, cos θ* = (v₀²/(g r) + 2)/3,
//    t* = x₀/v₀ + ∫₀^θ* r dθ/v(θ), Ξ = I, dλ/dt = −3 m g sin θ* v*/r;
//  - the engine hook on MuJoCo's own (soft) simulation releases the fast ball at the boundary, where
//    λ_n jumps, with the switch's Ξ.
// Each check runs one speed and reports through GoogleTest (EXPECT/ADD_FAILURE) with `label`.
#ifndef SALTATION_TESTS_BALL_OVER_EDGE_CHECKS_H_
#define SALTATION_TESTS_BALL_OVER_EDGE_CHECKS_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "arc_closed_forms.h"
#include "test_util.h"

#include "saltation/contact_features.h"
#include "saltation/event_json.h"
#include "saltation/hook.h"
#include "saltation/rigid_simulator.h"

namespace saltation::testing {

constexpr double kGravity = 9.81, kBallRadius = 0.04;

struct BallOverEdge {
  const char* xml;     // the scene (the ball's joints x, z first)
  const char* before;  // the feature the ball slides on ("face", "cyl-face", "cyl-side")
  const char* after;   // the rounded one ("edge", "cyl-rim")
  const char* label;   // printed with the measured figures
};

// The rigid reference's events of the ball started x0 before the boundary at v0, to t_end.
inline std::vector<RigidEvent> SlideBall(RigidSimulator& sim, double x0, double v0, double t_end) {
  State x;
  x.qpos = Eigen::Vector2d(-x0, kBallRadius);
  x.qvel = Eigen::Vector2d(v0, 0);
  x.act.resize(0);
  HybridState s = sim.Initialize(x);
  EXPECT_EQ(s.mode.contacts.size(), 1u);
  return sim.Advance(s, t_end);
}

// Fast: one liftoff at the boundary at x₀/v₀ (x₀ = 0.1) with Ξ[v_z, x] = −g/v₀, to 1e-9.
inline void ExpectFastBallLeavesAtTheEdge(const BallOverEdge& scene, double v0) {
  ModelPtr m = LoadModelFromString(scene.xml);
  Model model(m.get());
  RigidSimulator sim(model);
  const double x0 = 0.1;
  const std::vector<RigidEvent> events = SlideBall(sim, x0, v0, 0.5);
  // one event: no spurious grazing touchdowns after it (the ball flies clear)
  ASSERT_EQ(events.size(), 1u) << scene.label << " " << scene.before << " v0 " << v0;
  const RigidEvent& ev = events[0];
  EXPECT_EQ(ev.kind, EventKind::kLiftoff) << "the switch onto the " << scene.after << " releases it";
  EXPECT_STREQ(FeatureName(ev.feature_before), scene.before);
  EXPECT_STREQ(FeatureName(ev.feature_after), scene.after);
  EXPECT_TRUE(ev.mode_after.contacts.empty());
  const Eigen::MatrixXd truth = XiWithEntry(-kGravity / v0);
  std::printf("[ %s ] %s fast v0 %.1f: t − t_exact = %+.2e s, x⁻ = %+.2e m, max |Ξ − Ξ_exact| = %.2e\n",
              scene.label, scene.before, v0, ev.time - x0 / v0, ev.x_minus.qpos(0),
              (ev.xi.Dense() - truth).cwiseAbs().maxCoeff());
  EXPECT_NEAR(ev.time, x0 / v0, 1e-9);
  EXPECT_NEAR(ev.x_minus.qpos(0), 0, 1e-9);
  EXPECT_LT((ev.xi.Dense() - truth).cwiseAbs().maxCoeff(), 1e-9) << ev.xi.Dense();
  const std::string json = EventToJson(model, ev, 0.0);
  EXPECT_NE(json.find(std::string("\"feature_before\":\"") + scene.before + "\",\"feature_after\":\"" +
                      scene.after + "\""),
            std::string::npos)
      << json;
}

// Slow: the switch onto the boundary located at x₀/v₀ (x₀ = 0.05) with Ξ[v_z, x] = −v₀/r, then the
// release on the rounded part at t* with Ξ = I (times, positions, Ξ to 1e-9; dλ/dt to 1e-7
// relative).
inline void ExpectSlowBallRollsRoundAndLeaves(const BallOverEdge& scene, double v0) {
  ModelPtr m = LoadModelFromString(scene.xml);
  Model model(m.get());
  RigidSimulator sim(model);
  const double x0 = 0.05;
  const std::vector<RigidEvent> events = SlideBall(sim, x0, v0, x0 / v0 + 0.3);
  ASSERT_EQ(events.size(), 2u) << scene.label << " " << scene.before << " v0 " << v0;
  const RigidEvent& on = events[0];
  EXPECT_EQ(on.kind, EventKind::kFeature);
  EXPECT_STREQ(FeatureName(on.feature_before), scene.before);
  EXPECT_STREQ(FeatureName(on.feature_after), scene.after);
  ASSERT_EQ(on.mode_after.contacts.size(), 1u);
  const Eigen::MatrixXd on_truth = XiWithEntry(-v0 / kBallRadius);
  EXPECT_NEAR(on.time, x0 / v0, 1e-9);
  EXPECT_LT((on.xi.Dense() - on_truth).cwiseAbs().maxCoeff(), 1e-9) << on.xi.Dense();
  const RigidEvent& off = events[1];
  EXPECT_EQ(off.kind, EventKind::kLiftoff);
  const double c = (v0 * v0 / (kGravity * kBallRadius) + 2) / 3;
  const double theta = std::acos(c);
  const double t_exact = x0 / v0 + TimeRoundAnArc(v0, kBallRadius, kGravity, theta);
  const double v_exact = std::sqrt(v0 * v0 + 2 * kGravity * kBallRadius * (1 - c));
  const double rate_exact = -3 * kGravity * std::sin(theta) * v_exact / kBallRadius;  // dλ/dt, m = 1
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(4, 4);
  std::printf("[ %s ] %s slow v0 %.2f: switch t − t_exact = %+.2e s, max |Ξ − Ξ_exact| = %.2e; release at "
              "θ* = %.4f: t − t_exact = %+.2e s, max |Ξ − I| = %.2e, dλ/dt %.9g (exact %.9g)\n",
              scene.label, scene.before, v0, on.time - x0 / v0, (on.xi.Dense() - on_truth).cwiseAbs().maxCoeff(),
              theta, off.time - t_exact, (off.xi.Dense() - identity).cwiseAbs().maxCoeff(), off.xi.transversality,
              rate_exact);
  EXPECT_NEAR(off.time, t_exact, 1e-9);
  EXPECT_NEAR(off.x_minus.qpos(0), kBallRadius * std::sin(theta), 1e-9);
  EXPECT_NEAR(off.x_minus.qpos(1), kBallRadius * c, 1e-9);
  EXPECT_LT((off.xi.Dense() - identity).cwiseAbs().maxCoeff(), 1e-9) << off.xi.Dense();
  EXPECT_NEAR(off.xi.transversality, rate_exact, 1e-7 * std::abs(rate_exact));  // measured 2.2e-8 (box edge), 1.3e-8 (cylinder rim)
}

// The hook: MuJoCo's own simulation of the ball started 0.05 before the boundary at v0, to 0.1 s;
// its first liftoff is at the boundary (to 1e-9 m) with the switch's Ξ[v_z, x] = −g/v_x⁻ (to 1e-9).
inline void ExpectHookReleasesAtTheEdge(const BallOverEdge& scene, double v0) {
  ModelPtr m = LoadModelFromString(scene.xml);
  DataPtr d(mj_makeData(m.get()));
  d->qpos[0] = -0.05;
  d->qpos[1] = kBallRadius;
  d->qvel[0] = v0;
  Hook hook(m.get());
  while (d->time < 0.1) hook.Step(d.get());
  size_t i = 0;
  while (i < hook.events().size() && hook.events()[i].kind != EventKind::kLiftoff) i++;
  ASSERT_LT(i, hook.events().size()) << scene.label << " v0 " << v0 << ": no liftoff";
  ASSERT_TRUE(hook.events()[i].has_xi);
  const RigidEvent& ev = hook.CompletedEvent(i).rigid;
  EXPECT_STREQ(FeatureName(ev.feature_before), scene.before);
  EXPECT_STREQ(FeatureName(ev.feature_after), scene.after);
  const Eigen::MatrixXd truth = XiWithEntry(-kGravity / ev.x_minus.qvel(0));
  std::printf("[ %s ] hook v0 %.1f: released at x⁻ = %+.2e m, max |Ξ − Ξ_%s| = %.2e\n", scene.label, v0,
              ev.x_minus.qpos(0), scene.after, (ev.xi.Dense() - truth).cwiseAbs().maxCoeff());
  EXPECT_NEAR(ev.x_minus.qpos(0), 0, 1e-9);
  EXPECT_LT((ev.xi.Dense() - truth).cwiseAbs().maxCoeff(), 1e-9) << ev.xi.Dense();
}

}  // namespace saltation::testing

#endif  // SALTATION_TESTS_BALL_OVER_EDGE_CHECKS_H_
