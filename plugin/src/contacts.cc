#include "saltation/contacts.h"

#include "own_points.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "private_arena.h"

namespace saltation {

int ContactOctant(const mjModel* m, const ContactId& id) {
  // pairs that touch at one point only (a sphere or an ellipsoid against anything) need no more
  auto single = [&](int g) { return m->geom_type[g] == mjGEOM_SPHERE || m->geom_type[g] == mjGEOM_ELLIPSOID; };
  if (single(id.geom1) || single(id.geom2) || !id.anchor.allFinite()) return -1;
  // the octant of the anchor in geom2's frame: x > 0 adds 1, y > 0 adds 2, z > 0 adds 4 (a box's
  // corner, a capsule's end)
  const double tol = 1e-9 * std::max(1.0, id.anchor.norm());
  return (id.anchor.x() > tol ? 1 : 0) + (id.anchor.y() > tol ? 2 : 0) + (id.anchor.z() > tol ? 4 : 0);
}

std::string ContactLabel(const Model& model, const ContactId& id) {
  std::string label = model.GeomName(id.geom1) + "/" + model.GeomName(id.geom2);
  const mjModel* m = model.mj();
  if (id.geom1 < 0 || id.geom2 < 0 || id.geom1 >= m->ngeom || id.geom2 >= m->ngeom) return label;
  const int octant = ContactOctant(m, id);
  return octant < 0 ? label : label + "@" + std::to_string(octant);
}

bool SameContact(const ContactId& a, const ContactId& b) {
  return a.SamePair(b) && a.anchor == b.anchor && a.feature == b.feature && a.frictionless == b.frictionless;
}

bool SameContacts(const std::vector<ContactId>& a, const std::vector<ContactId>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), SameContact);
}

bool HasBodyTransmission(const mjModel* m) {
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_trntype[i] == mjTRN_BODY) return true;
  }
  return false;
}

void EvaluatePosition(const Model& model, mjData* d, const double* qpos, const mjModel* passes) {
  const bool constrained = model.mj()->neq || HasBodyTransmission(model.mj());
  const mjModel* m = passes && !constrained ? passes : model.mj();
  // a small private arena (DataArena::kSized) that was half used grows now, before the pass
  // rebuilds its contents
  GrowIfHalfUsed(d, m->narena);
  mju_copy(d->qpos, qpos, m->nq);
  // the parts of mj_fwdPosition this library reads: kinematics, M and its factor, contacts, and
  // the equality rows (not the projections onto the constraint space, O(nefc²))
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_tendon(m, d);
  mj_makeM(m, d);  // MuJoCo 4: mj_makeM assembles M (CRB included), as mj_fwdPosition does
  mj_factorM(m, d);
  const ArenaMark mark(d);
  mj_collision(m, d);
  if (constrained) mj_makeConstraint(m, d);
  if (mark.Filled(d) && d->narena < m->narena) {
    // a small private arena (DataArena::kSized) dropped contacts or rows: the full one, and again
    GrowArena(d, m->narena);
    mj_collision(m, d);
    if (constrained) mj_makeConstraint(m, d);
  }
}

namespace {

// One point from MuJoCo's description of it; the anchor is its position in geom2's frame
// (geom_xmat is row-major: columns are the local axes)
void AddPoint(const mjData* d, int g1, int g2, const mjtNum pos[3], const mjtNum frame[9],
              double gap, int condim, int mj_index, std::vector<ContactPoint>& points) {
  ContactPoint& p = points.emplace_back();
  p.id.geom1 = g1;
  p.id.geom2 = g2;
  p.pos = Eigen::Map<const Eigen::Vector3d>(pos);
  p.frame = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(frame);
  Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->geom_xmat + 9 * g2);
  Eigen::Map<const Eigen::Vector3d> x2(d->geom_xpos + 3 * g2);
  p.id.anchor = R.transpose() * (p.pos - x2);
  p.gap = gap;
  p.condim = condim;
  p.mj_index = mj_index;
}

