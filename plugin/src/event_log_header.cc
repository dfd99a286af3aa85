#include "saltation/event_log_header.h"

#include <sstream>

#include "saltation/event_json.h"
#include "saltation/json_text.h"
#include "saltation/tangent.h"
#include "saltation/version.h"

namespace saltation {
namespace {

// the unit of every field a record may carry (event_json.h); "state" stands for the unit of the
// tangent coordinate (state_units) the row or entry belongs to
constexpr const char* kUnits[][2] = {
    {"time", "s"},
    {"bracket", "s"},
    {"point", "m"},
    {"restitution", "1"},
    {"transversality", "guard unit/s: m/s for touchdown, graze and feature (g is a distance), N/s for liftoff and slip (g is the normal force; m/s for a liftoff at a feature change)"},
    {"transversality_rel", "1"},
    {"f_minus", "state/s (each entry its coordinate's unit per second)"},
    {"f_plus", "state/s"},
    {"grad_g", "guard unit/state"},
    {"dt_dx", "s/state"},
    {"dg_dt", "guard unit/s (moving surfaces only)"},
    {"dreset_dt", "state/s (moving surfaces only)"},
    {"xi", "state_i/state_j (entry i, j: the unit of row i over that of column j)"},
    {"dreset", "state_i/state_j"},
    {"xi_norm", "1 (spectral norm of the matrix of mixed units as it stands)"},
    {"composite_first", "state_i/state_j"},
    {"composite_reverse", "state_i/state_j"},
    {"order_spread", "1"},
    {"min_gap", "m"},
    {"accumulation_time", "s"},
    {"ratio", "1"},
    {"normal_velocity_minus", "m/s"},
    {"normal_velocity_plus", "m/s"},
    {"kinetic_energy_minus", "J"},
    {"kinetic_energy_plus", "J"},
    {"rank_after", "count"},
    {"size", "count"},
    {"group", "id"},
    {"timestep", "s"},
};

std::string Labels(const std::vector<std::string>& labels) {
  std::string out = "[";
  for (size_t i = 0; i < labels.size(); i++) out += (i ? "," : "") + JsonString(labels[i]);
  return out + "]";
}

// the header's fields up to "options": (the caller writes the options object and closes)
std::string Common(const mjModel* m, const std::string& source, const std::string& model_path) {
  std::ostringstream out;
  const char* name = m->names ? m->names : "";  // the model's name is the first of m->names
  out << "{\"kind\":\"header\",\"schema\":" << JsonString(kEventLogSchema)
      << ",\"saltation_version\":" << JsonString(Version())
      << ",\"mujoco_version\":" << JsonString(MujocoVersionName(mj_version())) << ",\"source\":" << JsonString(source)
      << ",\"model\":" << JsonString(model_path) << ",\"model_name\":" << JsonString(name) << ",\"nq\":" << m->nq
      << ",\"nv\":" << m->nv << ",\"na\":" << m->na << ",\"nu\":" << m->nu << ",\"ndx\":" << TangentDim(m)
      << ",\"timestep\":" << ShortestJsonNumber(m->opt.timestep)
      << ",\"integrator\":" << JsonString(IntegratorName(m->opt.integrator))
      << ",\"state_labels\":" << Labels(StateLabels(m)) << ",\"state_units\":" << Labels(StateUnits(m))
      << ",\"units\":{";
  bool first = true;
  for (const auto& [field, unit] : kUnits) {
    out << (first ? "" : ",") << JsonString(field) << ':' << JsonString(unit);
    first = false;
  }
  out << '}';
  return out.str();
}

std::string Num(double x) { return ShortestJsonNumber(x); }

std::string ModelOptions(const Model& model) {
  const Options& o = model.options();
  return "\"detect_margin\":" + Num(model.detect_margin()) + ",\"contact_tol\":" + Num(o.contact_tol) +
         ",\"velocity_tol\":" + Num(o.velocity_tol) + ",\"rank_tol\":" + Num(o.rank_tol) +
         ",\"jdot_step\":" + Num(o.jdot_step) + ",\"min_bounce_speed\":" + Num(o.min_bounce_speed) +
         ",\"fd_step\":" + Num(o.fd_step);
}

const char* RestitutionName(RestitutionSource s) {
  switch (s) {
    case RestitutionSource::kModel:
      return "model";
    case RestitutionSource::kOverride:
      return "override";
    case RestitutionSource::kAuto:
      return "auto";
  }
  return "?";
}

}  // namespace

const char* IntegratorName(int integrator) {
  switch (integrator) {
    case mjINT_EULER:
      return "Euler";
    case mjINT_RK4:
      return "RK4";
    case mjINT_IMPLICIT:
      return "implicit";
    case mjINT_IMPLICITFAST:
      return "implicitfast";
  }
  return "unknown";
}

std::vector<std::string> StateUnits(const mjModel* m) {
  std::vector<std::string> position(m->nv);
  for (int i = 0; i < m->nv; i++) {
    const int j = m->dof_jntid[i];
    const int type = m->jnt_type[j];
    const bool linear = type == mjJNT_SLIDE || (type == mjJNT_FREE && i - m->jnt_dofadr[j] < 3);
    position[i] = linear ? "m" : "rad";
  }
  std::vector<std::string> units;
  for (int i = 0; i < m->nv; i++) units.push_back(position[i]);
  for (int i = 0; i < m->nv; i++) units.push_back(position[i] + "/s");
  for (int i = 0; i < m->na; i++) units.push_back("act");
  return units;
}

std::string EventLogHeader(const Hook& hook, const std::string& model, const std::string& source) {
  const HookOptions& o = hook.options();
  const Model& rigid = hook.rigid_model();
  std::string out = Common(rigid.mj(), source, model);
  out += ",\"options\":{\"propagation\":" + JsonString(PropagationName(o.propagation)) +
         ",\"covariance\":" + (o.covariance ? "true" : "false") + ",\"process_noise\":" + Num(o.process_noise) +
         ",\"initial_covariance\":" + Num(o.initial_covariance) + ",\"grazing_threshold\":" + Num(o.grazing_threshold) +
         ",\"near_miss_distance\":" + Num(o.near_miss_distance) + ",\"simultaneous_time\":" + Num(o.simultaneous_time) +
         ",\"restitution\":" + JsonString(RestitutionName(o.restitution));
  if (o.restitution == RestitutionSource::kOverride) out += ",\"restitution_override\":" + Num(o.restitution_override);
  out += ",\"release_gap\":" + Num(o.release_gap) + ",\"zeno_min_intervals\":" + std::to_string(o.zeno_min_intervals) +
         ",\"zeno_ratio_tolerance\":" + Num(o.zeno_ratio_tolerance) + ",\"chatter_steps\":" +
         std::to_string(o.chatter_steps) + ",\"fd_eps\":" + Num(o.fd_eps) + ",\"xi_on_demand\":" +
         (o.xi_on_demand ? "true" : "false") + "," + ModelOptions(rigid) + ",\"untracked_pairs\":[";
  const std::vector<std::string>& untracked = hook.untracked_pairs();
  for (size_t i = 0; i < untracked.size(); i++) out += (i ? "," : "") + JsonString(untracked[i]);
  return out + "]}}";
}

std::string EventLogHeader(const Model& model, const SimulatorOptions& o, double grazing_threshold,
                           const std::string& model_path) {
  std::string out = Common(model.mj(), "rigid", model_path);
  out += ",\"options\":{\"step\":" + Num(o.step) + ",\"root_tol\":" + Num(o.root_tol) +
         ",\"max_events\":" + std::to_string(o.max_events) + ",\"simultaneous_gap\":" + Num(o.simultaneous_gap) +
         ",\"force_tol\":" + Num(o.force_tol) + ",\"penetration_tol\":" + Num(o.penetration_tol) +
         ",\"rebound_samples\":" + std::to_string(o.rebound_samples) + ",\"grazing_threshold\":" +
         Num(grazing_threshold) + "," + ModelOptions(model) + "}}";
  return out;
}

}  // namespace saltation
