// saltation floquet MODEL.xml [options]: the periodic orbit through the model's initial state (or
// a keyframe) on the exact rigid model, and its Floquet multipliers from the Φ/Ξ chain and from
// shooting.
#include <cstdio>
#include <string>
#include <vector>

#include "saltation/output_file.h"
#include "cli_common.h"
#include "commands.h"

namespace saltation::cli {
namespace {

const char* kFloquetUsage = R"(usage: saltation floquet [MODEL.xml] [options]

Finds the periodic orbit through MODEL's initial state (or a keyframe) on the exact rigid hybrid
model: a Poincaré section at every event of one kind, the return map iterated to a fixed point
(a period may hold up to 4 section events, as a hopper's foot strike and leg-stop strike;
coordinates that advance by a constant per period are cyclic), then the monodromy matrix over
one period from the Φ/Ξ chain and, independently, by shooting; prints the Floquet multipliers on
the full tangent space and on the subspace consistent with the mode's constraints, the trivial
multiplier and the exact-symmetry ones (cyclic coordinates whose shift leaves the dynamics
invariant) apart from the rest, never averaged, the agreement of the two methods and the stability
verdict. The result checks itself: the trivial and symmetry multipliers must be 1, and the whole
analysis is repeated at half the integrator step; both results are printed, and when they
disagree by more than --check-tolerance the command says so and exits 1.

options:
  --keyframe K         start from keyframe K (name or index; none: qpos0); default the model's
                       first keyframe when it has one, else qpos0
  --ctrl C             hold (default: the start keyframe's ctrl, else 0, held) or zero; a table
                       over time is refused (a periodic orbit needs an autonomous system)
  --section KIND       touchdown (default) or liftoff
  --max-iterations N   return-map iterations, default 400
  --tolerance T        fixed-point tolerance on the section state, default 1e-9
  --step H             RK4 step of the rigid integrator (s), default 1e-3
  --check-tolerance T  largest accepted disagreement of the checks, default 1e-5
  --no-cross-check     skip the repetition at half the step (the trivial/symmetry checks remain)
  --out FILE.json      multipliers, shooting_multipliers ([re, im] pairs), monodromy, period, …
                       (checked writable before the run)
  --quiet              no progress line
  --progress           a progress line on stderr even when it is not a terminal
  -h, --help           this text
Options take their value as "--opt value" or "--opt=value".
)";

std::string ComplexJson(const Eigen::VectorXcd& v) {
  std::string out = "[";
  for (int i = 0; i < v.size(); i++) {
    out += (i ? ",[" : "[") + JsonNumber(v(i).real()) + "," + JsonNumber(v(i).imag()) + "]";
  }
  return out + "]";
}

void PrintMultipliers(const char* name, const Eigen::VectorXcd& v, int trivial) {
  std::printf("  %-34s", name);
  for (int i = 0; i < v.size(); i++) {
    std::printf(" %s%.6f%s%.1ei", i == trivial ? "[" : "", v(i).real(), v(i).imag() < 0 ? "" : "+", v(i).imag());
    if (i == trivial) std::printf("]");
  }
  std::printf("\n");
}

void PrintSpectrum(const char* name, const FloquetSpectrum& s, const std::vector<int>& symmetries) {
  std::printf("  %-34s", name);
  if (s.has_trivial) std::printf(" trivial %.9f (‖Mf−f‖/‖f‖ %.1e);", s.trivial, s.trivial_error);
  for (size_t k = 0; k < s.symmetry.size(); k++) {
    std::printf(" symmetry %s%.9f (%.1e);", k < symmetries.size() ? ("of coordinate " + std::to_string(symmetries[k]) + " ").c_str() : "",
                s.symmetry[k], s.symmetry_error[k]);
  }
  std::printf(" rest");
  for (int i = 0; i < s.rest.size(); i++) std::printf(" %.9f%s%.1ei", s.rest(i).real(), s.rest(i).imag() < 0 ? "" : "+", s.rest(i).imag());
  std::printf("\n");
}

std::string SpectrumJson(const FloquetSpectrum& s) {
  std::string json = "{\"trivial\":" + (s.has_trivial ? JsonNumber(s.trivial) : std::string("null"));
  json += ",\"trivial_error\":" + JsonNumber(s.trivial_error) + ",\"symmetry\":[";
  for (size_t k = 0; k < s.symmetry.size(); k++) json += (k ? "," : "") + JsonNumber(s.symmetry[k]);
  json += "],\"symmetry_error\":[";
  for (size_t k = 0; k < s.symmetry_error.size(); k++) json += (k ? "," : "") + JsonNumber(s.symmetry_error[k]);
  return json + "],\"rest\":" + ComplexJson(s.rest) + "}";
}

}  // namespace

int RunFloquet(const std::vector<std::string>& args) {
  std::string model_path, keyframe, out, ctrl = "hold";
  bool quiet = false, show_progress = false;
  FloquetOptions options;
  SimulatorOptions sim_options;
  for (ArgumentCursor cursor(args); cursor.Next();) {
    const std::string& a = cursor.arg();
    auto value = [&cursor]() { return cursor.Value(); };
    if (cursor.IsHelp()) {
      std::printf("%s", kFloquetUsage);
      return 0;
    } else if (a == "--keyframe") {
      keyframe = value();
    } else if (a == "--ctrl") {
      ctrl = value();
      if (ctrl != "hold" && ctrl != "zero") {
        throw UsageError("floquet's --ctrl must be hold or zero, not '" + ctrl +
                         "' (a control table makes the system time-dependent: no periodic orbit to look for)");
      }
    } else if (a == "--section") {
      const std::string kind = value();
      EventKind section;
      if (!ParseEventKind(kind, &section) || (section != EventKind::kTouchdown && section != EventKind::kLiftoff)) {
        throw UsageError("--section must be touchdown or liftoff, not '" + kind + "'");
      }
      options.section = section;
    } else if (a == "--max-iterations") {
      const double n = ParseNumber(a, value());
      if (!(n >= 3 && n <= 1e6)) throw UsageError("--max-iterations must be between 3 and 1e6");
      options.max_iterations = static_cast<int>(n);
    } else if (a == "--tolerance") {
      options.tolerance = ParseNumber(a, value());
      if (!(options.tolerance > 0)) throw UsageError("--tolerance must be positive");
    } else if (a == "--step") {
      sim_options.step = ParseNumber(a, value());
      if (!(sim_options.step > 0 && sim_options.step <= 0.1)) throw UsageError("--step must be in (0, 0.1] s");
    } else if (a == "--check-tolerance") {
      options.check_tolerance = ParseNumber(a, value());
      if (!(options.check_tolerance > 0)) throw UsageError("--check-tolerance must be positive");
    } else if (a == "--no-cross-check") {
      cursor.Flag();
      options.cross_check = false;
    } else if (a == "--out") {
      out = value();
    } else if (a == "--quiet") {
      cursor.Flag();
      quiet = true;
    } else if (a == "--progress") {
      cursor.Flag();
      show_progress = true;
    } else {
      TakeModelArgument(cursor, model_path);
    }
  }
  if (model_path.empty()) model_path = DefaultModelPath();
  ModelPtr m = LoadModel(model_path);
  Model model(m.get());
  const Start start = ResolveStart(m.get(), keyframe);
  RigidSimulator sim(model, sim_options);
  const Controls controls = ResolveControls(m.get(), start, 0, ctrl);
  if (m->nu > 0) sim.SetControl(controls.start);  // held constant
  const HybridState s = sim.Initialize(InitialState(m.get(), start.key));
  CheckNotTheModel("--out", out, model_path);
  OutputFile out_file;  // opened before the run: an unwritable path fails now
  if (!out.empty()) out_file.Open(out);
  std::printf("model %s: tangent dimension %d, section at every %s\nstart: %s\n", model_path.c_str(), model.ndx(),
              EventKindName(options.section), start.description.c_str());
  if (m->nu > 0 || ctrl != "hold") std::printf("control: %s\n", controls.description.c_str());
  std::fflush(stdout);
  // the orbit search reports no progress of its own: one line while it runs
  Progress progress("floquet", show_progress, quiet);
  progress.Status("finding the periodic orbit and its multipliers ...");
  const FloquetResult r = AnalyzePeriodicOrbit(sim, s, options);
  progress.Done();
  std::printf("periodic orbit: %s after %d returns to the section (residual %.2e), period %.9f s with %d section "
              "event%s, %zu cyclic coordinates\n",
              r.converged ? "converged" : "NOT converged", r.iterations, r.residual, r.period, r.section_events,
              r.section_events == 1 ? "" : "s", r.cyclic.size());
  std::printf("multipliers (trivial one in brackets):\n");
  PrintMultipliers("full space, Φ/Ξ chain", r.multipliers, r.trivial);
  PrintMultipliers("full space, shooting", r.shooting_multipliers, -1);
  PrintMultipliers("constraint-consistent, Φ/Ξ chain", r.constrained_multipliers, -1);
  PrintMultipliers("constraint-consistent, shooting", r.constrained_shooting_multipliers, -1);
  std::string symmetries;
  for (int i : r.symmetries) symmetries += " " + std::to_string(i);
  std::printf("exact symmetries (cyclic coordinates):%s\n", symmetries.empty() ? " none" : symmetries.c_str());
  std::printf("split spectrum (1 by construction apart from the rest):\n");
  PrintSpectrum("constraint-consistent, Φ/Ξ chain", r.constrained_spectrum, r.symmetries);
  PrintSpectrum("constraint-consistent, shooting", r.constrained_shooting_spectrum, r.symmetries);
  if (r.cross_checked) {
    char name[80];
    std::snprintf(name, sizeof(name), "same at half the step (%g s)", r.check_step);
    PrintSpectrum(name, r.check_spectrum, r.symmetries);
    std::printf("period %.9f s at half the step\n", r.check_period);
  }
  std::printf("agreement of chain and shooting: %.2e\nverdict: %s\n", r.agreement, r.verdict.c_str());
  std::printf("checks: %s\n", r.consistent ? (r.cross_checked ? "consistent (trivial/symmetry multipliers 1, half step agrees)"
                                                               : "consistent (trivial/symmetry multipliers 1; no half-step cross-check)")
                                          : "FAILED");
  for (const std::string& f : r.check_failures) std::fprintf(stderr, "floquet: check failed: %s\n", f.c_str());
  if (!out.empty()) {
    std::string json = "{\"model\":" + JsonString(model_path) + ",\"converged\":" + (r.converged ? "true" : "false");
    json += ",\"iterations\":" + std::to_string(r.iterations) + ",\"residual\":" + JsonNumber(r.residual);
    json += ",\"period\":" + JsonNumber(r.period) + ",\"section\":\"" + EventKindName(options.section) + "\"";
    json += ",\"section_events\":" + std::to_string(r.section_events);
    json += ",\"multipliers\":" + ComplexJson(r.multipliers);
    json += ",\"shooting_multipliers\":" + ComplexJson(r.shooting_multipliers);
    json += ",\"constrained_multipliers\":" + ComplexJson(r.constrained_multipliers);
    json += ",\"constrained_shooting_multipliers\":" + ComplexJson(r.constrained_shooting_multipliers);
    json += ",\"trivial\":" + std::to_string(r.trivial) + ",\"agreement\":" + JsonNumber(r.agreement);
    json += ",\"verdict\":\"" + r.verdict + "\",\"monodromy\":" + MatrixJson(r.monodromy);
    json += ",\"shooting\":" + MatrixJson(r.shooting);
    json += ",\"symmetries\":[";
    for (size_t k = 0; k < r.symmetries.size(); k++) json += (k ? "," : "") + std::to_string(r.symmetries[k]);
    json += "],\"spectrum\":" + SpectrumJson(r.spectrum) + ",\"constrained_spectrum\":" + SpectrumJson(r.constrained_spectrum);
    json += ",\"constrained_shooting_spectrum\":" + SpectrumJson(r.constrained_shooting_spectrum);
    json += ",\"cross_checked\":" + std::string(r.cross_checked ? "true" : "false");
    if (r.cross_checked) json += ",\"check_step\":" + JsonNumber(r.check_step) + ",\"check_spectrum\":" + SpectrumJson(r.check_spectrum);
    json += ",\"consistent\":" + std::string(r.consistent ? "true" : "false") + ",\"check_failures\":[";
    for (size_t k = 0; k < r.check_failures.size(); k++) json += (k ? "," : "") + JsonString(r.check_failures[k]);
    json += "]}";
    out_file.WriteLine(json);
    out_file.Close();
    std::printf("wrote %s\n", out.c_str());
  }
  if (!r.converged) return 1;
  if (!r.consistent) {
    std::fprintf(stderr, "floquet: the multipliers do not check out (%zu check(s) failed, tolerance %g): not reported as a result\n",
                 r.check_failures.size(), options.check_tolerance);
    return 1;
  }
  return 0;
}

}  // namespace saltation::cli
