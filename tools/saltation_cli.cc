// saltation: command-line front end.
//
//   saltation rigid [MODEL.xml] [options]   exact event-driven run of the rigid hybrid model:
//                                           every contact event with its Ξ, printed as a table,
//                                           optionally written as JSON Lines
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "saltation/saltation.h"

namespace {

using saltation::ConfigError;

constexpr const char* kDefaultModel = "ball_drop.xml";

const char* kUsage = R"(usage: saltation rigid [MODEL.xml] [options]

Runs the exact event-driven rigid hybrid model of MODEL (default: models/ball_drop.xml) from its
initial state or a keyframe, and prints every contact event (touchdown, liftoff) with its
transversality and saltation matrix norm.

options:
  --duration S        simulated time (s), default 2
  --keyframe K        start from keyframe K (name or index)
  --step H            RK4 step of the rigid integrator (s), default 1e-3
  --restitution E     use restitution E in [0, 1] for every contact (overrides <custom>)
  --grazing T         flag events whose dimensionless transversality is below T, default 0.01
  --out FILE.jsonl    write one JSON object per event (written whole, then renamed into place)
  --quiet             no table, only the summary
  -h, --help          this text
)";

struct Args {
  std::string command;
  std::string model;
  double duration = 2;
  std::string keyframe;
  double step = 1e-3;
  double restitution = -1;
  double grazing = 0.01;
  std::string out;
  bool quiet = false;
};

double ParseNumber(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(x)) {
    throw ConfigError("option " + option + " needs a finite number, got '" + text + "'");
  }
  return x;
}

Args ParseArgs(int argc, char** argv) {
  Args args;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw ConfigError("option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      args.command = "help";
      return args;
    } else if (a == "--duration") {
      args.duration = ParseNumber(a, value());
      if (!(args.duration > 0)) throw ConfigError("--duration must be positive");
    } else if (a == "--keyframe") {
      args.keyframe = value();
    } else if (a == "--step") {
      args.step = ParseNumber(a, value());
      if (!(args.step > 0 && args.step <= 0.1)) throw ConfigError("--step must be in (0, 0.1] s");
    } else if (a == "--restitution") {
      args.restitution = ParseNumber(a, value());
      if (args.restitution < 0 || args.restitution > 1) throw ConfigError("--restitution must be in [0, 1]");
    } else if (a == "--grazing") {
      args.grazing = ParseNumber(a, value());
      if (args.grazing < 0 || args.grazing > 1) throw ConfigError("--grazing must be in [0, 1]");
    } else if (a == "--out") {
      args.out = value();
    } else if (a == "--quiet") {
      args.quiet = true;
    } else if (a.size() > 1 && a[0] == '-') {
      throw ConfigError("unknown option '" + a + "'");
    } else {
      positional.push_back(a);
    }
  }
  if (positional.empty()) throw ConfigError("no command given");
  args.command = positional[0];
  if (positional.size() > 2) throw ConfigError("too many arguments: '" + positional[2] + "'");
  if (positional.size() == 2) args.model = positional[1];
  return args;
}

std::string DefaultModelPath() {
  const std::string local = std::string("models/") + kDefaultModel;
  if (access(local.c_str(), R_OK) == 0) return local;
  return std::string(SALTATION_MODELS_DIR) + "/" + kDefaultModel;
}

saltation::ModelPtr LoadModel(const std::string& path) {
  if (access(path.c_str(), R_OK) != 0) throw ConfigError("cannot read model file '" + path + "'");
  char error[1024] = "";
  mjModel* m = nullptr;
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".mjb") == 0) {
    m = mj_loadModel(path.c_str(), nullptr);
    if (!m) std::snprintf(error, sizeof(error), "not a MuJoCo binary model");
  } else {
    m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  }
  if (!m) throw ConfigError("could not load '" + path + "': " + error);
  return saltation::ModelPtr(m);
}

saltation::State InitialState(const mjModel* m, const std::string& keyframe) {
  saltation::DataPtr d(mj_makeData(m));
  if (!keyframe.empty()) {
    int key = mj_name2id(m, mjOBJ_KEY, keyframe.c_str());
    if (key < 0) {
      char* end = nullptr;
      const long index = std::strtol(keyframe.c_str(), &end, 10);
      if (*end == '\0' && index >= 0 && index < m->nkey) key = static_cast<int>(index);
    }
    if (key < 0) {
      throw ConfigError("model has no keyframe '" + keyframe + "' (it has " + std::to_string(m->nkey) +
                        " keyframes)");
    }
    mj_resetDataKeyframe(m, d.get(), key);
  }
  return saltation::StateFromData(m, d.get());
}

