#include "run_options.h"

#include <map>

#include "cli_common.h"

namespace saltation::cli {
namespace {

const char* kRigidUsage = R"(usage: saltation rigid [MODEL.xml] [options]

Runs the exact event-driven rigid hybrid model of MODEL (touchdown, liftoff, slip, and feature: a
held contact passing between features of its geometry — a sphere on a box's face, edge or vertex, a
capsule's end or interior on a box, a sphere or capsule on a capsule's cylinder or cap, a sphere on a
cylinder's side, flat face or rim) and prints every contact event
with its transversality, saltation matrix norm ‖Ξ‖, rank and flags.
MODEL defaults to models/ball_drop.xml. The run starts from the model's first keyframe when it has
one, else from qpos0 (printed); --keyframe chooses another.

options:
  --duration S        simulated time (s), default 2
  --keyframe K        start from keyframe K (name or index; none: qpos0)
  --restitution E     restitution of every contact: a number in [0, 1] or "model" (the <custom>
                      fields, default)
  --ctrl C            the actuators' controls: hold (default: the start keyframe's ctrl, else
                      0, held), zero, or FILE.csv — a table 'time,ACTUATOR,…' interpolated
                      linearly (actuators it does not list hold the keyframe's; README, "Controls")
  --grazing T         flag events whose dimensionless transversality is below T, default 0.01
  --step H            RK4 step of the rigid integrator (s), default 1e-3
  --mocap FILE.csv    moves the mocap bodies as the table says ('time,BODY.x,BODY.y,BODY.z,…',
                      a cubic spline through the rows): strikes on moving surfaces with ∂g/∂t
  --start S           a start whose contacts penetrate: project (default: moved out along the
                      contact normals, the free joints alone when that suffices, and printed) or
                      strict (refused)
  --start-limit D     project refuses a start penetrating deeper than D m, default 0.03
  --max-events N      stop with exit status 1 when more than N events fall within 0.1 s of
                      simulated time (Zeno bouncing, chattering), default 10000
  --out FILE.jsonl    one JSON object per event, a line each (checked writable before the run)
  --quiet             no table and no progress, only the summary
  --progress          progress on stderr even when it is not a terminal
  -h, --help          this text
Options take their value as "--opt value" or "--opt=value".
)";

const char* kRecordUsage = R"(usage: saltation record [MODEL.xml] [options]

Steps MuJoCo's own (compliant) simulation of MODEL through the engine hook and prints every contact
event (touchdown, graze, liftoff, slip, near_miss, simultaneous, zeno, chatter, restitution) with
its transversality, saltation matrix norm ‖Ξ‖ and flags.
MODEL defaults to models/ball_drop.xml. The run starts from the model's first keyframe when it has
one, else from qpos0 (printed); --keyframe chooses another. A failure (an unstable simulation,
MuJoCo resetting the state) ends the run with exit status 1: the records before it are written,
the failure is the last one.

options:
  --duration S        simulated time (s), default 2
  --keyframe K        start from keyframe K (name or index; none: qpos0)
  --restitution E     restitution of every contact: a number in [0, 1], "model" (the <custom>
                      fields, default) or "auto" (measured on MuJoCo's contact)
  --ctrl C            the actuators' controls: hold (default: the start keyframe's ctrl, else
                      0, held), zero, or FILE.csv — a table 'time,ACTUATOR,…' applied before
                      each step, interpolated linearly (actuators it does not list hold the keyframe's; README, "Controls")
  --grazing T         flag events whose dimensionless transversality is below T, default 0.01
  --propagate P       events (default) | rigid | compliant | both: what is propagated
  --near-miss D       record guards passing within D m of zero without crossing
  --simultaneous T    crossings within T s form one group, default 1e-6
  --out FILE.jsonl    one JSON object per event, a line each, written as the events are found
  --csv FILE.csv      one CSV row per event, written as the events are found
  --phi-out FILE.json accumulated Φ over the run (needs --propagate other than events)
  --quiet             no table and no progress, only the summary
  --progress          progress on stderr even when it is not a terminal
  --worker            the hook's bookkeeping on a worker thread (the same records; the stepping
                      thread pays MuJoCo's step and a copy of its data, records are written as
                      the worker finishes them)
  -h, --help          this text
Options take their value as "--opt value" or "--opt=value"; every output path is checked writable
before the run, and a file is never left with part of a line (disk full: truncated back to its
last whole line, exit status 1).
)";

// every option of rigid and record, and the commands that take it
const std::map<std::string, std::string> kOwners = {
    {"--duration", "rigid record"}, {"--keyframe", "rigid record"}, {"--restitution", "rigid record"},
    {"--grazing", "rigid record"},  {"--out", "rigid record"},      {"--quiet", "rigid record"},
    {"--progress", "rigid record"}, {"--step", "rigid"},            {"--csv", "record"},
    {"--start", "rigid"},           {"--start-limit", "rigid"},     {"--max-events", "rigid"},
    {"--propagate", "record"},      {"--phi-out", "record"},        {"--near-miss", "record"},
    {"--simultaneous", "record"},   {"--ctrl", "rigid record"},     {"--mocap", "rigid"},
    {"--worker", "record"},
};

bool Takes(const std::string& command, const std::string& option) {
  const auto it = kOwners.find(option);
  return it != kOwners.end() && (" " + it->second + " ").find(" " + command + " ") != std::string::npos;
}

}  // namespace

