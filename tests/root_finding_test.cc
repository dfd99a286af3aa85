// LocateCrossing and HermiteRoot on guards with known roots: a simple root, a double root
// (tangency: reported as a graze, not lost), a dip that stays clear (a near miss) and two roots in
// one interval (the earlier first).
#include <gtest/gtest.h>

#include <cmath>

#include "saltation/root_finding.h"

namespace saltation {
namespace {

constexpr double kTol = 1e-13;

TEST(LocateCrossing, SimpleRootWithinTheBracketTolerance) {
  auto g = [](double s) { return GuardSample{std::cos(s) - 0.5}; };
  const CrossingResult r = LocateCrossing(g, 0, g(0).value, 2, g(2).value, {});
  ASSERT_EQ(r.kind, CrossingKind::kCrossing);
  const double root = M_PI / 3;
  EXPECT_LE(r.hi - r.lo, kTol);
  EXPECT_LE(r.lo, root + 1e-15);
  EXPECT_GE(r.hi, root - 1e-15);
  EXPECT_NEAR(r.time, root, kTol);
  EXPECT_TRUE(r.sampled);
  EXPECT_LT(r.evaluations, 20);  // superlinear: a bisection would need ~44
}

TEST(LocateCrossing, FirstTrialAndSlopeSeedTheSearch) {
  // a stiff guard: the seed and the caller's slope take it there in a few evaluations
  int calls = 0;
  auto g = [&](double s) {
    calls++;
    return GuardSample{std::exp(-40 * s) - 0.25, -40 * std::exp(-40 * s)};
  };
  CrossingOptions options;
  options.first_trial = 0.03;
  const CrossingResult r = LocateCrossing(g, 0, 0.75, 1, std::exp(-40.0) - 0.25, options);
  ASSERT_EQ(r.kind, CrossingKind::kCrossing);
  EXPECT_NEAR(r.time, std::log(4.0) / 40, kTol);
  EXPECT_EQ(calls, r.evaluations);
  EXPECT_LE(r.evaluations, 10);
}

TEST(LocateCrossing, GuardsThatDoNotStartPositiveNeverFire) {
  auto g = [](double s) { return GuardSample{s - 0.5}; };
  EXPECT_EQ(LocateCrossing(g, 0, -0.5, 1, 0.5, {}).kind, CrossingKind::kNone);
  EXPECT_EQ(LocateCrossing(g, 0.5, 0.0, 1, 0.5, {}).kind, CrossingKind::kNone);
}

TEST(LocateCrossing, MonotoneGuardWithoutSignChangeHasNoEvent) {
  auto g = [](double s) { return GuardSample{1 + s}; };
  CrossingOptions options;
  options.dip_samples = 8;
  const CrossingResult r = LocateCrossing(g, 0, 1, 1, 2, options);
  EXPECT_EQ(r.kind, CrossingKind::kNone);
  EXPECT_EQ(r.evaluations, 8);
}

// g = (s − 0.4)²: touches zero at 0.4 without a sign change
TEST(LocateCrossing, DoubleRootIsAGrazeFromEndSlopes) {
  auto g = [](double s) { return GuardSample{(s - 0.4) * (s - 0.4)}; };
  CrossingOptions options;
  options.slope_a = -0.8;  // dg/ds at 0 and 1
  options.slope_b = 1.2;
  options.graze_tol = 1e-12;
  const CrossingResult r = LocateCrossing(g, 0, 0.16, 1, 0.36, options);
  ASSERT_EQ(r.kind, CrossingKind::kGraze);
  EXPECT_NEAR(r.time, 0.4, 1e-6);  // a minimum is located to ~√ε
  EXPECT_LE(r.value, 1e-12);
}

TEST(LocateCrossing, DoubleRootIsAGrazeFromSamples) {
  auto g = [](double s) { return GuardSample{(s - 0.4) * (s - 0.4)}; };
  CrossingOptions options;
  options.dip_samples = 4;
  options.graze_tol = 1e-12;
  const CrossingResult r = LocateCrossing(g, 0, 0.16, 1, 0.36, options);
  ASSERT_EQ(r.kind, CrossingKind::kGraze);
  EXPECT_NEAR(r.time, 0.4, 1e-6);
}

TEST(LocateCrossing, ShallowDipIsANearMissWithItsMinimum) {
  auto g = [](double s) { return GuardSample{(s - 0.4) * (s - 0.4) + 1e-3}; };
  CrossingOptions options;
  options.slope_a = -0.8;
  options.slope_b = 1.2;
  options.graze_tol = 1e-12;
  const CrossingResult r = LocateCrossing(g, 0, 0.161, 1, 0.361, options);
  ASSERT_EQ(r.kind, CrossingKind::kNearMiss);
  EXPECT_NEAR(r.value, 1e-3, 1e-12);
  EXPECT_NEAR(r.time, 0.4, 1e-6);
}

// g = (s − 0.3)(s − 0.7): positive at both ends, two roots inside
TEST(LocateCrossing, TwoRootsGiveTheEarlierFromEndSlopes) {
  auto g = [](double s) { return GuardSample{(s - 0.3) * (s - 0.7)}; };
  CrossingOptions options;
  options.slope_a = -1.0;
  options.slope_b = 1.0;
  const CrossingResult r = LocateCrossing(g, 0, 0.21, 1, 0.21, options);
  ASSERT_EQ(r.kind, CrossingKind::kCrossing);
  EXPECT_NEAR(r.time, 0.3, kTol);
  EXPECT_LE(r.hi - r.lo, kTol);
}

TEST(LocateCrossing, TwoRootsGiveTheEarlierFromSamples) {
  // the roots are close together, between two samples: found through the dip's minimum
  auto g = [](double s) { return GuardSample{(s - 0.52) * (s - 0.56)}; };
  CrossingOptions options;
  options.dip_samples = 3;  // samples at 0.25, 0.5, 0.75: all positive
  const CrossingResult r = LocateCrossing(g, 0, g(0).value, 1, g(1).value, options);
  ASSERT_EQ(r.kind, CrossingKind::kCrossing);
  EXPECT_NEAR(r.time, 0.52, kTol);
}

TEST(HermiteRoot, ExactOnACubic) {
  // g = (1 − s)(1 + s²): a cubic, so its Hermite interpolant is itself; root s = 1 in (0, 2)
  auto g = [](double s) { return (1 - s) * (1 + s * s); };
  auto dg = [](double s) { return -(1 + s * s) + (1 - s) * 2 * s; };
  EXPECT_NEAR(HermiteRoot(g(0), dg(0), g(2), dg(2), 2), 1.0, 1e-15);
}

TEST(GuardRule, FiresFromClearlyPositiveToClearlyNegative) {
  const GuardRule rule{0.1};
  EXPECT_TRUE(rule.Fires(0.2, -0.2));
  EXPECT_FALSE(rule.Fires(0.05, -0.2));  // started inside the band
  EXPECT_FALSE(rule.Fires(0.2, -0.05));  // ended inside the band
  EXPECT_FALSE(rule.Fires(-0.2, 0.2));   // the other direction
}

}  // namespace
}  // namespace saltation
