#include "saltation/model.h"

#include <algorithm>
#include <cmath>

#include "saltation/config.h"
#include "saltation/errors.h"
#include "model_forces.h"
#include "private_arena.h"

namespace saltation {

Model::Model(const mjModel* m, const Options& options) : options_(options) {
  if (!m) throw ConfigError("no model given");
  restitution_ = ReadRestitution(m);
  m_.reset(mj_copyModel(nullptr, m));
  if (!m_) throw MujocoError("could not copy the model");

  detect_margin_ = options.detect_margin;
  if (!(detect_margin_ >= 0)) detect_margin_ = std::max(0.01, 0.05 * m->stat.extent);
  if (!std::isfinite(detect_margin_)) throw ConfigError("detect_margin must be finite");

  // enlarge the detection band, not the rigid surface. MuJoCo 4 detects a pair within
  // margin + gap and activates it within margin (includemargin = margin; contacts in the gap are
  // reported with exclude = 1), and sums the two geoms' margins and gaps (an explicit <pair>
  // gives its own; Contact Override replaces the margin only). So only the gaps grow: δ/2 per
  // geom makes every geom pair's band δ wider, a <pair>'s by δ. (MuJoCo 2.2.2 detected within
  // the larger margin and activated within margin − gap: margin and gap grew together there, and
  // o_margin with them.)
  for (int g = 0; g < m_->ngeom; g++) m_->geom_gap[g] += 0.5 * detect_margin_;
  for (int p = 0; p < m_->npair; p++) m_->pair_gap[p] += detect_margin_;
  CoverBandsInBodyMargins(m_.get());
  // contacts and constraint rows live in mjData's arena (MuJoCo 3+), sized for the user's model
  AddBandArena(m_.get());
  forces_split_by_tree_ = ModelForcesSplitByTree(m_.get(), options_);
  // last: the struct copy shares m_'s arrays as they are now (m_ never changes after this)
  island_passes_ = *m_;
  island_passes_.opt.enableflags |= mjENBL_SLEEP;
}

void CoverBandsInBodyMargins(mjModel* m) {
  for (int g = 0; g < m->ngeom; g++) {
    const int b = m->geom_bodyid[g];
    m->body_margin[b] = std::max(m->body_margin[b], m->geom_margin[g] + m->geom_gap[g]);
  }
}

void AddBandArena(mjModel* m) {
  constexpr mjtSize kBandContactsPerGeom = 16;
  m->narena += kBandContactsPerGeom * m->ngeom * static_cast<mjtSize>(sizeof(mjContact));
}

std::string NameOrId(const mjModel* m, mjtObj type, int id) {
  const char* name = mj_id2name(m, type, id);
  return name && name[0] ? std::string(name) : "#" + std::to_string(id);
}

std::string GeomLabel(const mjModel* m, int geom) {
  const char* name = mj_id2name(m, mjOBJ_GEOM, geom);
  if (name && name[0]) return name;
  const int body = m->geom_bodyid[geom];
  const char* body_name = mj_id2name(m, mjOBJ_BODY, body);
  if (!body_name || !body_name[0]) return "#" + std::to_string(geom);
  std::string label = std::string("body:") + body_name;
  if (m->body_geomnum[body] > 1) label += "#" + std::to_string(geom - m->body_geomadr[body]);
  return label;
}

std::string Model::GeomName(int geom) const { return GeomLabel(m_.get(), geom); }

Data::Data(const Model& model, DataArena arena) {
  if (arena == DataArena::kSized) {
    main_ = MakeSizedData(model.mj());
    aux_ = MakeSizedData(model.mj());
  } else {
    main_.reset(mj_makeData(model.mj()));
    aux_.reset(mj_makeData(model.mj()));
  }
  if (!main_ || !aux_) throw MujocoError("could not allocate mjData");
  // every body placed once (at qpos0): passes on an island's trees (island_passes.h) leave the
  // other trees where an earlier pass put them, and MuJoCo's collision still meets those against
  // the island's bodies (then dropped): never the unplaced zeros of a fresh mjData (zero frames)
  mj_kinematics(model.mj(), main_.get());
  mj_kinematics(model.mj(), aux_.get());
}

}  // namespace saltation
