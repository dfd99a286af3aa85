#include "saltation/restitution.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "saltation/errors.h"

namespace saltation {
namespace {

void CheckRestitution(double e) {
  if (!std::isfinite(e) || e < 0 || e > 1) {
    throw ConfigError("restitution " + std::to_string(e) + " is not in [0, 1]");
  }
}

}  // namespace

RestitutionTable::RestitutionTable(const Model& model) {
  geom_.resize(model.mj()->ngeom);
  for (int g = 0; g < model.mj()->ngeom; g++) geom_[g] = model.GeomRestitution(g);
}

double RestitutionTable::Pair(int geom1, int geom2) const {
  if (!pair_.empty()) {
    auto it = pair_.find({std::min(geom1, geom2), std::max(geom1, geom2)});
    if (it != pair_.end()) return it->second;
  }
  if (all_set_) return all_;
  if (geom1 < 0 || geom2 < 0 || geom1 >= static_cast<int>(geom_.size()) ||
      geom2 >= static_cast<int>(geom_.size())) {
    return 0;
  }
  return std::max(geom_[geom1], geom_[geom2]);
}

void RestitutionTable::SetAll(double e) {
  CheckRestitution(e);
  all_set_ = true;
  all_ = e;
  pair_.clear();
}

void RestitutionTable::SetPair(int geom1, int geom2, double e) {
  CheckRestitution(e);
  pair_[{std::min(geom1, geom2), std::max(geom1, geom2)}] = e;
}

}  // namespace saltation
