// saltation: command-line front end. `saltation --help` lists the commands, `saltation CMD --help`
// each one's options. Here: the dispatch, and the two commands that run a simulation and stream its
// events (their options in run_options.cc):
//   saltation rigid [MODEL.xml] [options]   exact event-driven run of the rigid hybrid model:
//                                           every contact event with its Ξ, printed as a table,
//                                           optionally written as JSON Lines
//   saltation record [MODEL.xml] [options]  MuJoCo's own simulation through the engine hook:
//                                           the event stream as JSON Lines and CSV, written per
//                                           step, accumulated Φ (rigid and compliant)
// Exit status: 0 done, 1 bad model, state or output file (the message names it), 2 bad command
// line (one line, and where the help is), 3 internal error or a MuJoCo library of another version.
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "saltation/contact_features.h"
#include "saltation/output_file.h"
#include "saltation/saltation.h"
#include "cli_common.h"
#include "commands.h"
#include "failure_record.h"
#include "restitution_note.h"
#include "run_options.h"

namespace {

using saltation::ConfigError;
using namespace saltation::cli;
using saltation::MatrixJson;
using saltation::TangentDim;


const char* kTopUsage = R"(usage: saltation COMMAND [MODEL.xml] [options]

commands:
  record    MuJoCo's own (compliant) simulation through the engine hook: every contact event with
            its saltation matrix Ξ, as a table, JSON Lines (--out) and CSV (--csv)
  rigid     the exact event-driven rigid hybrid model: every touchdown, liftoff and slip with its Ξ
  compare   the rigid model's sensitivity Φ against MuJoCo's compliant one over a stiffness sweep
  floquet   the periodic orbit through the start state and its Floquet multipliers
  report    an HTML report of a JSON Lines log: saltation report LOG.jsonl [--out report.html]

MODEL defaults to models/ball_drop.xml; a run starts from the model's first keyframe when it has
one, else from qpos0 (--keyframe chooses another).

  saltation COMMAND --help   the options of COMMAND
  saltation --version        saltation X.Y.Z (MuJoCo A.B.C), A.B.C the MuJoCo library loaded
  saltation --help           this text
)";

// what Initialize moved when the start penetrated (--start project)
void PrintStartProjection(const saltation::StartProjection& projection) {
  if (projection.contacts.empty()) return;
  std::printf("start projected out of penetration (--start strict refuses it): %zu contact%s, deepest %s "
              "%.4g mm, |dq| %.3g, %s\n",
              projection.contacts.size(), projection.contacts.size() == 1 ? "" : "s",
              projection.contacts.front().label.c_str(), 1e3 * projection.contacts.front().depth,
              projection.dq_norm, projection.base_only ? "the free joints alone moved" : "joint angles moved too");
}