// A pair whose points this library computes itself (own_points.h: a height field with a box or a
// sphere, a plane with a mesh) in place of MuJoCo's.
void AddOwnPoints(const Model& model, const mjData* d, int g1, int g2, std::vector<ContactPoint>& points) {
  const mjModel* m = model.mj();
  double margin, gap;
  int condim;
  PairContactParams(m, g1, g2, &margin, &gap, &condim);
  thread_local std::vector<SurfacePoint> surface;
  OwnPoints(m, d, g1, g2, margin + gap, surface);
  for (const SurfacePoint& s : surface) {
    mjtNum frame[9] = {0};
    mju_copy3(frame, s.normal.data());
    CompleteContactFrame(frame);
    AddPoint(d, g1, g2, s.pos.data(), frame, s.dist - margin, condim, -1, points);
    points.back().own_feature = s.box_box_feature;
    // a sphere's points (two in a valley) are told apart by where they touch the terrain: the
    // anchor in geom2's frame would turn with the rolling ball
    if (m->geom_type[g2] == mjGEOM_SPHERE) {
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R1(d->geom_xmat + 9 * g1);
      Eigen::Map<const Eigen::Vector3d> x1(d->geom_xpos + 3 * g1);
      points.back().id.anchor = R1.transpose() * (s.pos - x1);
    }
  }
}

}  // namespace

void ListContacts(const Model& model, const mjData* d, std::vector<ContactPoint>& points) {
  const mjModel* m = model.mj();
  points.clear();
  // pairs MuJoCo found within their band whose points are our own (own_points.h): once each
  thread_local std::vector<std::pair<int, int>> own;
  own.clear();
  for (int i = 0; i < d->ncon; i++) {
    const mjContact& c = d->contact[i];
    if (c.exclude >= 2) continue;  // fused bodies, equality-excluded, no degrees of freedom
    if (HasOwnPoints(m, c.geom1, c.geom2)) {
      const std::pair<int, int> pair{c.geom1, c.geom2};
      if (std::find(own.begin(), own.end(), pair) == own.end()) own.push_back(pair);
      continue;
    }
    AddPoint(d, c.geom1, c.geom2, c.pos, c.frame, c.dist - c.includemargin, c.dim, i, points);
  }
  for (const auto& [g1, g2] : own) AddOwnPoints(model, d, g1, g2, points);
}

void CompleteContactFrame(mjtNum frame[9]) {
  mju_normalize3(frame);
  if (mju_dot3(frame + 3, frame + 3) < 0.25) {
    mju_zero3(frame + 3);
    if (frame[1] < 0.5 && frame[1] > -0.5) {
      frame[4] = 1;
    } else {
      frame[5] = 1;
    }
  }
  mjtNum along[3];
  mju_scl3(along, frame, mju_dot3(frame, frame + 3));
  mju_subFrom3(frame + 3, along);
  mju_normalize3(frame + 3);
  mju_cross(frame + 6, frame, frame + 3);
}

void PairContactParams(const mjModel* m, int g1, int g2, double* margin, double* gap, int* condim) {
  int ipair = -1;
  for (int p = 0; p < m->npair && ipair < 0; p++) {
    if ((m->pair_geom1[p] == g1 && m->pair_geom2[p] == g2) || (m->pair_geom1[p] == g2 && m->pair_geom2[p] == g1)) ipair = p;
  }
  if (ipair >= 0) {
    *margin = m->pair_margin[ipair];
    *gap = m->pair_gap[ipair];
    *condim = m->pair_dim[ipair];
  } else {
    *margin = m->geom_margin[g1] + m->geom_margin[g2];
    *gap = m->geom_gap[g1] + m->geom_gap[g2];
    const int p1 = m->geom_priority[g1], p2 = m->geom_priority[g2];
    *condim = p1 > p2 ? m->geom_condim[g1] : p2 > p1 ? m->geom_condim[g2] : std::max(m->geom_condim[g1], m->geom_condim[g2]);
  }
  // Contact Override replaces the margin (mj_assignMargin), not the gap
  if (m->opt.enableflags & mjENBL_OVERRIDE) *margin = m->opt.o_margin;
}

