#include "lost_contact.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "saltation/contact_features.h"
#include "saltation/tangent.h"

namespace saltation {

std::string LostContactMessage(const Model& model, Data& data, const HybridState& s, double h,
                               const ContactLostError& error) {
  const mjModel* m = model.mj();
  char text[640], apart[32];
  if (std::isfinite(error.distance)) {
    std::snprintf(apart, sizeof(apart), "%.3g m", error.distance);
  } else {
    std::snprintf(apart, sizeof(apart), "over 1 m");
  }
  std::snprintf(text, sizeof(text),
                "the RK4 step from t = %.9g s (h = %g s) took active contact %s out of its detection band "
                "(inside the step its geoms are %s apart; the margin is %.3g m)",
                s.x.time, h, ContactLabel(model, error.contact).c_str(), apart, model.detect_margin());
  std::string message = text;
  ModeDynamics dyn;
  try {
    dyn = EvaluateMode(model, data, s.x, s.mode);
  } catch (const Error& e) {
    return message + "; the mode at the step's start cannot be evaluated either: " + e.what();
  }
  int fast = 0, quick = 0, strong = -1;
  dyn.qacc.cwiseAbs().maxCoeff(&fast);
  s.x.qvel.cwiseAbs().maxCoeff(&quick);
  if (dyn.normal_force.size() > 0) dyn.normal_force.cwiseAbs().maxCoeff(&strong);
  const double a = std::abs(dyn.qacc(fast)), v = std::abs(s.x.qvel(quick));
  const double by_acceleration = 0.5 * h * h * a, by_speed = h * v;
  // dof k's name: StateLabels' "q:<name>" without its prefix (the labels built once)
  const std::vector<std::string> labels = StateLabels(m);
  auto dof_name = [&](int k) { return labels[k].substr(2); };
  std::snprintf(text, sizeof(text),
                ". At the step's start the mode's largest acceleration is %.3g on dof %s (h²|a|/2 = %.3g over "
                "the step) and its largest speed %.3g on dof %s (h|v| = %.3g)",
                a, dof_name(fast).c_str(), by_acceleration, v, dof_name(quick).c_str(), by_speed);
  message += text;
  if (strong >= 0) {
    const ContactId& id = s.mode.contacts[strong];
    std::snprintf(text, sizeof(text), "; its largest normal force is contact %s's, λ = %.3g N%s%s", ContactLabel(model, id).c_str(),
                  dyn.normal_force(strong), id.feature >= 0 ? " on feature " : "", id.feature >= 0 ? FeatureName(id.feature) : "");
    message += text;
  }
  if (by_acceleration >= by_speed) {
    message += ". Cause: the accelerations (a near-singular contact geometry — two capsules' axes near parallel, "
               "a contact on the edge of its feature — makes the mode's forces huge)";
  } else {
    message += ". Cause: the speed over the step (the step is too long for the surfaces' curvature at this "
               "speed: lower the step)";
  }
  return message;
}

}  // namespace saltation
