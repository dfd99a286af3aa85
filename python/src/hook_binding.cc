// saltation._core._Hook: the C++ Hook on the official bindings' MjModel / MjData. Records leave
// as the JSON the CLI writes (event_json.h), so Python's Event and read_events share one schema
// and the numbers are bit for bit the C++ ones (17 significant digits).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "mujoco_objects.h"
#include "saltation/errors.h"
#include "saltation/event_json.h"
#include "saltation/event_log_header.h"
#include "saltation/hook.h"
#include "saltation/scene_markers.h"

namespace py = pybind11;

namespace saltation::python {
namespace {

py::array_t<double> ToNumpy(const Eigen::MatrixXd& a, double log_scale = 0) {
  py::array_t<double> out({a.rows(), a.cols()});
  auto view = out.mutable_unchecked<2>();
  const double scale = std::exp(log_scale);
  for (Eigen::Index i = 0; i < a.rows(); i++) {
    for (Eigen::Index j = 0; j < a.cols(); j++) view(i, j) = a(i, j) * scale;
  }
  return out;
}

HookOptions Options(const std::string& propagation, const py::object& restitution, double grazing,
                    bool xi_on_demand, bool covariance, double process_noise, double initial_covariance,
                    bool worker_thread) {
  HookOptions o;
  o.worker_thread = worker_thread;
  o.propagation = ParsePropagation(propagation);
  if (restitution.is_none()) {
    o.restitution = RestitutionSource::kModel;
  } else if (py::isinstance<py::str>(restitution)) {
    const std::string text = restitution.cast<std::string>();
    if (text != "auto") throw ConfigError("restitution must be None, a number in [0, 1] or 'auto', not '" + text + "'");
    o.restitution = RestitutionSource::kAuto;
  } else {
    o.restitution = RestitutionSource::kOverride;
    o.restitution_override = restitution.cast<double>();
  }
  o.grazing_threshold = grazing;
  o.xi_on_demand = xi_on_demand;
  o.covariance = covariance;
  if (!(process_noise >= 0)) throw ConfigError("process_noise must be non-negative");
  if (!(initial_covariance >= 0)) throw ConfigError("initial_covariance must be non-negative");
  o.process_noise = process_noise;
  o.initial_covariance = initial_covariance;
  return o;
}

class PyHook {
 public:
  PyHook(py::object model, const std::string& propagation, const py::object& restitution, double grazing,
         bool xi_on_demand, bool covariance, double process_noise, double initial_covariance, bool worker_thread)
      : model_ref_(model) {
    const mjModel* m = ModelOf(model);
    // the worker thread calls MuJoCo between this module's calls too: the throwing handler stays
    // for the hook's lifetime (its scope is released after the hook, and so the thread, is gone)
    if (worker_thread) worker_errors_.emplace();
    ScopedMujocoErrors errors;
    hook_ = std::make_unique<Hook>(
        m, Options(propagation, restitution, grazing, xi_on_demand, covariance, process_noise, initial_covariance,
                   worker_thread));
  }

  void Step(py::object data) {
    mjData* d = DataOf(data);
    CheckSameSizes(hook_->rigid_model().mj(), d, data);
    ScopedMujocoErrors errors;
    hook_->Step(d);
  }

  void Reset(py::object data) {
    mjData* d = DataOf(data);
    CheckSameSizes(hook_->rigid_model().mj(), d, data);
    ScopedMujocoErrors errors;
    hook_->Reset(d);
  }

  size_t NumEvents() const { return hook_->events().size(); }

  // record i as JSON (its Ξ completed first when it waits for it)
  std::string EventJson(size_t i) {
    if (i >= hook_->events().size()) throw py::index_error("no event " + std::to_string(i));
    ScopedMujocoErrors errors;
    return HookEventToJson(hook_->rigid_model(), hook_->CompletedEvent(i));
  }

  // spheres of the recent events' markers at `time`: (pos, radius, rgba) each
  py::list Markers(double time, double fade) const {
    std::vector<EventMarker> markers;
    for (const HookEvent& ev : hook_->events()) {
      EventMarker mk;
      const double norm = ev.has_xi && ev.rigid.complete ? ev.rigid.xi.Norm() : NAN;
      if (time - ev.time <= fade && MarkerOf(ev, norm, mk)) markers.push_back(mk);
    }
    py::list out;
    for (const MarkerGeom& g : EventMarkerGeoms(hook_->rigid_model().mj(), time, markers, -1, fade)) {
      out.append(py::make_tuple(py::make_tuple(g.pos.x(), g.pos.y(), g.pos.z()), g.radius,
                                py::make_tuple(g.rgba[0], g.rgba[1], g.rgba[2], g.rgba[3])));
    }
    return out;
  }

  const Hook& hook() const { return *hook_; }

 private:
  py::object model_ref_;  // keeps the MjModel alive as long as the hook refers to its name tables
  std::optional<ScopedMujocoErrors> worker_errors_;  // declared before hook_: outlives its thread
  std::unique_ptr<Hook> hook_;
};

}  // namespace

void BindHook(py::module_& m) {
  py::class_<PyHook>(m, "_Hook")
      .def(py::init<py::object, const std::string&, const py::object&, double, bool, bool, double, double, bool>(),
           py::arg("model"), py::arg("propagation"), py::arg("restitution"), py::arg("grazing"),
           py::arg("xi_on_demand"), py::arg("covariance"), py::arg("process_noise"), py::arg("initial_covariance"),
           py::arg("worker_thread"))
      .def("step", &PyHook::Step, py::arg("data"))
      .def("reset", &PyHook::Reset, py::arg("data"))
      .def("num_events", &PyHook::NumEvents)
      .def("event_json", &PyHook::EventJson, py::arg("index"))
      .def("header_json", [](const PyHook& h, const std::string& model) { return EventLogHeader(h.hook(), model, "python"); },
           py::arg("model"))
      .def("markers", &PyHook::Markers, py::arg("time"), py::arg("fade"))
      .def_property_readonly("untracked_pairs", [](const PyHook& h) { return h.hook().untracked_pairs(); })
      .def_property_readonly("worker_thread", [](const PyHook& h) { return h.hook().options().worker_thread; })
      .def_property_readonly("active_contacts", [](const PyHook& h) { return h.hook().mode().contacts.size(); })
      .def_property_readonly("phi_time", [](const PyHook& h) { return h.hook().phi_time(); })
      .def("phi_rigid", [](const PyHook& h, bool scaled) {
        return ToNumpy(h.hook().phi_rigid(), scaled ? h.hook().phi_rigid_log_scale() : 0);
      }, py::arg("scaled"))
      .def_property_readonly("phi_rigid_log_scale", [](const PyHook& h) { return h.hook().phi_rigid_log_scale(); })
      .def("phi_compliant", [](const PyHook& h, bool scaled) {
        return ToNumpy(h.hook().phi_compliant(), scaled ? h.hook().phi_compliant_log_scale() : 0);
      }, py::arg("scaled"))
      .def_property_readonly("phi_compliant_log_scale", [](const PyHook& h) { return h.hook().phi_compliant_log_scale(); })
      .def_property_readonly("covariance", [](const PyHook& h) { return ToNumpy(h.hook().covariance()); })
      .def_property_readonly("covariance_dreset", [](const PyHook& h) { return ToNumpy(h.hook().covariance_dreset()); });
}

}  // namespace saltation::python
