// CompareAtTau and the sweep over τ, the verdict, the names of the tangent coordinates.
#include "saltation/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compare_internal.h"
#include "saltation/errors.h"

namespace saltation {
namespace compare_internal {

std::string Fmt(const char* format, double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, x);
  return buf;
}

void AddFlag(CompareRow& row, const std::string& flag) {
  if (std::find(row.flags.begin(), row.flags.end(), flag) == row.flags.end()) row.flags.push_back(flag);
}

bool IsTouchdown(const HookEvent& ev) { return ev.kind == EventKind::kTouchdown || ev.kind == EventKind::kGraze; }

void CheckStable(const mjData* d, double tau) {
  if (!std::isfinite(d->qpos[0]) || !std::isfinite(d->qvel[0]) || d->warning[mjWARN_BADQACC].number > 0) {
    throw NumericalError("MuJoCo's simulation became unstable at t = " + Fmt("%.6g", d->time) + " s with tau = " +
                         Fmt("%g", tau) + " s (bad acceleration)");
  }
}

}  // namespace compare_internal

using namespace compare_internal;

CompareRow CompareAtTau(const mjModel* m, const CompareSettings& s, const State& x_start, double tau) {
  CompareRow row;
  row.tau = tau;
  const HookEvent first = FindFirstTouchdown(m, s, x_start, tau, row);
  ChooseWindow(s, x_start, row);
  const Chains chains = PropagateChains(m, s, x_start, row);
  MeasureDifference(row);
  const HookEvent* touch = DiagnoseWindowEvents(chains.hook->events(), row);
  // the touchdown in the window, else pass 1's, whose normal and Ξ describe the event
  const HookEvent* normal_source = touch ? touch : (first.has_xi ? &first : nullptr);
  if (normal_source) {
    MeasureOnsetTerm(*normal_source, chains, row);
    FlagTouchdownOnTimeGrid(*normal_source, chains, x_start, row);
  }
  FlagChainQuality(row);
  return row;
}

CompareReport CompareSweep(const mjModel* m, const CompareSettings& s, const State& x_start,
                           const std::function<void(size_t index, double tau)>& before_each) {
  CompareReport report;
  for (size_t k = 0; k < s.taus.size(); k++) {
    if (before_each) before_each(k, s.taus[k]);
    report.rows.push_back(CompareAtTau(m, s, x_start, s.taus[k]));
  }
  const std::vector<CompareRow>& rows = report.rows;
  report.monotone = rows.size() >= 2;
  for (size_t k = 1; k < rows.size(); k++) report.monotone = report.monotone && rows[k].relative < rows[k - 1].relative;
  report.converging = report.monotone && rows.back().relative < 0.5;
  return report;
}

std::string CompareVerdict(const CompareReport& report) {
  const std::vector<CompareRow>& rows = report.rows;
  char buf[256];
  if (rows.size() < 2) return "one tau only, no trend";
  if (report.converging) {
    std::snprintf(buf, sizeof(buf), "the relative difference falls monotonically as the contact stiffens (%.4g -> %.4g)",
                  rows.front().relative, rows.back().relative);
    return buf;
  }
  if (report.monotone) {
    // falling, but still far apart at the stiffest tau (e.g. the onset term keeps them there)
    std::snprintf(buf, sizeof(buf), "the relative difference falls monotonically (%.4g -> %.4g) but stays above 0.5%s",
                  rows.front().relative, rows.back().relative,
                  rows.back().onset > 0.05 ? ": the compliant chain is dominated by the contact-onset term" : "");
    return buf;
  }
  std::string why;
  for (const CompareRow& r : rows) {
    for (const std::string& f : r.flags) {
      const std::string head = f.substr(0, std::min(f.find(':'), f.find(" (")));
      if (why.find(head) == std::string::npos) why += (why.empty() ? "" : "; ") + head;
    }
  }
  return "the relative difference does NOT fall monotonically as the contact stiffens" +
         (why.empty() ? std::string(" (no flag explains it: the compliant transient may not have settled in the window)")
                      : ": " + why);
}

}  // namespace saltation