int RunRigid(const Args& args) {
  const std::string path = args.model.empty() ? saltation::DefaultModelPath() : args.model;
  saltation::ModelPtr m = saltation::LoadModel(path);
  const Start start = ResolveStart(m.get(), args.keyframe);
  const saltation::State x0 = saltation::InitialState(m.get(), start.key);
  const Controls controls = ResolveControls(m.get(), start, x0.time, args.ctrl);
  saltation::Options model_options;
  model_options.control = controls.law;  // a table: evaluated wherever the flow is
  std::string mocap_description;
  if (!args.mocap.empty()) {
    const saltation::MocapTable table = saltation::MocapTable::Read(m.get(), args.mocap);
    model_options.mocap_motion = table.Motion();
    char text[256];
    std::snprintf(text, sizeof(text), "table %s: %d coordinates of %d mocap bodies over %d rows, t = %g…%g s",
                  args.mocap.c_str(), table.columns(), static_cast<int>(m->nmocap), table.rows(), table.first_time(),
                  table.last_time());
    mocap_description = text;
  }
  saltation::Model model(m.get(), model_options);
  saltation::SimulatorOptions options;
  options.step = args.step;
  options.start = args.start == "strict" ? saltation::SimulatorOptions::Start::kStrict
                                         : saltation::SimulatorOptions::Start::kProject;
  options.start_projection_limit = args.start_limit;
  options.max_events = args.max_events;
  saltation::RigidSimulator sim(model, options);
  if (args.restitution != "model") {
    saltation::RestitutionTable restitution(model);
    restitution.SetAll(std::stod(args.restitution));
    sim.SetRestitution(restitution);
  }
  if (m->nu > 0) sim.SetControl(controls.start);  // held unless a table moves them
  saltation::HybridState s = sim.Initialize(x0);
  const double t0 = s.x.time, t_end = s.x.time + args.duration;
  CheckNotTheModel("--out", args.out, path);
  saltation::OutputFile out;  // opened before the run: an unwritable path fails now
  if (!args.out.empty()) out.Open(args.out);
  if (out.is_open()) out.WriteLine(saltation::EventLogHeader(model, options, args.grazing, path));

  std::printf("model %s: nq=%d nv=%d na=%d, tangent dimension %d, detection margin %.3g m\n",
              path.c_str(), static_cast<int>(m->nq), static_cast<int>(m->nv), static_cast<int>(m->na), model.ndx(), model.detect_margin());
  std::printf("start: %s\n", start.description.c_str());
  if (m->nu > 0 || args.ctrl != "hold") std::printf("control: %s\n", controls.description.c_str());
  if (!mocap_description.empty()) std::printf("mocap: %s\n", mocap_description.c_str());
  PrintStartProjection(sim.start_projection());
  if (!args.quiet) {
    std::printf("%12s  %-9s  %-24s  %14s  %9s  %10s  %4s  %s\n", "time (s)", "kind", "contact",
                "transversality", "rel", "|Xi|", "rank", "flags");
  }
  std::map<std::string, int> counts;
  double max_norm = 0;
  int grazing = 0;
  Progress progress("rigid", args.progress, args.quiet);
  auto on_event = [&](const saltation::RigidEvent& ev) {
    progress.Done();
    std::fflush(stdout);
    const double norm = ev.xi.Norm();
    max_norm = std::max(max_norm, norm);
    counts[saltation::EventKindName(ev.kind)]++;
    std::string flags;
    if (ev.xi.transversality_rel < args.grazing) {
      flags += "grazing ";
      grazing++;
    }
    const int joining = saltation::JoiningContacts(model.mj(), ev);
    if (joining > 1) flags += "simultaneous(" + std::to_string(joining) + ") ";
    if (!ev.released.empty()) flags += "released(" + std::to_string(ev.released.size()) + ") ";
    if (ev.feature_before >= 0) {  // a feature change, or a liftoff made by one: the features it passes between
      flags += std::string(saltation::FeatureName(ev.feature_before)) + "->" + saltation::FeatureName(ev.feature_after) + " ";
    }
    if (!args.quiet) {
      std::printf("%12.6f  %-9s  %-24s  %14.6g  %9.3g  %10.4g  %4d  %s\n", ev.time,
                  saltation::EventKindName(ev.kind), saltation::ContactLabel(model, ev.contact).c_str(),
                  ev.xi.transversality, ev.xi.transversality_rel, norm, ev.rank_after, flags.c_str());
    }
    if (out.is_open()) out.WriteLine(saltation::EventToJson(model, ev, args.grazing));
  };
  try {
    saltation::RunRigid(sim, s, t_end, on_event, [&] {
      progress.Update((s.x.time - t0) / args.duration, "t = " + std::to_string(s.x.time).substr(0, 6) + " s");
    });
  } catch (const saltation::NumericalError& e) {
    // the failure is the log's last record: every event before it is in already
    progress.Done();
    char when[64];
    std::snprintf(when, sizeof(when), "the rigid model failed at t = %.6f s: ", s.x.time);
    const std::string message = when + std::string(e.what());
    if (out.is_open()) out.WriteLine(FailureJson(s.x.time, message));
    if (out.is_open()) std::printf("wrote %s (up to the failure)\n", args.out.c_str());
    throw saltation::NumericalError(message);
  }
  progress.Done();
  if (!args.quiet && counts.count("touchdown")) {
    std::fflush(stdout);
    std::printf("%s\n", RestitutionNote(m.get(), start.key, args.restitution, args.duration).c_str());
  }
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
  if (out.is_open()) {
    out.Close();
    std::printf("wrote %s\n", args.out.c_str());
  }
  return 0;
}


