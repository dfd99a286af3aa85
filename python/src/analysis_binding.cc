// saltation._core: the exact rigid simulator from an MjData's state (rigid), the periodic orbit
// and its Floquet multipliers (floquet), and the names of the tangent coordinates (state_labels).
#include <pybind11/complex.h>
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "bindings.h"
#include "mujoco_objects.h"
#include "saltation/control_table.h"
#include "saltation/errors.h"
#include "saltation/event_json.h"
#include "saltation/floquet.h"
#include "saltation/loading.h"
#include "saltation/mocap_table.h"
#include "saltation/rigid_simulator.h"
#include "saltation/tangent.h"

namespace py = pybind11;

namespace saltation::python {
namespace {

void SetRestitution(const Model& model, RigidSimulator& sim, const py::object& restitution) {
  if (restitution.is_none()) return;
  if (py::isinstance<py::str>(restitution)) {
    throw ConfigError("restitution 'auto' needs MuJoCo's contacts: use saltation.Hook (rigid takes None or a number)");
  }
  const double e = restitution.cast<double>();
  if (!(e >= 0 && e <= 1)) throw ConfigError("restitution must be in [0, 1], not " + std::to_string(e));
  RestitutionTable table(model);
  table.SetAll(e);
  sim.SetRestitution(table);
}

// The law of `controller` (None: d's ctrl held): a path str/PathLike is a control table
// (control_table.h; actuators it does not list hold d's ctrl); a callable f(t, qpos, qvel) returning
// nu controls is called at every evaluation of the flow (with the GIL: this thread holds it). A
// wrong number of controls is a ConfigError; f's own exceptions propagate to the caller.
ControlLaw ControllerLaw(const mjModel* m, const mjData* d, const py::object& controller) {
  if (controller.is_none()) return {};
  const py::object fspath = py::module_::import("os").attr("fspath");
  if (py::isinstance<py::str>(controller) || py::hasattr(controller, "__fspath__")) {
    const std::string path = fspath(controller).cast<std::string>();
    return ControlTable::Read(m, path, Eigen::Map<const Eigen::VectorXd>(d->ctrl, m->nu)).Law();
  }
  if (!PyCallable_Check(controller.ptr())) {
    throw ConfigError("controller must be None, a control table path or a callable f(t, qpos, qvel) -> ctrl");
  }
  const int nq = m->nq, nv = m->nv, nu = m->nu;
  return [controller, nq, nv, nu](double t, const mjtNum* qpos, const mjtNum* qvel, mjtNum* ctrl) {
    const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(qpos, nq), v = Eigen::Map<const Eigen::VectorXd>(qvel, nv);
    const py::object result = controller(t, q, v);
    Eigen::VectorXd u;
    try {
      u = result.cast<Eigen::VectorXd>();
    } catch (const py::cast_error&) {
      throw ConfigError("controller must return " + std::to_string(nu) + " numbers (one per actuator), not " +
                        py::repr(result).cast<std::string>());
    }
    if (u.size() != nu) {
      throw ConfigError("controller returned " + std::to_string(u.size()) + " controls; the model has " +
                        std::to_string(nu) + " actuators");
    }
    Eigen::Map<Eigen::VectorXd>(ctrl, nu) = u;
  };
}

// The motion of `mocap` (None: the mocap bodies stay where the model has them): a path is a mocap
// table (mocap_table.h); a callable f(t) returns (pos, vel), each nmocap × 3 (world positions of
// the mocap bodies and their velocities), called with the GIL wherever the flow or a guard needs
// the bodies. Orientations stay the model's. A wrong shape is a ConfigError.
MocapMotion MocapLaw(const mjModel* m, const py::object& mocap) {
  if (mocap.is_none()) return {};
  if (py::isinstance<py::str>(mocap) || py::hasattr(mocap, "__fspath__")) {
    const std::string path = py::module_::import("os").attr("fspath")(mocap).cast<std::string>();
    return MocapTable::Read(m, path).Motion();
  }
  if (!PyCallable_Check(mocap.ptr())) {
    throw ConfigError("mocap must be None, a mocap table path or a callable f(t) -> (pos, vel)");
  }
  if (m->nmocap == 0) throw ConfigError("mocap: the model has no mocap bodies to move");
  std::vector<Eigen::Vector4d> quats(m->nmocap);
  for (int b = 0; b < m->nbody; b++) {
    if (m->body_mocapid[b] >= 0) quats[m->body_mocapid[b]] = Eigen::Map<const Eigen::Vector4d>(m->body_quat + 4 * b);
  }
  const int nmocap = m->nmocap;
  return [mocap, quats, nmocap](double t, int i) {
    const py::object result = mocap(t);
    Eigen::MatrixXd pos, vel;
    try {
      const py::tuple pair = result.cast<py::tuple>();
      if (pair.size() != 2) throw py::cast_error();
      pos = pair[0].cast<Eigen::MatrixXd>();
      vel = pair[1].cast<Eigen::MatrixXd>();
    } catch (const py::cast_error&) {
      throw ConfigError("mocap must return (pos, vel), each " + std::to_string(nmocap) + " × 3, not " +
                        py::repr(result).cast<std::string>());
    }
    if (pos.rows() != nmocap || pos.cols() != 3 || vel.rows() != nmocap || vel.cols() != 3) {
      throw ConfigError("mocap returned pos " + std::to_string(pos.rows()) + " × " + std::to_string(pos.cols()) +
                        " and vel " + std::to_string(vel.rows()) + " × " + std::to_string(vel.cols()) + "; the model has " +
                        std::to_string(nmocap) + " mocap bodies (each × 3)");
    }
    if (!pos.allFinite() || !vel.allFinite()) throw NumericalError("mocap returned a value that is not finite at t = " + std::to_string(t));
    MocapSample s;
    s.pos = pos.row(i).transpose();
    s.vel = vel.row(i).transpose();
    s.quat = quats[i];
    return s;
  };
}

// The exact rigid model from d's state (its ctrl held, or moved by `controller`) over `duration`: {"events": JSON records,
// "start_projection": what the projection of a penetrating start moved, "final_forces": the normal
// force λ_n (N) of each contact of the mode the run ended in, [(label, λ_n), …] in mode order (None
// after a failure), "error": the message of the failure that ended the run early, or None}.
// Everything found before a failure is returned, the event the run stopped at included (the Python
// side raises with it attached; "failure_time": when); bad arguments raise ConfigError at once.
py::dict Rigid(py::object model, py::object data, double duration, const py::object& restitution, double step,
               double grazing, const std::string& start, double start_limit, const py::object& controller,
               const py::object& mocap, const py::int_& max_events) {
  const mjModel* m = ModelOf(model);
  const mjData* d = DataOf(data);
  CheckSameSizes(m, d, data);
  if (!(duration >= 0)) throw ConfigError("duration must be non-negative");
  if (!(step > 0 && step <= 0.1)) throw ConfigError("step must be in (0, 0.1] s");
  if (start != "project" && start != "strict") {
    throw ConfigError("start must be 'project' or 'strict', not '" + start + "'");
  }
  if (!(start_limit > 0)) throw ConfigError("start_limit must be positive (m)");
  // a Python int of any size: beyond C++'s int it cannot be a limit; within it the simulator
  // checks it (at least 1)
  int overflow = 0;
  const long long max_events_value = PyLong_AsLongLongAndOverflow(max_events.ptr(), &overflow);
  if (overflow != 0 || max_events_value > std::numeric_limits<int>::max() ||
      max_events_value < std::numeric_limits<int>::min()) {
    throw ConfigError("max_events must be between 1 and " + std::to_string(std::numeric_limits<int>::max()) +
                      ", not " + py::str(max_events).cast<std::string>());
  }
  ScopedMujocoErrors errors;
  Options model_options;
  model_options.control = ControllerLaw(m, d, controller);
  model_options.mocap_motion = MocapLaw(m, mocap);
  Model rigid_model(m, model_options);
  SimulatorOptions options;
  options.step = step;
  options.start = start == "strict" ? SimulatorOptions::Start::kStrict : SimulatorOptions::Start::kProject;
  options.start_projection_limit = start_limit;
  options.max_events = static_cast<int>(max_events_value);  // ConfigError below 1 (RigidSimulator)
  RigidSimulator sim(rigid_model, options);
  SetRestitution(rigid_model, sim, restitution);
  if (m->nu > 0) sim.SetControl(Eigen::Map<const Eigen::VectorXd>(d->ctrl, m->nu));
  HybridState s = sim.Initialize(StateFromData(m, d));
  const StartProjection& moved = sim.start_projection();
  py::dict projection;
  py::list contacts;
  for (const StartProjection::Contact& c : moved.contacts) contacts.append(py::make_tuple(c.label, c.depth));
  projection["contacts"] = contacts;
  projection["dq_norm"] = moved.dq_norm;
  projection["base_only"] = moved.base_only;
  std::vector<std::string> events;
  py::object error = py::none(), failure_time = py::none(), final_forces = py::none();
  try {
    RunRigid(sim, s, s.x.time + duration,
             [&](const RigidEvent& ev) { events.push_back(EventToJson(rigid_model, ev, grazing)); });
    const ModeDynamics end = EvaluateMode(rigid_model, sim.data(), s.x, s.mode);
    py::list forces;
    for (size_t k = 0; k < s.mode.contacts.size(); k++) {
      forces.append(py::make_tuple(ContactLabel(rigid_model, s.mode.contacts[k]), end.normal_force(k)));
    }
    final_forces = forces;
  } catch (const NumericalError& e) {
    // the command line's message (saltation_cli.cc, RunRigid)
    char when[64];
    std::snprintf(when, sizeof(when), "the rigid model failed at t = %.6f s: ", s.x.time);
    error = py::str(when + std::string(e.what()));
    failure_time = py::float_(s.x.time);
  }
  py::dict out;
  out["events"] = events;
  out["start_projection"] = projection;
  out["final_forces"] = final_forces;
  out["error"] = error;
  out["failure_time"] = failure_time;
  return out;
}

py::dict Floquet(py::object model, py::object data, const std::string& keyframe, const std::string& section,
                 double step, int max_iterations, double tolerance) {
  const mjModel* m = ModelOf(model);
  FloquetOptions options;
  if (!ParseEventKind(section, &options.section) ||
      (options.section != EventKind::kTouchdown && options.section != EventKind::kLiftoff)) {
    throw ConfigError("section must be touchdown or liftoff, not '" + section + "'");
  }
  if (!(max_iterations >= 3)) throw ConfigError("max_iterations must be at least 3");
  if (!(tolerance > 0)) throw ConfigError("tolerance must be positive");
  if (!(step > 0 && step <= 0.1)) throw ConfigError("step must be in (0, 0.1] s");
  options.max_iterations = max_iterations;
  options.tolerance = tolerance;
  ScopedMujocoErrors errors;
  State x;
  Eigen::VectorXd ctrl;
  if (!data.is_none()) {
    if (!keyframe.empty()) throw ConfigError("give a keyframe or a data, not both");
    const mjData* d = DataOf(data);
    CheckSameSizes(m, d, data);
    x = StateFromData(m, d);
    ctrl = Eigen::Map<const Eigen::VectorXd>(d->ctrl, m->nu);
  } else {
    x = InitialState(m, keyframe);
    ctrl = InitialControl(m, keyframe);
  }
  Model rigid_model(m);
  SimulatorOptions sim_options;
  sim_options.step = step;
  RigidSimulator sim(rigid_model, sim_options);
  if (m->nu > 0) sim.SetControl(ctrl);
  const FloquetResult r = AnalyzePeriodicOrbit(sim, sim.Initialize(x), options);
  py::dict out;
  out["converged"] = r.converged;
  out["iterations"] = r.iterations;
  out["newton_iterations"] = r.newton_iterations;
  out["period"] = r.period;
  out["section_events"] = r.section_events;
  out["residual"] = r.residual;
  out["section"] = section;
  out["multipliers"] = r.multipliers;
  out["shooting_multipliers"] = r.shooting_multipliers;
  out["constrained_multipliers"] = r.constrained_multipliers;
  out["constrained_shooting_multipliers"] = r.constrained_shooting_multipliers;
  out["trivial"] = r.trivial;
  out["agreement"] = r.agreement;
  out["verdict"] = r.verdict;
  out["monodromy"] = r.monodromy;
  out["shooting"] = r.shooting;
  out["cyclic"] = r.cyclic;
  out["symmetries"] = r.symmetries;
  // the constrained chain spectrum split: trivial, exact-symmetry and the other multipliers
  out["trivial_multiplier"] = r.constrained_spectrum.trivial;
  out["symmetry_multipliers"] = r.spectrum.symmetry;
  out["other_multipliers"] = r.constrained_spectrum.rest;
  out["cross_checked"] = r.cross_checked;
  out["check_multipliers"] = r.check_spectrum.rest;
  out["consistent"] = r.consistent;
  out["check_failures"] = r.check_failures;
  std::vector<std::string> events;
  for (const RigidEvent& ev : r.events) events.push_back(EventToJson(rigid_model, ev, 0.01));
  out["events"] = events;
  return out;
}

}  // namespace

void BindAnalysis(py::module_& m) {
  m.def("rigid", &Rigid, py::arg("model"), py::arg("data"), py::arg("duration"), py::arg("restitution"),
        py::arg("step"), py::arg("grazing"), py::arg("start"), py::arg("start_limit"), py::arg("controller"), py::arg("mocap"),
        py::arg("max_events"));
  m.def("floquet", &Floquet, py::arg("model"), py::arg("data"), py::arg("keyframe"), py::arg("section"),
        py::arg("step"), py::arg("max_iterations"), py::arg("tolerance"));
  m.def("state_labels", [](py::object model) { return StateLabels(ModelOf(model)); }, py::arg("model"));
}

}  // namespace saltation::python
