// saltation compare MODEL.xml [options]: the command line of CompareSweep (saltation/compare.h),
// the rigid hybrid sensitivity Φ(t1←t0) against MuJoCo's compliant one over a window around a
// contact event, as the contact stiffens (theory.md §10). Parses the options, prints the table,
// the flags and the verdict, writes the JSON.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "saltation/output_file.h"
#include "cli_common.h"
#include "commands.h"

namespace saltation::cli {
namespace {

const char* kCompareUsage = R"(usage: saltation compare [MODEL.xml] [options]

Compares the rigid hybrid sensitivity Phi(t1<-t0) (Phi Xi Phi chain of the rigid model) with
MuJoCo's own compliant one (the product of mjd_transitionFD Jacobians of its steps) over a window
around a contact event, for a sweep of contact stiffness: every contact's solref time constant is
set to tau, the timestep to tau/N, and the rigid restitution is matched to the effective
restitution measured on MuJoCo's contact. Prints per tau the relative Frobenius difference
|Phi_r - Phi_c|/|Phi_c|, the largest element-wise discrepancy and where it sits (layout
(dq, dv, act), named q:JOINT, v:JOINT, act:ACTUATOR), MuJoCo's contact-onset term
|Phi_c(v_n, q_n)|*tau, and flags that say why the two cannot agree (grazing, simultaneous
events, Zeno, chatter, no event, onset-dominated finite differences). Progress goes to stderr
when it is a terminal (or with --progress).

options:
  --taus T1,T2,...     solref time constants (s), strictly decreasing (stiffer to the right),
                       default 0.02,0.01,0.005,0.002
  --dampratio D        solref damping ratio of every contact, default: each geom's own
  --steps-per-tau N    timestep = tau/N, default 20 (at least 2)
  --solimp DMIN,DMAX,WIDTH[,MID,POWER]
                       impedance of every contact: geoms, pairs and the override
                       (default: each one's own; MID, POWER default 0.5, 2). MuJoCo's
                       default (0.9, 0.95, 0.001) switches the contact force on within one
                       step, which puts the onset term into the finite differences; a
                       smooth onset (DMIN near 0, WIDTH well above the penetration of one
                       step) removes it, e.g. --solimp 0.0001,0.95,0.05 with
                       --steps-per-tau 1000 (README, "Rigid vs compliant")
  --integrator I       keep (default), Euler, RK4 or implicit
  --keyframe K         start from keyframe K (name or index; none: qpos0); default the model's
                       first keyframe when it has one, else qpos0
  --window T0,T1       the window (s); default: from 0.02 s before the first touchdown to
                       max(0.1 s, 20 tau) after it, but not beyond the next touchdown
  --search S           look for the first touchdown within S s of the start, default 5
  --out FILE.json      {"model", "window", "solimp" (when given), "monotone", "converging",
                       "rows":[{"tau", "timestep", "effective_restitution",
                       "relative_difference", "max_discrepancy", "at", "at_names", "flags",
                       "rigid", "compliant", ...}]} written whole; "converging": the relative
                       difference falls monotonically and ends below 0.5 (checked writable
                       before the run)
  --quiet              no progress lines
  --progress           progress on stderr even when it is not a terminal
  -h, --help           this text
Options take their value as "--opt value" or "--opt=value".
)";

std::vector<double> ParseList(const std::string& option, const std::string& text) {
  std::vector<double> values;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) values.push_back(ParseNumber(option, item));
  if (values.empty() || (!text.empty() && text.back() == ',')) {
    throw UsageError("option " + option + " needs a comma-separated list of numbers, got '" + text + "'");
  }
  return values;
}

std::string Fmt(const char* format, double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, x);
  return buf;
}

// --taus: positive, strictly decreasing (stiffer to the right)
std::vector<double> ParseTaus(const std::string& option, const std::string& text) {
  const std::vector<double> taus = ParseList(option, text);
  for (size_t k = 0; k < taus.size(); k++) {
    if (!(taus[k] > 0)) throw UsageError("--taus must be positive, got " + Fmt("%g", taus[k]));
    if (k && !(taus[k] < taus[k - 1])) {
      throw UsageError("--taus must be strictly decreasing (stiffer to the right), got " + Fmt("%g", taus[k - 1]) +
                       " then " + Fmt("%g", taus[k]));
    }
  }
  return taus;
}

