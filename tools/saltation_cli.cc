// saltation: command-line front end.
//
//   saltation rigid [MODEL.xml] [options]   exact event-driven run of the rigid hybrid model:
//                                           every contact event with its Ξ, printed as a table,
//                                           optionally written as JSON Lines
//   saltation record [MODEL.xml] [options]  MuJoCo's own simulation through the engine hook:
//                                           the event stream, JSON Lines flushed per event, a
//                                           CSV summary, accumulated Φ (rigid and compliant)
#include <mujoco/mujoco.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "saltation/saltation.h"
#include "cli_common.h"
#include "commands.h"

namespace {

using saltation::ConfigError;
using namespace saltation::cli;
using saltation::MatrixJson;
using saltation::TangentDim;


const char* kUsage = R"(usage: saltation record [MODEL.xml] [options]
       saltation rigid  [MODEL.xml] [options]

record  steps MuJoCo's own (compliant) simulation of MODEL through the engine hook and prints
        every contact event (touchdown, graze, liftoff, slip, near_miss, simultaneous, zeno,
        chatter, restitution) with its transversality, saltation matrix norm and flags.
rigid   runs the exact event-driven rigid hybrid model instead (touchdown, liftoff, slip).
MODEL defaults to models/ball_drop.xml.

options (both):
  --duration S        simulated time (s), default 2
  --keyframe K        start from keyframe K (name or index)
  --restitution E     restitution of every contact: a number in [0, 1], "model" (the <custom>
                      fields, default) or, for record, "auto" (measured on MuJoCo's contact)
  --grazing T         flag events whose dimensionless transversality is below T, default 0.01
  --out FILE.jsonl    one JSON object per event (record: flushed per event; rigid: written
                      whole, then renamed into place)
  --quiet             no table, only the summary
options (record):
  --csv FILE.csv      CSV summary of the events (written whole at the end)
  --propagate P       events (default) | rigid | compliant | both: what is propagated
  --phi-out FILE.json accumulated Φ over the run (needs --propagate other than events)
  --near-miss D       record guards passing within D m of zero without crossing
  --simultaneous T    crossings within T s form one group, default 1e-6
options (rigid):
  --step H            RK4 step of the rigid integrator (s), default 1e-3
  -h, --help          this text
  --version           prints saltation X.Y.Z (MuJoCo A.B.C), A.B.C the MuJoCo library loaded
)";

struct Args {
  std::string command;
  std::string model;
  double duration = 2;
  std::string keyframe;
  double step = 1e-3;
  std::string restitution = "model";
  double grazing = 0.01;
  std::string out;
  bool quiet = false;
  std::string csv;
  std::string propagate = "events";
  std::string phi_out;
  double near_miss = -1;
  double simultaneous = 1e-6;
};

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
      args.restitution = value();
      if (args.restitution != "model" && args.restitution != "auto") {
        const double e = ParseNumber(a, args.restitution);
        if (e < 0 || e > 1) throw ConfigError("--restitution must be in [0, 1], model or auto");
      }
    } else if (a == "--csv") {
      args.csv = value();
    } else if (a == "--propagate") {
      args.propagate = value();
      saltation::ParsePropagation(args.propagate);
    } else if (a == "--phi-out") {
      args.phi_out = value();
    } else if (a == "--near-miss") {
      args.near_miss = ParseNumber(a, value());
      if (args.near_miss < 0) throw ConfigError("--near-miss must be non-negative");
    } else if (a == "--simultaneous") {
      args.simultaneous = ParseNumber(a, value());
      if (args.simultaneous < 0) throw ConfigError("--simultaneous must be non-negative");
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
  if (!args.phi_out.empty() && args.propagate == "events") {
    throw ConfigError("--phi-out needs --propagate rigid, compliant or both");
  }
  return args;
}