int RunRecord(const Args& args) {
  const std::string path = args.model.empty() ? saltation::DefaultModelPath() : args.model;
  saltation::ModelPtr m = saltation::LoadModel(path);
  const Start start = ResolveStart(m.get(), args.keyframe);
  saltation::HookOptions options;
  options.propagation = saltation::ParsePropagation(args.propagate);
  options.grazing_threshold = args.grazing;
  options.near_miss_distance = args.near_miss;
  options.simultaneous_time = args.simultaneous;
  options.worker_thread = args.worker;
  options.keep_events = false;  // each record is written by on_event: none is kept past its step
  if (args.restitution == "auto") {
    options.restitution = saltation::RestitutionSource::kAuto;
  } else if (args.restitution != "model") {
    options.restitution = saltation::RestitutionSource::kOverride;
    options.restitution_override = std::stod(args.restitution);
  }
  saltation::Hook hook(m.get(), options);  // before mj_makeData: near-contacts take slots
  saltation::DataPtr d(mj_makeData(m.get()));
  const saltation::State x0 = saltation::InitialState(m.get(), start.key);
  saltation::StateToData(m.get(), x0, d.get());
  const Controls controls = ResolveControls(m.get(), start, x0.time, args.ctrl);
  for (int i = 0; i < m->nu; i++) d->ctrl[i] = controls.start(i);
  mj_forward(m.get(), d.get());
  const double t_end = d->time + args.duration;
  // a run more steps long than anyone waits for (a timestep that is not positive is the hook's
  // ConfigError at the first step)
  const double dt = m->opt.timestep;
  if (dt > 0 && args.duration / dt > 1e9) {
    throw ConfigError("--duration " + std::to_string(args.duration) + " s at the model's timestep " + std::to_string(dt) +
                      " s is more than 1e9 steps");
  }

  // every output opened before the run: an unwritable path fails now, not after it
  CheckNotTheModel("--out", args.out, path);
  CheckNotTheModel("--csv", args.csv, path);
  CheckNotTheModel("--phi-out", args.phi_out, path);
  saltation::OutputFile out, csv, phi_out;
  if (!args.out.empty()) out.Open(args.out);
  if (!args.csv.empty()) csv.Open(args.csv);
  if (!args.phi_out.empty()) phi_out.Open(args.phi_out);
  if (out.is_open()) out.WriteLine(saltation::EventLogHeader(hook, path));
  std::printf("model %s: nq=%d nv=%d na=%d, tangent dimension %d, timestep %g s, %s, detection margin %.3g m, propagation %s\n",
              path.c_str(), static_cast<int>(m->nq), static_cast<int>(m->nv), static_cast<int>(m->na), TangentDim(m.get()), m->opt.timestep,
              m->opt.integrator == mjINT_RK4 ? "RK4" : m->opt.integrator == mjINT_EULER ? "Euler" : "implicit",
              hook.rigid_model().detect_margin(), saltation::PropagationName(options.propagation));
  std::printf("start: %s\n", start.description.c_str());
  if (m->nu > 0 || args.ctrl != "hold") std::printf("control: %s\n", controls.description.c_str());
  if (!hook.untracked_summary().empty()) std::printf("note: %s\n", hook.untracked_summary().c_str());
  if (!args.quiet) {
    std::printf("%12s  %-12s  %-24s  %14s  %9s  %10s  %s\n", "time (s)", "kind", "contact",
                "transversality", "rel", "|Xi|", "flags");
  }
  const std::string csv_header = saltation::HookEventCsvHeader();
  if (csv.is_open()) csv.WriteLine(csv_header);
  std::map<std::string, int> counts;
  double max_norm = 0;
  const saltation::Model& model = hook.rigid_model();
  // the records of the step being taken: written (and printed) once the step has succeeded, so a
  // step that fails adds nothing after the failure's time
  std::string step_table, step_json, step_csv;
  hook.on_event = [&](const saltation::HookEvent& ev) {
    counts[saltation::EventKindName(ev.kind)]++;
    const double norm = ev.has_xi ? ev.rigid.xi.Norm() : 0;
    max_norm = std::max(max_norm, norm);
    if (!args.quiet) {
      const std::string flags = (ev.grazing ? std::string("grazing ") : "") + saltation::EventDetail(ev);
      const std::string label = ev.contact.geom1 >= 0 ? saltation::ContactLabel(model, ev.contact) : "";
      char row[512];
      if (ev.has_xi) {
        std::snprintf(row, sizeof(row), "%12.6f  %-12s  %-24s  %14.6g  %9.3g  %10.4g  ", ev.time, saltation::EventKindName(ev.kind),
                      label.c_str(), ev.rigid.xi.transversality, ev.rigid.xi.transversality_rel, norm);
      } else {
        std::snprintf(row, sizeof(row), "%12.6f  %-12s  %-24s  %14s  %9s  %10s  ", ev.time, saltation::EventKindName(ev.kind),
                      label.c_str(), "", "", "");
      }
      step_table += row + flags + "\n";
    }
    if (csv.is_open()) step_csv += saltation::HookEventToCsv(model, ev) + "\n";
    if (out.is_open()) step_json += saltation::HookEventToJson(model, ev) + "\n";
  };
  Progress progress("record", args.progress, args.quiet);
  // writes the records delivered since the last call
  auto write_records = [&] {
    if (!step_table.empty()) {
      progress.Done();
      std::fputs(step_table.c_str(), stdout);
      step_table.clear();
    }
    out.WriteLines(step_json);  // one write per step: a killed run leaves whole lines only
    csv.WriteLines(step_csv);
    step_json.clear();
    step_csv.clear();
  };
  while (d->time < t_end) {
    const double time_before = d->time;
    try {
      // a table's controls at the step's start, held over the step as MuJoCo holds ctrl
      if (controls.law) controls.law(d->time, d->qpos, d->qvel, d->ctrl);
      hook.Step(d.get());
      if (!std::isfinite(d->qpos[0])) {
        throw saltation::NumericalError("MuJoCo's simulation became unstable at t = " + std::to_string(time_before) +
                                        " s (the state is not finite)");
      }
    } catch (const saltation::Error& e) {
      // the failed step's records are dropped; the failure is the last record, at the time before
      // the step (everything written so far is at or before it). With the worker, the records
      // delivered by the failing Step are earlier steps' (the worker's own error is thrown after
      // the records made before it): written first
      if (args.worker) write_records();
      progress.Done();
      if (out.is_open()) out.WriteLine(FailureJson(time_before, e.what()));
      if (csv.is_open()) csv.WriteLine(FailureCsv(csv_header, time_before, e.what()));
      if (out.is_open()) std::printf("wrote %s (up to the failure)\n", args.out.c_str());
      if (csv.is_open()) std::printf("wrote %s (up to the failure)\n", args.csv.c_str());
      std::fflush(stdout);
      for (const std::string& w : saltation::TakeMujocoWarnings()) std::fprintf(stderr, "MuJoCo warning: %s\n", w.c_str());
      throw;
    }
    write_records();
    progress.Update((d->time - (t_end - args.duration)) / args.duration, "t = " + std::to_string(d->time).substr(0, 6) + " s");
  }
  if (args.worker) {
    // the worker's last steps: their records, or its error (the failure record at the end)
    try {
      hook.Sync();
    } catch (const saltation::Error& e) {
      write_records();
      progress.Done();
      if (out.is_open()) out.WriteLine(FailureJson(d->time, e.what()));
      if (csv.is_open()) csv.WriteLine(FailureCsv(csv_header, d->time, e.what()));
      std::fflush(stdout);
      throw;
    }
    write_records();
  }
  progress.Done();
  std::fflush(stdout);
  for (const std::string& w : saltation::TakeMujocoWarnings()) std::fprintf(stderr, "MuJoCo warning: %s\n", w.c_str());
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
  if (const long gone = hook.crossings_of_removed_contacts()) {
    std::printf("note: %ld liftoff/release crossing%s not recorded: an earlier event of the same step had "
                "removed the contact (released with it)\n", gone, gone == 1 ? "" : "s");
  }
  if (phi_out.is_open()) {
    char times[96];
    std::snprintf(times, sizeof(times), "{\"t0\":%.17g,\"t1\":%.17g", hook.phi_t0(), hook.phi_time());
    std::string json = times;
    json += ",\"layout\":\"(dq, dv, act)\"";
    json += ",\"rigid\":" + (hook.phi_rigid().size() ? MatrixJson(hook.phi_rigid(), hook.phi_rigid_log_scale()) : "null");
    json += ",\"compliant\":" +
            (hook.phi_compliant().size() ? MatrixJson(hook.phi_compliant(), hook.phi_compliant_log_scale()) : "null");
    json += "}";
    phi_out.WriteLine(json);
    phi_out.Close();
    std::printf("wrote %s\n", args.phi_out.c_str());
  }
  if (csv.is_open()) {
    csv.Close();
    std::printf("wrote %s\n", args.csv.c_str());
  }
  if (out.is_open()) {
    out.Close();
    std::printf("wrote %s\n", args.out.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  saltation::InstallMujocoHandlers();
  // a file-size limit (ulimit -f) is a write error with its reason (EFBIG), not a silent kill
  std::signal(SIGXFSZ, SIG_IGN);
  // the MuJoCo library loaded must be the one whose headers this program was compiled with
  if (const std::string e = saltation::MujocoVersionMismatch(); !e.empty()) {
    std::fprintf(stderr, "saltation: %s\n", e.c_str());
    return 3;
  }
  const std::string command = argc > 1 ? argv[1] : "";
  const std::vector<std::string> rest(argv + std::min(argc, 2), argv + argc);
  const bool known = command == "record" || command == "rigid" || command == "compare" || command == "floquet" ||
                     command == "report";
  // a usage error: one line, and where the help is
  auto usage_error = [&](const std::string& message) {
    std::fflush(stdout);
    const std::string who = known ? "saltation " + command : "saltation";
    std::fprintf(stderr, "%s: %s\nsee `%s --help`\n", who.c_str(), message.c_str(), who.c_str());
    return 2;
  };
  if (command == "--version" || command == "-V") {
    if (argc > 2) return usage_error("--version takes no arguments");
    std::printf("%s\n", saltation::VersionLine().c_str());
    return 0;
  }
  if (command == "-h" || command == "--help" || command == "help") {
    std::printf("%s", kTopUsage);
    return 0;
  }
  try {
    if (command.empty()) throw UsageError("no command given (record, rigid, compare, floquet or report)");
    if (command == "floquet") return RunFloquet(rest);
    if (command == "compare") return RunCompare(rest);
    if (command == "report") return RunReport(rest);
    if (command == "rigid" || command == "record") {
      const Args args = ParseRunArgs(command, rest);
      if (args.help) {
        std::printf("%s", RunUsage(command));
        return 0;
      }
      return command == "rigid" ? RunRigid(args) : RunRecord(args);
    }
    if (command[0] == '-') throw UsageError("the command comes first: saltation COMMAND [MODEL.xml] [options], got '" + command + "'");
    throw UsageError("unknown command '" + command + "' (record, rigid, compare, floquet or report)");
  } catch (const UsageError& e) {
    return usage_error(e.what());
  } catch (const saltation::Error& e) {
    std::fflush(stdout);  // what was printed before the error comes before it
    std::fprintf(stderr, "%s: %s\n", known ? ("saltation " + command).c_str() : "saltation", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "saltation: internal error: %s\n", e.what());
    return 3;
  }
}