const char* RunUsage(const std::string& command) { return command == "rigid" ? kRigidUsage : kRecordUsage; }

Args ParseRunArgs(const std::string& command, const std::vector<std::string>& argv) {
  Args args;
  args.command = command;
  for (ArgumentCursor c(argv); c.Next();) {
    const std::string& a = c.arg();
    if (c.IsHelp()) {
      args.help = true;
      return args;
    }
    if (c.IsOption() && kOwners.count(a) && !Takes(command, a)) {
      throw UsageError(command + " does not use " + a + " (an option of " + kOwners.at(a) + ")");
    }
    if (a == "--duration") {
      args.duration = ParseNumber(a, c.Value());
      if (!(args.duration > 0)) throw UsageError("--duration must be positive");
    } else if (a == "--keyframe") {
      args.keyframe = c.Value();
    } else if (a == "--step") {
      args.step = ParseNumber(a, c.Value());
      if (!(args.step > 0 && args.step <= 0.1)) throw UsageError("--step must be in (0, 0.1] s");
    } else if (a == "--start") {
      args.start = c.Value();
      if (args.start != "project" && args.start != "strict") {
        throw UsageError("--start must be project or strict, not '" + args.start + "'");
      }
    } else if (a == "--start-limit") {
      args.start_limit = ParseNumber(a, c.Value());
      if (!(args.start_limit > 0)) throw UsageError("--start-limit must be positive (m)");
    } else if (a == "--max-events") {
      const double n = ParseNumber(a, c.Value());
      if (!(n >= 1 && n <= 1e9 && n == static_cast<int>(n))) throw UsageError("--max-events must be a whole number ≥ 1");
      args.max_events = static_cast<int>(n);
    } else if (a == "--restitution") {
      args.restitution = c.Value();
      if (args.restitution == "auto" && command == "rigid") {
        throw UsageError("--restitution auto needs MuJoCo's contacts: use record");
      }
      if (args.restitution != "model" && args.restitution != "auto") {
        const double e = ParseNumber(a, args.restitution);
        if (e < 0 || e > 1) throw UsageError("--restitution must be in [0, 1], model or auto");
      }
    } else if (a == "--csv") {
      args.csv = c.Value();
    } else if (a == "--propagate") {
      args.propagate = c.Value();
      try {
        ParsePropagation(args.propagate);
      } catch (const ConfigError& e) {
        throw UsageError(e.what());
      }
    } else if (a == "--phi-out") {
      args.phi_out = c.Value();
    } else if (a == "--near-miss") {
      args.near_miss = ParseNumber(a, c.Value());
      if (args.near_miss < 0) throw UsageError("--near-miss must be non-negative");
    } else if (a == "--simultaneous") {
      args.simultaneous = ParseNumber(a, c.Value());
      if (args.simultaneous < 0) throw UsageError("--simultaneous must be non-negative");
    } else if (a == "--grazing") {
      args.grazing = ParseNumber(a, c.Value());
      if (args.grazing < 0 || args.grazing > 1) throw UsageError("--grazing must be in [0, 1]");
    } else if (a == "--mocap") {
      args.mocap = c.Value();
      if (args.mocap.empty()) throw UsageError("--mocap needs a table FILE.csv");
    } else if (a == "--ctrl") {
      args.ctrl = c.Value();
      if (args.ctrl.empty()) throw UsageError("--ctrl must be hold, zero or a table FILE.csv");
    } else if (a == "--out") {
      args.out = c.Value();
    } else if (a == "--quiet") {
      c.Flag();
      args.quiet = true;
    } else if (a == "--progress") {
      c.Flag();
      args.progress = true;
    } else if (a == "--worker") {
      c.Flag();
      args.worker = true;
    } else {
      TakeModelArgument(c, args.model);
    }
  }
  if (!args.phi_out.empty() && args.propagate == "events") {
    throw UsageError("--phi-out needs --propagate rigid, compliant or both");
  }
  const std::vector<std::pair<const char*, std::string>> outputs = {
      {"--out", args.out}, {"--csv", args.csv}, {"--phi-out", args.phi_out}};
  for (size_t i = 0; i < outputs.size(); i++) {
    for (size_t j = i + 1; j < outputs.size(); j++) {
      if (!outputs[i].second.empty() && outputs[i].second == outputs[j].second) {
        throw UsageError(std::string(outputs[i].first) + " and " + outputs[j].first + " name the same file '" +
                         outputs[i].second + "'");
      }
    }
  }
  return args;
}

}  // namespace saltation::cli
