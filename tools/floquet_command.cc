// saltation floquet MODEL.xml [options]: the periodic orbit through the model's initial state (or
// a keyframe) on the exact rigid model, and its Floquet multipliers from the Φ/Ξ chain and from
// shooting.
#include <cstdio>
#include <string>
#include <vector>

#include "cli_common.h"
#include "commands.h"

namespace saltation::cli {
namespace {

const char* kFloquetUsage = R"(usage: saltation floquet [MODEL.xml] [options]

Finds the periodic orbit through MODEL's initial state (or a keyframe) on the exact rigid hybrid
model: a Poincaré section at every event of one kind, the return map iterated to a fixed point
(coordinates that advance by a constant per period are cyclic), then the monodromy matrix over
one period from the Φ/Ξ chain and, independently, by shooting; prints the Floquet multipliers on
the full tangent space and on the subspace consistent with the mode's constraints, the trivial
multiplier, the agreement of the two methods and the stability verdict.

options:
  --keyframe K         start from keyframe K (name or index)
  --section KIND       touchdown (default) or liftoff
  --max-iterations N   return-map iterations, default 400
  --tolerance T        fixed-point tolerance on the section state, default 1e-9
  --step H             RK4 step of the rigid integrator (s), default 1e-3
  --out FILE.json      multipliers, shooting_multipliers ([re, im] pairs), monodromy, period, …
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

}  // namespace

int RunFloquet(const std::vector<std::string>& args) {
  std::string model_path, keyframe, out;
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
    } else if (a == "--out") {
      out = value();
    } else {
      TakeModelArgument(a, model_path, kFloquetUsage);
    }
  }
  if (model_path.empty()) model_path = DefaultModelPath();
  ModelPtr m = LoadModel(model_path);
  Model model(m.get());
  RigidSimulator sim(model, sim_options);
  if (m->nu > 0) sim.SetControl(InitialControl(m.get(), keyframe));  // the keyframe's, held constant
  const HybridState s = sim.Initialize(InitialState(m.get(), keyframe));
  std::printf("model %s: tangent dimension %d, section at every %s\n", model_path.c_str(), model.ndx(),
              EventKindName(options.section));
  const FloquetResult r = AnalyzePeriodicOrbit(sim, s, options);
  std::printf("periodic orbit: %s after %d periods (residual %.2e), period %.9f s, %zu cyclic coordinates\n",
              r.converged ? "converged" : "NOT converged", r.iterations, r.residual, r.period, r.cyclic.size());
  std::printf("multipliers (trivial one in brackets):\n");
  PrintMultipliers("full space, Φ/Ξ chain", r.multipliers, r.trivial);
  PrintMultipliers("full space, shooting", r.shooting_multipliers, -1);
  PrintMultipliers("constraint-consistent, Φ/Ξ chain", r.constrained_multipliers, -1);
  PrintMultipliers("constraint-consistent, shooting", r.constrained_shooting_multipliers, -1);
  std::printf("agreement of chain and shooting: %.2e\nverdict: %s\n", r.agreement, r.verdict.c_str());
  if (!out.empty()) {
    std::string json = "{\"model\":\"" + model_path + "\",\"converged\":" + (r.converged ? "true" : "false");
    json += ",\"iterations\":" + std::to_string(r.iterations) + ",\"residual\":" + JsonNumber(r.residual);
    json += ",\"period\":" + JsonNumber(r.period) + ",\"section\":\"" + EventKindName(options.section) + "\"";
    json += ",\"multipliers\":" + ComplexJson(r.multipliers);
    json += ",\"shooting_multipliers\":" + ComplexJson(r.shooting_multipliers);
    json += ",\"constrained_multipliers\":" + ComplexJson(r.constrained_multipliers);
    json += ",\"constrained_shooting_multipliers\":" + ComplexJson(r.constrained_shooting_multipliers);
    json += ",\"trivial\":" + std::to_string(r.trivial) + ",\"agreement\":" + JsonNumber(r.agreement);
    json += ",\"verdict\":\"" + r.verdict + "\",\"monodromy\":" + MatrixJson(r.monodromy);
    json += ",\"shooting\":" + MatrixJson(r.shooting) + "}\n";
    WriteWhole(out, json);
    std::printf("wrote %s\n", out.c_str());
  }
  return r.converged ? 0 : 1;
}

}  // namespace saltation::cli