// --solimp DMIN,DMAX,WIDTH[,MID,POWER]: mjNIMP values in MuJoCo's ranges
std::vector<double> ParseSolimp(const std::string& option, const std::string& text) {
  std::vector<double> solimp = ParseList(option, text);
  if (solimp.size() != 3 && solimp.size() != 5) {
    throw UsageError("--solimp needs DMIN,DMAX,WIDTH or DMIN,DMAX,WIDTH,MID,POWER");
  }
  if (solimp.size() == 3) solimp.insert(solimp.end(), {0.5, 2});  // MuJoCo's default shape
  // DMIN > DMAX is allowed: an impedance falling with depth
  for (int k = 0; k < 2; k++) {
    if (!(solimp[k] >= mjMINIMP && solimp[k] <= mjMAXIMP)) {
      throw UsageError("--solimp needs DMIN and DMAX in [" + Fmt("%g", mjMINIMP) + ", " + Fmt("%g", mjMAXIMP) +
                       "], got " + Fmt("%g", solimp[k]));
    }
  }
  if (!(solimp[2] > 0)) throw UsageError("--solimp WIDTH must be positive");
  if (!(solimp[3] > 0 && solimp[3] < 1)) throw UsageError("--solimp MID must lie in (0, 1)");
  if (!(solimp[4] >= 1)) throw UsageError("--solimp POWER must be at least 1");
  return solimp;
}

// --integrator keep|Euler|RK4|implicit (any case): an mjtIntegrator, −1 for keep
int ParseIntegrator(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "keep") return -1;
  if (lower == "euler") return mjINT_EULER;
  if (lower == "rk4") return mjINT_RK4;
  if (lower == "implicit") return mjINT_IMPLICIT;
  throw UsageError("--integrator must be keep, Euler, RK4 or implicit, not '" + name + "'");
}

struct CompareArgs {
  bool help = false, quiet = false, progress = false;
  std::string model_path, keyframe, out;
  CompareSettings settings;
};

CompareArgs ParseCompareArgs(const std::vector<std::string>& args) {
  CompareArgs parsed;
  CompareSettings& s = parsed.settings;
  for (ArgumentCursor cursor(args); cursor.Next();) {
    const std::string& a = cursor.arg();
    if (cursor.IsHelp()) {
      parsed.help = true;
      return parsed;
    } else if (a == "--taus") {
      s.taus = ParseTaus(a, cursor.Value());
    } else if (a == "--dampratio") {
      s.dampratio = ParseNumber(a, cursor.Value());
      if (!(s.dampratio > 0)) throw UsageError("--dampratio must be positive");
    } else if (a == "--solimp") {
      s.solimp = ParseSolimp(a, cursor.Value());
    } else if (a == "--steps-per-tau") {
      const double n = ParseNumber(a, cursor.Value());
      if (!(n >= 2 && n <= 10000 && n == std::floor(n))) throw UsageError("--steps-per-tau must be an integer in [2, 10000]");
      s.steps_per_tau = static_cast<int>(n);
    } else if (a == "--integrator") {
      s.integrator = ParseIntegrator(cursor.Value());
    } else if (a == "--keyframe") {
      parsed.keyframe = cursor.Value();
    } else if (a == "--window") {
      const std::vector<double> w = ParseList(a, cursor.Value());
      if (w.size() != 2 || !(w[0] < w[1])) throw UsageError("--window needs T0,T1 with T0 < T1");
      s.window_given = true;
      s.window_t0 = w[0];
      s.window_t1 = w[1];
    } else if (a == "--search") {
      s.search = ParseNumber(a, cursor.Value());
      if (!(s.search > 0)) throw UsageError("--search must be positive");
    } else if (a == "--out") {
      parsed.out = cursor.Value();
    } else if (a == "--quiet") {
      cursor.Flag();
      parsed.quiet = true;
    } else if (a == "--progress") {
      cursor.Flag();
      parsed.progress = true;
    } else {
      TakeModelArgument(cursor, parsed.model_path);
    }
  }
  return parsed;
}

void PrintSettings(const std::string& model_path, const mjModel* m, const CompareSettings& s) {
  const char* integrator_names[] = {"Euler", "RK4", "implicit"};
  const int integrator = s.integrator >= 0 ? s.integrator : m->opt.integrator;
  std::printf("model %s: nv=%d na=%d, tangent dimension %d, integrator %s%s, timestep tau/%d, dampratio %s\n",
              model_path.c_str(), static_cast<int>(m->nv), static_cast<int>(m->na), TangentDim(m),
              integrator >= 0 && integrator < 3 ? integrator_names[integrator] : "?",
              s.integrator >= 0 ? "" : " (the model's)", s.steps_per_tau,
              s.dampratio > 0 ? Fmt("%g", s.dampratio).c_str() : "each geom's own");
  if (!s.solimp.empty()) {
    std::printf("solimp of every contact: %g %g %g %g %g\n", s.solimp[0], s.solimp[1], s.solimp[2], s.solimp[3],
                s.solimp[4]);
  }
  if (s.window_given) {
    std::printf("window [%g, %g] s\n", s.window_t0, s.window_t1);
  } else {
    std::printf("window: %g s before the first touchdown to max(0.1 s, 20 tau) after it, not beyond the next touchdown\n",
                kCompareLeadTime);
  }
  std::fflush(stdout);
}

