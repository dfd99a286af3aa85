// libFuzzer target: the <custom> restitution fields (config.h, ReadRestitution).
//
// Input: text, one numeric field per line, "NAME VALUE VALUE …" (values read by strtod, so "nan",
// "inf", "1e400" and hex floats occur; a missing value list gives a field of size 1 holding 0).
// The fields are added through mjSpec to a model with two geoms, "floor" and "ball", and the model
// compiled; inputs MuJoCo itself rejects (duplicate names, …) end there. The oracle: ReadRestitution
// returns ngeom values, each finite in [0, 1], or throws ConfigError with a message — anything
// else (another exception, a crash, a sanitizer report) is a finding.
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "saltation/config.h"
#include "saltation/errors.h"

namespace {

struct Field {
  std::string name;
  std::vector<double> values;
};

std::vector<Field> ParseFields(const std::string& text) {
  std::vector<Field> fields;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line) && fields.size() < 32) {
    std::istringstream words(line);
    Field field;
    if (!(words >> field.name)) continue;
    std::string word;
    while (words >> word && field.values.size() < 8) {
      field.values.push_back(std::strtod(word.c_str(), nullptr));
    }
    fields.push_back(field);
  }
  return fields;
}

mjModel* CompileWith(const std::vector<Field>& fields) {
  mjSpec* spec = mj_makeSpec();
  mjsBody* world = mjs_findBody(spec, "world");
  mjsGeom* floor = mjs_addGeom(world, nullptr);
  floor->type = mjGEOM_PLANE;
  floor->size[0] = floor->size[1] = 1;
  floor->size[2] = 0.1;
  mjs_setName(floor->element, "floor");
  mjsBody* body = mjs_addBody(world, nullptr);
  body->pos[2] = 1;
  mjs_addFreeJoint(body);
  mjsGeom* ball = mjs_addGeom(body, nullptr);
  ball->size[0] = 0.1;
  mjs_setName(ball->element, "ball");
  for (const Field& field : fields) {
    mjsNumeric* numeric = mjs_addNumeric(spec);
    if (mjs_setName(numeric->element, field.name.c_str()) != 0) {
      mj_deleteSpec(spec);
      return nullptr;
    }
    std::vector<double> values = field.values.empty() ? std::vector<double>{0.0} : field.values;
    mjs_setDouble(numeric->data, values.data(), static_cast<int>(values.size()));
    numeric->size = static_cast<int>(values.size());
  }
  mjModel* m = mj_compile(spec, nullptr);
  mj_deleteSpec(spec);
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  saltation::InstallMujocoHandlers();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<Field> fields = ParseFields(std::string(reinterpret_cast<const char*>(data), size));
  mjModel* m = nullptr;
  try {
    m = CompileWith(fields);
  } catch (const saltation::MujocoError&) {
    return 0;  // MuJoCo refused the spec: not ours
  }
  if (!m) return 0;
  try {
    const std::vector<double> restitution = saltation::ReadRestitution(m);
    if (static_cast<int>(restitution.size()) != m->ngeom) __builtin_trap();
    for (double e : restitution) {
      if (!std::isfinite(e) || e < 0 || e > 1) __builtin_trap();
    }
  } catch (const saltation::ConfigError& error) {
    if (std::string(error.what()).empty()) __builtin_trap();
  }
  mj_deleteModel(m);
  (void)saltation::TakeMujocoWarnings();
  return 0;
}
