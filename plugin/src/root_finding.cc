#include "saltation/root_finding.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace saltation {
namespace {

// the bracketed secant on [a, b] with g(a) = ga > 0 > gb = g(b)
CrossingResult Bracketed(const GuardFunction& g, double a, double ga, double b, double gb,
                         bool a_sampled, bool b_sampled, const CrossingOptions& options,
                         int evaluations) {
  const double tol = options.time_tol;
  // fa, fb: Illinois-weighted; ga, gb: the guard's true values at the bracket's ends
  double fa = ga, fb = gb;
  auto regula_falsi = [&]() { return (fa * b - fb * a) / (fa - fb); };
  double s = std::isfinite(options.first_trial) && options.first_trial > a && options.first_trial < b
                 ? options.first_trial
                 : regula_falsi();
  double s_prev = 0, f_prev = 0;
  bool have_prev = false;
  int side = 0;
  CrossingResult r;
  r.kind = CrossingKind::kCrossing;
  for (int it = 0; it < options.max_iterations && b - a > tol; it++) {
    const GuardSample sample = g(s);
    const double fs = sample.value;
    evaluations++;
    if (fs == 0) {
      a = b = s;
      ga = gb = 0;
      a_sampled = b_sampled = true;
      break;
    }
    if (fs < 0) {
      b = s, fb = gb = fs, b_sampled = true;
      if (side == -1) fa /= 2;
      side = -1;
    } else {
      a = s, fa = ga = fs, a_sampled = true;
      if (side == 1) fb /= 2;
      side = 1;
    }
    if (b - a <= tol) break;
    double next;
    if (have_prev && fs != f_prev) {
      next = s - fs * (s - s_prev) / (fs - f_prev);
    } else if (!have_prev && std::isfinite(sample.slope) && sample.slope != 0) {
      next = s - fs / sample.slope;  // first step only: Newton on the caller's slope
    } else {
      next = regula_falsi();
    }
    if (std::abs(next - s) < tol / 2) next = s + (fs > 0 ? tol / 2 : -tol / 2);
    if (!(next > a && next < b)) next = regula_falsi();
    if (!(next > a && next < b)) next = (a + b) / 2;
    s_prev = s, f_prev = fs, have_prev = true;
    s = next;
  }
  // the end nearer zero among those evaluated (the caller holds their states)
  const bool take_a = a_sampled && (!b_sampled || std::abs(ga) <= std::abs(gb));
  const bool take_b = !take_a && b_sampled;
  if (take_a || take_b) {
    r.time = take_a ? a : b;
    r.value = take_a ? ga : gb;
    r.sampled = true;
  } else {
    const bool nearer_a = std::abs(ga) <= std::abs(gb);
    r.time = nearer_a ? a : b;
    r.value = nearer_a ? ga : gb;
  }
  r.lo = a;
  r.hi = b;
  r.evaluations = evaluations;
  return r;
}

}  // namespace

CrossingResult LocateCrossing(GuardFunction g, double a, double ga, double b, double gb,
                              const CrossingOptions& options) {
  CrossingResult none;
  none.lo = a;
  none.hi = b;
  if (!(ga > 0) || !(b > a)) return none;
  if (gb < 0) return Bracketed(g, a, ga, b, gb, false, false, options, 0);

  // both ends ≥ 0: look for a dip between them. Every sample is kept: at the first negative
  // value the crossing is bracketed by the nearest positive sample before it (all earlier ones
  // are positive), so with two roots in [a, b] the earlier one is found.
  std::vector<std::pair<double, double>> samples{{a, ga}, {b, gb}};
  double best_s = a, best_g = ga;
  auto probe = [&](double s) {
    const double v = g(s).value;
    samples.emplace_back(s, v);
    if (v >= 0 && v < best_g) best_s = s, best_g = v;
    return v;
  };
  auto crossing_before = [&](double s, double v) {
    double lo = a, glo = ga;
    for (const auto& [t, gt] : samples) {
      if (t < s && t > lo && gt > 0) lo = t, glo = gt;
    }
    const int evaluations = static_cast<int>(samples.size()) - 2;
    return Bracketed(g, lo, glo, s, v, lo > a, true, options, evaluations);
  };
  double lo = a, hi = b;
  if (!(options.slope_a < 0 && options.slope_b > 0)) {
    if (options.dip_samples <= 0) return none;
    // evenly spaced samples; a dip lies around the lowest one below both ends
    const int n = options.dip_samples;
    int lowest = -1;
    double lowest_g = std::min(ga, gb);
    for (int i = 1; i <= n; i++) {
      const double s = a + (b - a) * i / (n + 1);
      const double v = probe(s);
      if (v < 0) return crossing_before(s, v);
      if (v < lowest_g) lowest = i, lowest_g = v;
    }
    if (lowest < 0) {
      none.evaluations = n;
      return none;  // no interior point below both ends: no dip seen
    }
    lo = a + (b - a) * (lowest - 1) / (n + 1);
    hi = a + (b - a) * (lowest + 1) / (n + 1);
  }
  // golden-section search for the dip's minimum on [lo, hi], stopping at the first negative value
  constexpr double kInvPhi = 0.6180339887498949;
  double x1 = hi - kInvPhi * (hi - lo), x2 = lo + kInvPhi * (hi - lo);
  double g1 = probe(x1);
  if (g1 < 0) return crossing_before(x1, g1);
  double g2 = probe(x2);
  if (g2 < 0) return crossing_before(x2, g2);
  for (int it = 0; it < options.max_iterations && x2 - x1 > options.time_tol; it++) {
    if (g1 <= g2) {
      hi = x2, x2 = x1, g2 = g1;
      x1 = hi - kInvPhi * (hi - lo);
      g1 = probe(x1);
      if (g1 < 0) return crossing_before(x1, g1);
    } else {
      lo = x1, x1 = x2, g1 = g2;
      x2 = lo + kInvPhi * (hi - lo);
      g2 = probe(x2);
      if (g2 < 0) return crossing_before(x2, g2);
    }
  }
  CrossingResult r;
  r.time = best_s;
  r.value = best_g;
  r.lo = r.hi = best_s;
  r.sampled = best_s != a;
  r.evaluations = static_cast<int>(samples.size()) - 2;
  if (best_g <= options.graze_tol) {
    r.kind = CrossingKind::kGraze;
  } else if (best_g < ga && best_g < gb) {
    r.kind = CrossingKind::kNearMiss;
  }
  return r;
}

double HermiteRoot(double g0, double r0, double g1, double r1, double h) {
  auto p = [&](double s) {
    const double t = s / h, t2 = t * t, t3 = t2 * t;
    return (2 * t3 - 3 * t2 + 1) * g0 + (t3 - 2 * t2 + t) * h * r0 + (-2 * t3 + 3 * t2) * g1 + (t3 - t2) * h * r1;
  };
  double a = 0, b = h;
  for (int it = 0; it < 64; it++) {
    const double m = (a + b) / 2;
    if (m <= a || m >= b) break;  // a and b adjacent doubles
    (p(m) > 0 ? a : b) = m;
  }
  return (a + b) / 2;
}

}  // namespace saltation