// the table (a line per tau), then per tau the touchdown, the window's events and the flags
void PrintRows(const std::vector<CompareRow>& rows, const std::vector<std::string>& names) {
  std::printf("\n%9s %10s %6s %6s %9s %9s %9s %9s %9s  %-22s %11s %5s\n", "tau (s)", "timestep", "e_eff",
              "dampr", "t0 (s)", "t1 (s)", "rel diff", "off-onset", "max |D|", "at (row, col)", "|onset|*tau", "flags");
  for (const CompareRow& r : rows) {
    const std::string at = "(" + names[r.at_i] + ", " + names[r.at_j] + ")";
    std::printf("%9.4g %10.4g %6.3f %6.3g %9.4f %9.4f %9.4g %9.4g %9.4g  %-22s %11.4g %5zu\n", r.tau, r.timestep,
                r.restitution, r.dampratio, r.t0, r.t1, r.relative, r.relative_off_onset, r.max_discrepancy, at.c_str(),
                r.onset, r.flags.size());
  }
  std::printf("\n");
  for (const CompareRow& r : rows) {
    std::string kinds;
    for (const std::string& e : r.events) kinds += (kinds.empty() ? "" : " ") + e;
    std::printf("tau %g s: touchdown %s at %.6f s%s; events in the window: %s\n", r.tau, r.contact.c_str(), r.t_touch,
                r.t_next > 0 ? Fmt(" (next at %.6f s)", r.t_next).c_str() : "", kinds.empty() ? "none" : kinds.c_str());
    for (const std::string& f : r.flags) std::printf("  flag: %s\n", f.c_str());
  }
}

}  // namespace

int RunCompare(const std::vector<std::string>& args) {
  CompareArgs parsed = ParseCompareArgs(args);
  if (parsed.help) {
    std::printf("%s", kCompareUsage);
    return 0;
  }
  const CompareSettings& s = parsed.settings;
  const std::string model_path = parsed.model_path.empty() ? DefaultModelPath() : parsed.model_path;
  ModelPtr m = LoadModel(model_path);
  Model check(m.get());  // reads the <custom> configuration: ConfigError on bad values
  const Start start = ResolveStart(m.get(), parsed.keyframe);
  const State x0 = InitialState(m.get(), start.key);
  if (s.window_given && s.window_t0 < x0.time) {
    throw UsageError("--window starts at " + Fmt("%g", s.window_t0) + " s, before the start state (t = " +
                     Fmt("%g", x0.time) + " s)");
  }
  if (m->ngeom < 2 && m->npair == 0) throw ConfigError("model '" + model_path + "' has no geoms that could touch");
  CheckNotTheModel("--out", parsed.out, model_path);
  OutputFile out;  // opened before the sweep: an unwritable path fails now
  if (!parsed.out.empty()) out.Open(parsed.out);
  PrintSettings(model_path, m.get(), s);
  std::printf("start: %s\n", start.description.c_str());
  std::fflush(stdout);

  // a line per tau (each a run of its own): on a terminal or with --progress, never with --quiet
  const bool progress = !parsed.quiet && (parsed.progress || isatty(STDERR_FILENO));
  const auto started = std::chrono::steady_clock::now();
  const CompareReport report = CompareSweep(m.get(), s, x0, [&](size_t k, double tau) {
    if (!progress) return;
    std::fprintf(stderr, "compare: [%zu/%zu] tau = %g s, timestep %g s ... (%.1f s elapsed)\n", k + 1, s.taus.size(),
                 tau, tau / s.steps_per_tau,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  });
  for (const std::string& w : TakeMujocoWarnings()) std::fprintf(stderr, "MuJoCo warning: %s\n", w.c_str());

  const std::vector<std::string> names = StateLabels(m.get());
  PrintRows(report.rows, names);
  std::printf("verdict: %s\n", CompareVerdict(report).c_str());
  if (!parsed.out.empty()) {
    std::string json = CompareJson(model_path, s, report, names);
    if (!json.empty() && json.back() != '\n') json += "\n";
    out.WriteLines(json);
    out.Close();
    std::printf("wrote %s\n", parsed.out.c_str());
  }
  return 0;
}

}  // namespace saltation::cli
