#include "restitution_note.h"

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "saltation/saltation.h"

namespace saltation::cli {

std::string RestitutionNote(const mjModel* m, const std::string& key, const std::string& restitution, double duration) {
  HookOptions options;  // the rigid model's restitution from the model: only MuJoCo's is measured
  Hook hook(m, options);
  DataPtr d(mj_makeData(m));
  StateToData(m, InitialState(m, key), d.get());
  const Eigen::VectorXd ctrl = InitialControl(m, key);
  for (int i = 0; i < m->nu; i++) d->ctrl[i] = ctrl(i);
  mj_forward(m, d.get());
  std::optional<HookEvent> measured;
  hook.on_event = [&](const HookEvent& ev) {
    if (ev.kind == EventKind::kRestitution && !measured) measured = ev;
  };
  const double t_end = d->time + duration;
  try {
    for (int k = 0; k < 20000 && d->time < t_end && !measured; k++) hook.Step(d.get());
  } catch (const Error&) {
    // MuJoCo's run failed: nothing measured (record says why)
  }
  TakeMujocoWarnings();
  const char* general =
      "note: the rigid model takes restitution from the MJCF (<custom> saltation_restitution); MuJoCo's soft "
      "contact (solref, solimp) has its own, often near 0, so MuJoCo's simulation may bounce differently "
      "(saltation record shows it; record --restitution auto uses MuJoCo's)";
  if (!measured) return general;
  const Model& model = hook.rigid_model();
  double e_rigid = 0;
  std::string source;
  if (restitution == "model") {
    e_rigid = RestitutionTable(model).Pair(measured->contact.geom1, measured->contact.geom2);
    bool custom = false;  // any saltation_restitution[:geom] numeric
    for (int i = 0; i < m->nnumeric; i++) {
      const char* name = mj_id2name(m, mjOBJ_NUMERIC, i);
      custom = custom || (name && std::string(name).rfind(kRestitutionField, 0) == 0);
    }
    source = custom ? "from the MJCF" : std::string("by default (the MJCF sets no ") + kRestitutionField + ")";
  } else {
    e_rigid = std::strtod(restitution.c_str(), nullptr);
    source = "from --restitution";
  }
  char line[512];
  std::snprintf(line, sizeof(line),
                "note: MuJoCo's contact measured e=%.2f here (%s at %.3f s); the rigid model uses e=%.2g %s%s",
                measured->restitution, ContactLabel(model, measured->contact).c_str(), measured->time, e_rigid,
                source.c_str(),
                std::abs(measured->restitution - e_rigid) > 0.05
                    ? ": the two bounce differently (saltation record --restitution auto gives the rigid model MuJoCo's e)"
                    : "");
  return line;
}

}  // namespace saltation::cli