void CollidePairs(const Model& model, const mjData* d, const std::vector<ContactId>& ids,
                  std::vector<ContactPoint>& points) {
  const mjModel* m = model.mj();
  points.clear();
  mjPreContact con[mjMAXCONPAIR];
  // each pair once, in the order of its first id (no list of the pairs: the hook's per-step path
  // allocates nothing)
  for (auto id = ids.begin(); id != ids.end(); ++id) {
    if (std::any_of(ids.begin(), id, [&](const ContactId& earlier) { return earlier.SamePair(*id); })) continue;
    const int g1 = id->geom1, g2 = id->geom2;
    const int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
    mjfCollision collide = mjCOLLISIONFUNC[t1][t2];
    if (!collide) continue;
    if (HasOwnPoints(m, g1, g2)) {
      AddOwnPoints(model, d, g1, g2, points);
      continue;
    }
    double margin, gap;
    int condim;
    PairContactParams(m, g1, g2, &margin, &gap, &condim);
    std::memset(con, 0, sizeof(con));
    // the narrow phase detects within margin + gap; the rigid surface is at dist = margin
    // (MuJoCo 4's collision functions fill mjPreContact: a normal and an optional tangent; they
    // may use d's stack, hence the non-const mjData)
    const int num = collide(m, const_cast<mjData*>(d), con, g1, g2, margin + gap);
    for (int i = 0; i < num; i++) {
      mjtNum frame[9] = {0};
      mju_copy3(frame, con[i].normal);
      mju_copy3(frame + 3, con[i].tangent);
      CompleteContactFrame(frame);
      AddPoint(d, g1, g2, con[i].pos, frame, con[i].dist - margin, condim, -1, points);
    }
  }
}

void EvaluatePositionForPairs(const Model& model, mjData* d, const double* qpos,
                              const std::vector<ContactId>& ids, std::vector<ContactPoint>& points,
                              bool inertia, const mjModel* passes) {
  const mjModel* m = model.mj();
  // equality rows, and adhesion actuators (mj_transmission reads the contacts and their rows),
  // need the full position stage
  if (m->neq || HasBodyTransmission(m)) {
    EvaluatePosition(model, d, qpos);
    ListContacts(model, d, points);
    return;
  }
  const mjModel* p = passes ? passes : m;
  mju_copy(d->qpos, qpos, m->nq);
  mj_kinematics(p, d);
  mj_comPos(p, d);
  if (inertia) {
    mj_tendon(p, d);
    mj_makeM(p, d);
    mj_factorM(p, d);
  }
  CollidePairs(model, d, ids, points);
}

void MatchContacts(const std::vector<ContactId>& ids, const std::vector<ContactPoint>& points,
                   std::vector<int>& match) {
  match.assign(ids.size(), -1);
  // first a contact holding a feature its pair's points name: the point of that feature (a box's
  // corner and an edge–edge point 1e-6 m apart with normals 90° apart: the anchor cannot tell them)
  for (size_t k = 0; k < ids.size(); k++) {
    if (ids[k].feature < 0) continue;
    for (size_t i = 0; i < points.size(); i++) {
      if (points[i].own_feature == ids[k].feature && points[i].id.SamePair(ids[k]) &&
          std::find(match.begin(), match.end(), static_cast<int>(i)) == match.end()) {
        match[k] = static_cast<int>(i);
        break;
      }
    }
  }
  // then the others by the nearest anchor
  for (size_t k = 0; k < ids.size(); k++) {
    if (match[k] >= 0) continue;
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < points.size(); i++) {
      if (!points[i].id.SamePair(ids[k])) continue;
      // each point serves one id: skip those taken
      if (std::find(match.begin(), match.end(), static_cast<int>(i)) != match.end()) continue;
      const double dist = (points[i].id.anchor - ids[k].anchor).squaredNorm();
      if (dist < best) {
        best = dist;
        match[k] = static_cast<int>(i);
      }
    }
  }
}

int MatchContact(const ContactId& id, const std::vector<ContactPoint>& points) {
  // MatchContacts' rule for one id: the point of its held feature first, then the nearest anchor
  if (id.feature >= 0) {
    for (size_t i = 0; i < points.size(); i++) {
      if (points[i].own_feature == id.feature && points[i].id.SamePair(id)) return static_cast<int>(i);
    }
  }
  int match = -1;
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < points.size(); i++) {
    if (!points[i].id.SamePair(id)) continue;
    const double dist = (points[i].id.anchor - id.anchor).squaredNorm();
    if (dist < best) {
      best = dist;
      match = static_cast<int>(i);
    }
  }
  return match;
}