int RunRigid(const Args& args) {
  const std::string path = args.model.empty() ? saltation::DefaultModelPath() : args.model;
  saltation::ModelPtr m = saltation::LoadModel(path);
  saltation::Model model(m.get());
  if (args.restitution == "auto") throw ConfigError("--restitution auto needs MuJoCo's contacts: use record");
  saltation::SimulatorOptions options;
  options.step = args.step;
  saltation::RigidSimulator sim(model, options);
  if (args.restitution != "model") {
    saltation::RestitutionTable restitution(model);
    restitution.SetAll(std::stod(args.restitution));
    sim.SetRestitution(restitution);
  }
  if (m->nu > 0) sim.SetControl(saltation::InitialControl(m.get(), args.keyframe));  // held constant
  saltation::HybridState s = sim.Initialize(saltation::InitialState(m.get(), args.keyframe));
  const double t_end = s.x.time + args.duration;

  std::printf("model %s: nq=%d nv=%d na=%d, tangent dimension %d, detection margin %.3g m\n",
              path.c_str(), static_cast<int>(m->nq), static_cast<int>(m->nv), static_cast<int>(m->na), model.ndx(), model.detect_margin());
  if (!args.quiet) {
    std::printf("%12s  %-9s  %-24s  %14s  %9s  %10s  %4s  %s\n", "time (s)", "kind", "contact",
                "transversality", "rel", "|Xi|", "rank", "flags");
  }
  std::string log;
  std::map<std::string, int> counts;
  double max_norm = 0;
  int grazing = 0;
  const bool progress = isatty(2) && args.duration > 5;
  auto on_event = [&](const saltation::RigidEvent& ev) {
    std::fflush(stdout);
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
  };
  saltation::RunRigid(sim, s, t_end, on_event, [&] {
    if (progress) std::fprintf(stderr, "\r%5.1f%%", 100 * (s.x.time - (t_end - args.duration)) / args.duration);
  });
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


// one JSON matrix, row-major
int RunRecord(const Args& args) {
  const std::string path = args.model.empty() ? saltation::DefaultModelPath() : args.model;
  saltation::ModelPtr m = saltation::LoadModel(path);
  saltation::HookOptions options;
  options.propagation = saltation::ParsePropagation(args.propagate);
  options.grazing_threshold = args.grazing;
  options.near_miss_distance = args.near_miss;
  options.simultaneous_time = args.simultaneous;
  if (args.restitution == "auto") {
    options.restitution = saltation::RestitutionSource::kAuto;
  } else if (args.restitution != "model") {
    options.restitution = saltation::RestitutionSource::kOverride;
    options.restitution_override = std::stod(args.restitution);
  }
  saltation::Hook hook(m.get(), options);  // before mj_makeData: near-contacts take slots
  saltation::DataPtr d(mj_makeData(m.get()));
  const saltation::State x0 = saltation::InitialState(m.get(), args.keyframe);
  saltation::StateToData(m.get(), x0, d.get());
  const Eigen::VectorXd ctrl0 = saltation::InitialControl(m.get(), args.keyframe);  // held constant
  for (int i = 0; i < m->nu; i++) d->ctrl[i] = ctrl0(i);
  mj_forward(m.get(), d.get());
  const double t_end = d->time + args.duration;
  // a run more steps long than anyone waits for (a timestep that is not positive is the hook's
  // ConfigError at the first step)
  const double dt = m->opt.timestep;
  if (dt > 0 && args.duration / dt > 1e9) {
    throw ConfigError("--duration " + std::to_string(args.duration) + " s at the model's timestep " + std::to_string(dt) +
                      " s is more than 1e9 steps");
  }

  int fd = -1;
  if (!args.out.empty()) {
    fd = open(args.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) throw ConfigError("could not write '" + args.out + "'");
  }
  std::printf("model %s: nq=%d nv=%d na=%d, tangent dimension %d, timestep %g s, %s, detection margin %.3g m, propagation %s\n",
              path.c_str(), static_cast<int>(m->nq), static_cast<int>(m->nv), static_cast<int>(m->na), TangentDim(m.get()), m->opt.timestep,
              m->opt.integrator == mjINT_RK4 ? "RK4" : m->opt.integrator == mjINT_EULER ? "Euler" : "implicit",
              hook.rigid_model().detect_margin(), saltation::PropagationName(options.propagation));
  if (!hook.untracked_summary().empty()) std::printf("note: %s\n", hook.untracked_summary().c_str());
  if (!args.quiet) {
    std::printf("%12s  %-12s  %-24s  %14s  %9s  %10s  %s\n", "time (s)", "kind", "contact",
                "transversality", "rel", "|Xi|", "flags");
  }
  std::string csv = saltation::HookEventCsvHeader() + "\n";
  std::map<std::string, int> counts;
  double max_norm = 0;
  std::string write_error;
  const saltation::Model& model = hook.rigid_model();
  hook.on_event = [&](const saltation::HookEvent& ev) {
    counts[saltation::EventKindName(ev.kind)]++;
    const double norm = ev.has_xi ? ev.rigid.xi.Norm() : 0;
    max_norm = std::max(max_norm, norm);
    if (!args.quiet) {
      const std::string flags = (ev.grazing ? std::string("grazing ") : "") + saltation::EventDetail(ev);
      const std::string label = ev.contact.geom1 >= 0 ? saltation::ContactLabel(model, ev.contact) : "";
      if (ev.has_xi) {
        std::printf("%12.6f  %-12s  %-24s  %14.6g  %9.3g  %10.4g  %s\n", ev.time, saltation::EventKindName(ev.kind), label.c_str(),
                    ev.rigid.xi.transversality, ev.rigid.xi.transversality_rel, norm, flags.c_str());
      } else {
        std::printf("%12.6f  %-12s  %-24s  %14s  %9s  %10s  %s\n", ev.time, saltation::EventKindName(ev.kind), label.c_str(), "", "", "",
                    flags.c_str());
      }
    }
    csv += saltation::HookEventToCsv(model, ev) + "\n";
    if (fd >= 0) {
      // one write per record: a killed run leaves whole lines only
      const std::string line = saltation::HookEventToJson(model, ev) + "\n";
      if (write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) write_error = args.out;
    }
  };
  const bool progress = args.duration >= 5;
  int last_percent = -1;
  // what was found before a failure is written too: the JSON Lines file holds it already (a line
  // per record), the CSV is written whole here
  auto write_csv = [&] {
    if (args.csv.empty()) return;
    WriteWhole(args.csv, csv);
    std::printf("wrote %s\n", args.csv.c_str());
  };
  while (d->time < t_end) {
    try {
      hook.Step(d.get());
      if (!std::isfinite(d->qpos[0])) {
        throw saltation::NumericalError("MuJoCo's simulation became unstable at t = " + std::to_string(d->time) +
                                        " s (the state is not finite)");
      }
    } catch (const saltation::Error&) {
      if (fd >= 0) close(fd);
      write_csv();
      throw;
    }
    const int percent = static_cast<int>(100 * (d->time - (t_end - args.duration)) / args.duration);
    if (progress && percent / 10 != last_percent / 10) {
      std::fprintf(stderr, "progress: %3d%% (t = %.2f s)\n", std::min(percent, 100), d->time);
      last_percent = percent;
    }
  }
  if (fd >= 0) close(fd);
  if (!write_error.empty()) throw ConfigError("could not write '" + write_error + "'");
  int total = 0;
  std::printf("summary: ");
  bool first = true;
  for (const auto& [kind, n] : counts) {
    std::printf("%s%d %s", first ? "" : ", ", n, kind.c_str());
    total += n;
    first = false;
  }
  std::printf("%s (%d records) in %.3f s, max |Xi| %.4g, %zu contacts in the rigid mode at the end\n",
              total ? "" : "no events", total, args.duration, max_norm, hook.mode().contacts.size());
  write_csv();
  if (!args.phi_out.empty()) {
    char times[96];
    std::snprintf(times, sizeof(times), "{\"t0\":%.17g,\"t1\":%.17g", hook.phi_t0(), hook.phi_time());
    std::string json = times;
    json += ",\"layout\":\"(dq, dv, act)\"";
    json += ",\"rigid\":" + (hook.phi_rigid().size() ? MatrixJson(hook.phi_rigid(), hook.phi_rigid_log_scale()) : "null");
    json += ",\"compliant\":" +
            (hook.phi_compliant().size() ? MatrixJson(hook.phi_compliant(), hook.phi_compliant_log_scale()) : "null");
    json += "}\n";
    WriteWhole(args.phi_out, json);
    std::printf("wrote %s\n", args.phi_out.c_str());
  }
  if (!args.out.empty()) std::printf("wrote %s\n", args.out.c_str());
  for (const std::string& w : saltation::TakeMujocoWarnings()) std::fprintf(stderr, "MuJoCo warning: %s\n", w.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  saltation::InstallMujocoHandlers();
  // the MuJoCo library loaded must be the one whose headers this program was compiled with
  if (const std::string e = saltation::MujocoVersionMismatch(); !e.empty()) {
    std::fprintf(stderr, "saltation: %s\n", e.c_str());
    return 3;
  }
  if (argc == 2 && std::string(argv[1]) == "--version") {
    std::printf("%s\n", saltation::VersionLine().c_str());
    return 0;
  }
  // subcommands with their own options
  const std::vector<std::string> rest(argv + std::min(argc, 2), argv + argc);
  const std::string first = argc > 1 ? argv[1] : "";
  try {
    if (first == "floquet") return saltation::cli::RunFloquet(rest);
    if (first == "compare") return saltation::cli::RunCompare(rest);
  } catch (const saltation::cli::UsageError& e) {
    std::fprintf(stderr, "saltation %s: %s\n", first.c_str(), e.what());
    return 2;
  } catch (const saltation::Error& e) {
    std::fprintf(stderr, "saltation %s: %s\n", first.c_str(), e.what());
    return 1;
  }
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
    if (args.command == "record") return RunRecord(args);
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
