// The stiffened copy of a model for one τ of the sweep, and the impedance MuJoCo gives a contact.
#include <algorithm>

#include "compare_internal.h"
#include "saltation/errors.h"
#include "saltation/model.h"

namespace saltation {

using compare_internal::Fmt;

ModelPtr StiffenedModel(const mjModel* m, const CompareSettings& s, double tau) {
  ModelPtr c(mj_copyModel(nullptr, m));
  auto set = [&](mjtNum* solref, const std::string& what) {
    if (solref[0] <= 0 && s.dampratio < 0) {
      throw ConfigError(what + " uses direct solref (stiffness " + Fmt("%g", -solref[0]) + ", damping " +
                        Fmt("%g", -solref[1]) + "): give --dampratio to sweep its time constant");
    }
    solref[0] = tau;
    if (s.dampratio >= 0) solref[1] = s.dampratio;
  };
  auto impedance = [&](mjtNum* solimp) {
    if (!s.solimp.empty()) std::copy(s.solimp.begin(), s.solimp.end(), solimp);
  };
  for (int g = 0; g < c->ngeom; g++) {
    set(c->geom_solref + mjNREF * g, "geom " + NameOrId(c.get(), mjOBJ_GEOM, g));
    impedance(c->geom_solimp + mjNIMP * g);
  }
  for (int p = 0; p < c->npair; p++) {
    set(c->pair_solref + mjNREF * p, "contact pair #" + std::to_string(p));
    impedance(c->pair_solimp + mjNIMP * p);
  }
  if (c->opt.enableflags & mjENBL_OVERRIDE) {
    set(c->opt.o_solref, "the override solref");
    impedance(c->opt.o_solimp);
  }
  c->opt.timestep = tau / s.steps_per_tau;
  if (s.integrator >= 0) c->opt.integrator = s.integrator;
  return c;
}

namespace compare_internal {

// MuJoCo 2.2.2 does not export its rule (mj_contactParam in engine_collision_driver.c is static),
// so it is restated here: an explicit <pair> of the two geoms takes the pair's solimp; otherwise
// the geom of higher geom_priority gives its own; at equal priority the two are mixed with
// weight mix = solmix1 / (solmix1 + solmix2) on geom1, where a solmix below mjMINVAL counts as
// zero (both zero: mix = 0.5; one zero: that geom gets weight 0). The override solimp
// (mjENBL_OVERRIDE) is not taken into account here.
void ContactSolimp(const mjModel* m, int geom1, int geom2, mjtNum solimp[mjNIMP]) {
  for (int p = 0; p < m->npair; p++) {
    const int a = m->pair_geom1[p], b = m->pair_geom2[p];
    if ((a == geom1 && b == geom2) || (a == geom2 && b == geom1)) {
      std::copy(m->pair_solimp + mjNIMP * p, m->pair_solimp + mjNIMP * (p + 1), solimp);
      return;
    }
  }
  const mjtNum* imp1 = m->geom_solimp + mjNIMP * geom1;
  const mjtNum* imp2 = m->geom_solimp + mjNIMP * geom2;
  if (m->geom_priority[geom1] != m->geom_priority[geom2]) {
    const mjtNum* own = m->geom_priority[geom1] > m->geom_priority[geom2] ? imp1 : imp2;
    std::copy(own, own + mjNIMP, solimp);
    return;
  }
  const bool zero1 = m->geom_solmix[geom1] < mjMINVAL, zero2 = m->geom_solmix[geom2] < mjMINVAL;
  double mix = 0.5;
  if (!zero1 && !zero2) {
    mix = m->geom_solmix[geom1] / (m->geom_solmix[geom1] + m->geom_solmix[geom2]);
  } else if (zero1 != zero2) {
    mix = zero1 ? 0.0 : 1.0;
  }
  for (int i = 0; i < mjNIMP; i++) solimp[i] = mix * imp1[i] + (1 - mix) * imp2[i];
}

}  // namespace compare_internal
}  // namespace saltation