// writes `text` to path through a temporary file and a rename, so the file is never half-written
void WriteWhole(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw ConfigError("could not write '" + path + "'");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw ConfigError("could not write '" + path + "'");
  }
}

int RunRigid(const Args& args) {
  const std::string path = args.model.empty() ? DefaultModelPath() : args.model;
  saltation::ModelPtr m = LoadModel(path);
  saltation::Model model(m.get());
  if (args.restitution >= 0) model.SetRestitution(args.restitution);
  saltation::SimulatorOptions options;
  options.step = args.step;
  saltation::RigidSimulator sim(model, options);
  saltation::HybridState s = sim.Initialize(InitialState(m.get(), args.keyframe));
  const double t_end = s.x.time + args.duration;

  std::printf("model %s: nq=%d nv=%d na=%d, tangent dimension %d, detection margin %.3g m\n",
              path.c_str(), m->nq, m->nv, m->na, model.ndx(), model.detect_margin());
  if (!args.quiet) {
    std::printf("%12s  %-9s  %-24s  %14s  %9s  %10s  %4s  %s\n", "time (s)", "kind", "contact",
                "transversality", "rel", "|Xi|", "rank", "flags");
  }
  std::string log;
  std::map<std::string, int> counts;
  double max_norm = 0;
  int grazing = 0;
  const bool progress = isatty(2) && args.duration > 5;
  while (s.x.time < t_end) {
    const double chunk_end = std::min(t_end, s.x.time + 0.1);
    for (const saltation::RigidEvent& ev : sim.Advance(s, chunk_end)) {
      const double norm = ev.xi.Norm();
      max_norm = std::max(max_norm, norm);
      counts[saltation::EventKindName(ev.kind)]++;
      std::string flags;
      if (ev.xi.transversality_rel < args.grazing) {
        flags += "grazing ";
        grazing++;
      }
      if (ev.kind == saltation::EventKind::kTouchdown && ev.impact.candidates.size() > ev.mode_before.contacts.size() + 1) {
        flags += "simultaneous(" + std::to_string(ev.impact.candidates.size() - ev.mode_before.contacts.size()) + ") ";
      }
      if (!ev.released.empty()) flags += "released(" + std::to_string(ev.released.size()) + ") ";
      if (!args.quiet) {
        std::printf("%12.6f  %-9s  %-24s  %14.6g  %9.3g  %10.4g  %4d  %s\n", ev.time,
                    saltation::EventKindName(ev.kind), saltation::ContactLabel(model, ev.contact).c_str(),
                    ev.xi.transversality, ev.xi.transversality_rel, norm, ev.rank_after, flags.c_str());
      }
      if (!args.out.empty()) log += saltation::EventToJson(model, ev, args.grazing) + "\n";
    }
    if (progress) std::fprintf(stderr, "\r%5.1f%%", 100 * (s.x.time - (t_end - args.duration)) / args.duration);
  }
  if (progress) std::fprintf(stderr, "\r      \r");
  int total = 0;
  for (const auto& [kind, n] : counts) total += n;
  std::printf("summary: %d events (", total);
  bool first = true;
  for (const auto& [kind, n] : counts) {
    std::printf("%s%d %s", first ? "" : ", ", n, kind.c_str());
    first = false;
  }
  std::printf("%s) in %.3f s, %d grazing, max |Xi| %.4g, %zu contacts active at the end\n",
              total ? "" : "none", args.duration, grazing, max_norm, s.mode.contacts.size());
  if (!args.out.empty()) {
    WriteWhole(args.out, log);
    std::printf("wrote %s\n", args.out.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  saltation::InstallMujocoHandlers();
  Args args;
  try {
    args = ParseArgs(argc, argv);
  } catch (const saltation::Error& e) {
    std::fprintf(stderr, "saltation: %s\n\n%s", e.what(), kUsage);
    return 2;
  }
  if (args.command == "help") {
    std::printf("%s", kUsage);
    return 0;
  }
  try {
    if (args.command == "rigid") return RunRigid(args);
    std::fprintf(stderr, "saltation: unknown command '%s'\n\n%s", args.command.c_str(), kUsage);
    return 2;
  } catch (const saltation::Error& e) {
    std::fprintf(stderr, "saltation: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "saltation: internal error: %s\n", e.what());
    return 3;
  }
}
