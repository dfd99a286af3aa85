#include "saltation/loading.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "saltation/errors.h"

namespace saltation {
namespace {

constexpr const char* kDefaultModel = "ball_drop.xml";

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

ModelPtr LoadModel(const std::string& path) {
  if (access(path.c_str(), R_OK) != 0) throw ConfigError("cannot read model file '" + path + "'");
  char error[1024] = "";
  mjModel* m = nullptr;
  if (EndsWith(path, ".mjb")) {
    m = mj_loadModel(path.c_str(), nullptr);
    if (!m) std::snprintf(error, sizeof(error), "not a MuJoCo binary model");
  } else {
    m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  }
  if (!m) throw ConfigError("could not load '" + path + "': " + error);
  return ModelPtr(m);
}

std::string DefaultModelPath() {
  const std::string local = std::string("models/") + kDefaultModel;
  if (access(local.c_str(), R_OK) == 0) return local;
  return std::string(SALTATION_MODELS_DIR) + "/" + kDefaultModel;
}

int FindKeyframe(const mjModel* m, const std::string& key) {
  if (key.empty() || m->nkey == 0) return -1;
  const int id = mj_name2id(m, mjOBJ_KEY, key.c_str());
  if (id >= 0) return id;
  char* end = nullptr;
  const long index = std::strtol(key.c_str(), &end, 10);
  if (*end == '\0' && index >= 0 && index < m->nkey) return static_cast<int>(index);
  return -1;
}

namespace {

// a data reset to qpos0, or to keyframe `key`
DataPtr StartData(const mjModel* m, const std::string& key) {
  DataPtr d(mj_makeData(m));
  if (!key.empty()) {
    const int id = FindKeyframe(m, key);
    if (id < 0) {
      throw ConfigError("model has no keyframe '" + key + "' (it has " + std::to_string(m->nkey) + " keyframes)");
    }
    mj_resetDataKeyframe(m, d.get(), id);
  }
  return d;
}

}  // namespace

State InitialState(const mjModel* m, const std::string& key) { return StateFromData(m, StartData(m, key).get()); }

Eigen::VectorXd InitialControl(const mjModel* m, const std::string& key) {
  const DataPtr d = StartData(m, key);
  return Eigen::Map<const Eigen::VectorXd>(d->ctrl, m->nu);
}

}  // namespace saltation
