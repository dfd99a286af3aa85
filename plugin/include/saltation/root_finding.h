// Guards' trigger rule and the one root finder for event times.
//
// Every contact event is a guard g(s) crossing zero from + to − inside an integration step
// s ∈ [a, b]: a touchdown's gap, a liftoff's rigid normal force λ_n. The exact rigid integrator
// (rigid_simulator.cc) and the hook (hook_localize.cc) both locate their events here.
//
//   GuardRule          (band)                               => Fires / Positive / Negative
//   LocateCrossing     (g(s) [and dg/ds], [a, b], g(a), g(b), options) => CrossingResult
//   HermiteRoot        (g and dg/ds at both ends of [0, h])  => root of the cubic interpolant
//
// LocateCrossing reads nothing but the guard function it is given; it evaluates it at most
// options.max_iterations (+ dip samples) times, never at a or b themselves.
#ifndef SALTATION_ROOT_FINDING_H_
#define SALTATION_ROOT_FINDING_H_

#include <limits>
#include <type_traits>
#include <utility>

namespace saltation {

// The trigger rule: a guard fires when it goes from clearly positive to clearly negative; the
// band ±band around zero is neither side (a hysteresis that keeps round-off from chattering).
struct GuardRule {
  double band = 0;
  bool Positive(double g) const { return g > band; }
  bool Negative(double g) const { return g < -band; }
  bool Fires(double before, double after) const { return Positive(before) && Negative(after); }
};

// One evaluation of a guard: its value and, when the caller knows it, its slope dg/ds (NaN
// otherwise).
struct GuardSample {
  double value = 0;
  double slope = std::numeric_limits<double>::quiet_NaN();
};

// A non-owning reference to a callable `GuardSample(double s)` (no allocation: the hook's
// per-step path stays allocation-free).
class GuardFunction {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, GuardFunction>>>
  GuardFunction(F&& f)  // NOLINT: implicit, like std::function
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, double s) -> GuardSample {
          return (*static_cast<std::remove_reference_t<F>*>(o))(s);
        }) {}
  GuardSample operator()(double s) const { return call_(object_, s); }

 private:
  void* object_;
  GuardSample (*call_)(void*, double);
};

enum class CrossingKind {
  kNone,      // g stays positive (or does not start positive): nothing to report
  kCrossing,  // g goes from + to −: `time` is the earliest crossing, bracketed by [lo, hi]
  kGraze,     // g touches zero without going negative (a double root, |min g| ≤ graze_tol)
  kNearMiss,  // g dips towards zero inside [a, b] and turns back: `value` is its minimum
};

struct CrossingOptions {
  double time_tol = 1e-13;  // width of the final bracket
  int max_iterations = 100;
  // an estimate of the root inside (a, b) for the first trial (e.g. HermiteRoot); NaN: regula falsi
  double first_trial = std::numeric_limits<double>::quiet_NaN();
  // both ends positive: is there a dip in between? Known slopes at the ends (dg/ds at a < 0 and
  // at b > 0) say so; otherwise `dip_samples` evenly spaced interior samples look for one. No
  // slopes and no samples: an interval without a sign change is taken to have no crossing.
  double slope_a = std::numeric_limits<double>::quiet_NaN();
  double slope_b = std::numeric_limits<double>::quiet_NaN();
  int dip_samples = 0;
  double graze_tol = 0;  // |min g| ≤ graze_tol without a sign change is a graze
};

struct CrossingResult {
  CrossingKind kind = CrossingKind::kNone;
  // crossing: the final bracket's end nearer zero (an evaluated point when `sampled`); graze and
  // near miss: where the dip's minimum was found
  double time = std::numeric_limits<double>::quiet_NaN();
  double value = std::numeric_limits<double>::quiet_NaN();  // g(time)
  double lo = 0, hi = 0;                                   // the final bracket
  bool sampled = false;  // `time` is a point the guard function was evaluated at
  int evaluations = 0;
};

// The earliest crossing of g from + to − in [a, b], given g(a) = ga and g(b) = gb. With
// ga > 0 > gb: a bracketed secant (regula falsi, Illinois-weighted, when the secant leaves the
// bracket; a step below time_tol is pushed across the root so the bracket closes). With both
// ends positive: the dip search above, then the crossing before the dip's first negative point
// (so two roots in [a, b] give the earlier). ga ≤ 0: kNone.
CrossingResult LocateCrossing(GuardFunction g, double a, double ga, double b, double gb,
                              const CrossingOptions& options = {});

// The root in (0, h) of the cubic Hermite interpolant of g with g(0) = g0 > 0, g(h) = g1 < 0 and
// slopes r0, r1 at the ends, by bisection on the polynomial.
double HermiteRoot(double g0, double r0, double g1, double r1, double h);

}  // namespace saltation

#endif  // SALTATION_ROOT_FINDING_H_
