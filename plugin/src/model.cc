#include "saltation/model.h"

#include <algorithm>
#include <cmath>

#include "saltation/config.h"
#include "saltation/errors.h"

namespace saltation {

Model::Model(const mjModel* m, const Options& options) : options_(options) {
  if (!m) throw ConfigError("no model given");
  restitution_ = ReadRestitution(m);
  m_.reset(mj_copyModel(nullptr, m));
  if (!m_) throw MujocoError("could not copy the model");

  detect_margin_ = options.detect_margin;
  if (!(detect_margin_ >= 0)) detect_margin_ = std::max(0.01, 0.05 * m->stat.extent);
  if (!std::isfinite(detect_margin_)) throw ConfigError("detect_margin must be finite");

  // enlarge margin and gap together: includemargin (the rigid surface) stays where it was
  for (int g = 0; g < m_->ngeom; g++) {
    m_->geom_margin[g] += detect_margin_;
    m_->geom_gap[g] += detect_margin_;
  }
  for (int p = 0; p < m_->npair; p++) {
    m_->pair_margin[p] += detect_margin_;
    m_->pair_gap[p] += detect_margin_;
  }
  // Contact Override replaces every margin by o_margin but keeps the gaps: enlarge it too
  if (m_->opt.enableflags & mjENBL_OVERRIDE) m_->opt.o_margin += detect_margin_;
  // near-contacts take contact slots: leave room for them
  m_->nconmax = std::max(m_->nconmax, 1000);
  m_->njmax = std::max(m_->njmax, 2000);
}

std::string Model::GeomName(int geom) const {
  const char* name = mj_id2name(m_.get(), mjOBJ_GEOM, geom);
  if (name && name[0]) return name;
  return "#" + std::to_string(geom);
}

Data::Data(const Model& model)
    : main_(mj_makeData(model.mj())), aux_(mj_makeData(model.mj())) {
  if (!main_ || !aux_) throw MujocoError("could not allocate mjData");
}

}  // namespace saltation