namespace {

// The last dof of the chain MuJoCo's mj_jac walks for `body` (its first ancestor, itself included,
// with dofs), −1 when no dof moves it
int ChainEnd(const mjModel* m, int body) {
  while (body > 0 && m->body_dofnum[body] == 0) body = m->body_parentid[body];
  return body > 0 ? m->body_dofadr[body] + m->body_dofnum[body] - 1 : -1;
}

// Column `dof` of mj_jac's translational Jacobian of a point, offset = point − subtree_com of the
// body's root: cdof's linear part + its angular part × offset, MuJoCo's arithmetic (mju_cross, then
// the sum), so equal to mj_jac's column bit for bit (Contacts.ChainRowsEqualMujocoJacobian)
Eigen::Vector3d ChainColumn(const mjData* d, const mjtNum offset[3], int dof) {
  const mjtNum* cdof = d->cdof + 6 * dof;
  mjtNum cross[3];
  mju_cross(cross, cdof, offset);
  return Eigen::Vector3d(cdof[3] + cross[0], cdof[4] + cross[1], cdof[5] + cross[2]);
}

}  // namespace

void ContactRows(const Model& model, const mjData* d, const ContactPoint& point, Eigen::Ref<RowMatrix> rows,
                 Workspace& work) {
  const mjModel* m = model.mj();
  const int nrow = ContactRowCount(point);
  const int b1 = m->geom_bodyid[point.id.geom1], b2 = m->geom_bodyid[point.id.geom2];
  mjtNum offset1[3], offset2[3];
  mju_sub3(offset1, point.pos.data(), d->subtree_com + 3 * m->body_rootid[b1]);
  mju_sub3(offset2, point.pos.data(), d->subtree_com + 3 * m->body_rootid[b2]);
  // the rows are 0 off the dofs the two bodies' chains hold (mj_jac's other columns are 0): the
  // columns of the chains alone, walked together from their last dofs down (dof_parentid decreases;
  // chains of one tree meet and share the rest), each J_point(b2) − J_point(b1) as mj_jac's two
  // 3 × nv Jacobians would give it (an absent column is 0), without forming them: among many
  // bodies a contact costs its chains, not nv
  rows.setZero();
  const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
  int i1 = ChainEnd(m, b1), i2 = ChainEnd(m, b2);
  while (i1 >= 0 || i2 >= 0) {
    const int i = std::max(i1, i2);
    const Eigen::Vector3d rel = (i == i2 ? ChainColumn(d, offset2, i) : zero) - (i == i1 ? ChainColumn(d, offset1, i) : zero);
    for (int r = 0; r < nrow; r++) rows(r, i) = point.frame.row(r).dot(rel);
    if (i == i1) i1 = m->dof_parentid[i1];
    if (i == i2) i2 = m->dof_parentid[i2];
  }
}

void EqualityRows(const Model& model, const mjData* d, RowMatrix& rows) {
  const mjModel* m = model.mj();
  const int nv = m->nv;
  int count = 0;
  if (m->neq) {
    for (int r = 0; r < d->nefc; r++) count += d->efc_type[r] == mjCNSTR_EQUALITY;
  }
  rows.setZero(count, nv);
  if (count == 0) return;
  const bool sparse = mj_isSparse(m);
  int k = 0;
  for (int r = 0; r < d->nefc; r++) {
    if (d->efc_type[r] != mjCNSTR_EQUALITY) continue;
    if (sparse) {
      const int adr = d->efc_J_rowadr[r];
      for (int j = 0; j < d->efc_J_rownnz[r]; j++) rows(k, d->efc_J_colind[adr + j]) = d->efc_J[adr + j];
    } else {
      rows.row(k) = Eigen::Map<const Eigen::RowVectorXd>(d->efc_J + r * nv, nv);
    }
    k++;
  }
}

}  // namespace saltation
