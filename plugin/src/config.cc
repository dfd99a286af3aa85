#include "saltation/config.h"

#include <cmath>
#include <sstream>
#include <string>

#include "saltation/errors.h"

namespace saltation {
namespace {

// the single value of numeric field i, validated as a restitution coefficient
double RestitutionValue(const mjModel* m, int i, const std::string& name) {
  const int size = m->numeric_size[i];
  if (size != 1) {
    std::ostringstream msg;
    msg << "custom numeric field '" << name << "' must hold exactly one value, it holds " << size;
    throw ConfigError(msg.str());
  }
  const double e = m->numeric_data[m->numeric_adr[i]];
  if (!std::isfinite(e) || e < 0 || e > 1) {
    std::ostringstream msg;
    msg << "custom numeric field '" << name << "' = " << e
        << " is not a restitution coefficient (a finite number in [0, 1])";
    throw ConfigError(msg.str());
  }
  return e;
}

}  // namespace

std::vector<double> ReadRestitution(const mjModel* m) {
  const std::string field = kRestitutionField;
  const std::string prefix = field + ":";
  double model_default = 0;
  std::vector<double> per_geom(m->ngeom, -1);

  for (int i = 0; i < m->nnumeric; i++) {
    const std::string name = m->names + m->name_numericadr[i];
    if (name == field) {
      model_default = RestitutionValue(m, i, name);
    } else if (name.compare(0, prefix.size(), prefix) == 0) {
      const std::string geom = name.substr(prefix.size());
      const int id = mj_name2id(m, mjOBJ_GEOM, geom.c_str());
      if (id < 0) {
        throw ConfigError("custom numeric field '" + name + "' names geom '" + geom +
                          "', which the model does not have");
      }
      per_geom[id] = RestitutionValue(m, i, name);
    } else if (name.compare(0, 10, "saltation_") == 0) {
      throw ConfigError("unknown custom numeric field '" + name +
                        "' (known: saltation_restitution, saltation_restitution:<geom>)");
    }
  }
  for (double& e : per_geom) {
    if (e < 0) e = model_default;
  }
  return per_geom;
}

}  // namespace saltation
