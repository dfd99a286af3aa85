#include "contact_jdot.h"

#include <algorithm>
#include <cmath>

#include "own_points.h"
#include "segment_features.h"

namespace saltation {
namespace {

using Vec3 = Eigen::Vector3d;
using Jac = Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor>;

Vec3 Column(const mjtNum* mat, int c) { return Vec3(mat[c], mat[3 + c], mat[6 + c]); }
Vec3 GeomPos(const mjData* d, int g) { return Eigen::Map<const Vec3>(d->geom_xpos + 3 * g); }

// One body's motion at the contact point c: translational and rotational Jacobians, mj_jacDot at
// c, ω and the velocity of its material point at c (all zero for the world)
struct BodyAt {
  Jac jt, jr, jdot;
  Vec3 omega = Vec3::Zero(), vc = Vec3::Zero();
  Vec3 At(const Vec3& x, const Vec3& c) const { return vc + omega.cross(x - c); }  // material velocity at x
};

// The rates of the point and its normal, ċ and ṅ, by the pair's formula (contact_jdot.h)
struct PointRates {
  Vec3 cdot, ndot;
};

// below
bool CylinderRimRates(const mjModel* m, const mjData* d, const ContactPoint& p, const BodyAt at[2], PointRates& out);

// A plane's (geom1) point with a sphere or a capsule end (geom2), or with a cylinder's rim corner
// while the corners are listed (own_points.h: a point fixed on the body, a sphere of radius 0; a
// cylinder's other points are its caps' lowest rim points, CylinderRimRates): the sphere centre s
// fixed on geom2's body whose plane point is p's; false when none is.
bool PlaneRates(const mjModel* m, const mjData* d, const ContactPoint& p, const BodyAt at[2], PointRates& out) {
  const int g1 = p.id.geom1, g2 = p.id.geom2;
  const Vec3 n = p.frame.row(0).transpose();
  const Vec3 p0 = GeomPos(d, g1), centre = GeomPos(d, g2);
  double r = m->geom_size[3 * g2];
  Vec3 candidates[4] = {centre, centre, centre, centre};
  int count = 1;
  if (m->geom_type[g2] == mjGEOM_CYLINDER) {
    // a cap's lowest rim point first: a corner coinciding with it is not listed (own_points.h)
    if (CylinderRimPointsListed(m, d, g1, g2) && CylinderRimRates(m, d, p, at, out)) return true;
    count = CylinderFaceCorners(m, d, g1, g2, candidates);
    if (count == 0) return CylinderRimRates(m, d, p, at, out);
    r = 0;
  } else if (m->geom_type[g2] == mjGEOM_CAPSULE) {
    const Vec3 half = m->geom_size[3 * g2 + 1] * Column(d->geom_xmat + 9 * g2, 2);
    candidates[0] = centre + half;
    candidates[1] = centre - half;
    count = 2;
  }
  double best = INFINITY, dist = 0;
  Vec3 s = centre;
  for (int k = 0; k < count; k++) {
    const double dk = n.dot(candidates[k] - p0) - r;
    const double miss = (candidates[k] - n * (r + dk / 2) - p.pos).norm();
    if (miss < best) {
      best = miss;
      s = candidates[k];
      dist = dk;
    }
  }
  if (m->geom_type[g2] == mjGEOM_CYLINDER) {
    // not a corner: a cap's lowest rim point (listed with the corners from the flat threshold on)
    if (!(best <= 1e-9 * m->geom_size[3 * g2])) return CylinderRimRates(m, d, p, at, out);
  } else if (!(best <= 1e-9 * std::max(r, 1e-6))) {
    return false;
  }
  // ṅ = ω₁ × n, ḋ = nᵀ(v₂(s) − v₁(s)), ċ = v₂(s) − ṅ(r + d/2) − n ḋ/2
  out.ndot = at[0].omega.cross(n);
  const double ddot = n.dot(at[1].At(s, p.pos) - at[0].At(s, p.pos));
  out.cdot = at[1].At(s, p.pos) - out.ndot * (r + dist / 2) - n * (ddot / 2);
  return true;
}

// A plane's (geom1) point with a cylinder (geom2) on its rim (own_points.h: beyond the flat
// threshold, each cap's lowest rim point p = k + r u, k = c ± h a the cap's centre, fixed on the
// body, u the unit radial part of w = −n, m = w − (w·a)a): the point slides round the rim as u
// turns, ṗ = v₂(k) + r u̇ with ṁ = ẇ − (ẇ·a + w·ȧ)a − (w·a)ȧ, ȧ = ω₂ × a, ẇ = −ṅ = −ω₁ × n,
// u̇ = (I − uuᵀ)ṁ/|m|; d = nᵀ(p − p₀), ḋ = nᵀ(ṗ − v₁(p)), c = p − n d/2, ċ = ṗ − ṅ d/2 − n ḋ/2.
// false when p is neither cap's point (to 1e-9 of the radius).
bool CylinderRimRates(const mjModel* m, const mjData* d, const ContactPoint& p, const BodyAt at[2], PointRates& out) {
  const int g1 = p.id.geom1, g2 = p.id.geom2;
  const Vec3 n = p.frame.row(0).transpose();
  const Vec3 p0 = GeomPos(d, g1), centre = GeomPos(d, g2), a = Column(d->geom_xmat + 9 * g2, 2);
  const double radius = m->geom_size[3 * g2], half = m->geom_size[3 * g2 + 1];
  const Vec3 w = -n;
  const Vec3 mv = -a.cross(n.cross(a));  // w − (w·a)a, as plane_cylinder_points.cc computes it
  const double len = mv.norm();
  if (!(len > 0)) return false;
  const Vec3 u = mv / len;
  for (const double side : {1.0, -1.0}) {
    const Vec3 k = centre + side * half * a;
    const Vec3 rim = k + radius * u;
    const double dist = n.dot(rim - p0);
    if (!((rim - 0.5 * dist * n - p.pos).norm() <= 1e-9 * radius)) continue;
    out.ndot = at[0].omega.cross(n);
    const Vec3 adot = at[1].omega.cross(a), wdot = -out.ndot;
    const Vec3 mdot = wdot - (wdot.dot(a) + w.dot(adot)) * a - w.dot(a) * adot;
    const Vec3 udot = (mdot - u * u.dot(mdot)) / len;
    const Vec3 rim_dot = at[1].At(k, p.pos) + radius * udot;
    const double ddot = n.dot(rim_dot - at[0].At(rim, p.pos));
    out.cdot = rim_dot - out.ndot * (0.5 * dist) - n * (0.5 * ddot);
    return true;
  }
  return false;
}

// Two rounded segments (sphere–sphere, sphere–capsule, capsule–capsule): MuJoCo's point is the
// sphere–sphere contact of the nearest points p₁, p₂ of the segments (of the held feature, or of the
// one at d), c = p₁ + n(r₁ + d/2), n = (p₂ − p₁)/|p₂ − p₁|, d = |p₂ − p₁| − r₁ − r₂. A point on a
// capsule's open segment, p_i = c_i + t_i e_i, slides along it as ṫ_i from the nearest-point
// conditions e_iᵀ(p₂ − p₁) = 0 of the free sides; an end or a sphere's centre is fixed on its body.
bool SegmentRates(const mjModel* m, const mjData* d, const ContactPoint& p, const BodyAt at[2], PointRates& out) {
  const int g1 = p.id.geom1, g2 = p.id.geom2;
  Vec3 pt[2] = {GeomPos(d, g1), GeomPos(d, g2)};
  bool free[2] = {false, false};
  const Vec3 e[2] = {Column(d->geom_xmat + 9 * g1, 2), Column(d->geom_xmat + 9 * g2, 2)};
  if (IsSegmentPair(m, p.id)) {
    ContactId id = p.id;
    if (id.feature < 0) id.feature = SegmentFeatureAt(m, d, id);
    if (id.feature < 0 || !SegmentNearest(m, d, id, pt[0], pt[1])) return false;
    const int f = id.feature - kSegmentFeatureBase;
    const int sigma[2] = {f % 3 - 1, f / 3 - 1};
    for (int i = 0; i < 2; i++) free[i] = m->geom_type[i ? g2 : g1] == mjGEOM_CAPSULE && sigma[i] == 0;
  }
  const double r1 = m->geom_size[3 * g1], r2 = m->geom_size[3 * g2];
  const Vec3 delta = pt[1] - pt[0];
  const double len = delta.norm();
  if (!(len > 0)) return false;
  const Vec3 n = delta / len;
  const double dist = len - r1 - r2;
  const Vec3 c = pt[0] + n * (r1 + dist / 2);
  const double tol = 1e-9 * std::max(r1 + r2, 1e-6);
  if (!((c - p.pos).norm() <= tol && (n - p.frame.row(0).transpose()).norm() <= 1e-9)) return false;
  // ṫ: d/dt e_iᵀΔ = (ω_i × e_i)ᵀΔ + e_iᵀ(w + ṫ₂e₂ − ṫ₁e₁) = 0 per free side, w = v₂(p₂) − v₁(p₁)
  const Vec3 w = at[1].At(pt[1], p.pos) - at[0].At(pt[0], p.pos);
  double a[2], tdot[2] = {0, 0};
  for (int i = 0; i < 2; i++) a[i] = -at[i].omega.cross(e[i]).dot(delta) - e[i].dot(w);
  const double ce = e[0].dot(e[1]);
  if (free[0] && free[1]) {  // [−1, ce; −ce, 1] ṫ = a
    const double det = ce * ce - 1;
    if (!(std::abs(det) > 1e-9)) return false;  // parallel (SegmentNearest refuses it too)
    tdot[0] = (a[0] - ce * a[1]) / det;
    tdot[1] = (ce * a[0] - a[1]) / det;
  } else if (free[0]) {
    tdot[0] = -a[0];
  } else if (free[1]) {
    tdot[1] = a[1];
  }
  const Vec3 pdot1 = at[0].At(pt[0], p.pos) + tdot[0] * e[0];
  const Vec3 pdot2 = at[1].At(pt[1], p.pos) + tdot[1] * e[1];
  const Vec3 ddelta = pdot2 - pdot1;
  const double ddot = n.dot(ddelta);
  out.ndot = (ddelta - n * ddot) / len;
  out.cdot = pdot1 + out.ndot * (r1 + dist / 2) + n * (ddot / 2);
  return true;
}

bool IsRound(int type) { return type == mjGEOM_SPHERE || type == mjGEOM_CAPSULE; }

}  // namespace

bool HasContactJdot(const mjModel* m, const ContactId& id) {
  if (id.geom1 < 0 || id.geom2 < 0) return false;
  const int t1 = m->geom_type[id.geom1], t2 = m->geom_type[id.geom2];
  if (IsSegmentPair(m, id)) return true;  // its feature held, or resolved at the configuration
  if (id.feature >= 0) return false;
  return (t1 == mjGEOM_PLANE && (IsRound(t2) || t2 == mjGEOM_CYLINDER)) || (t1 == mjGEOM_SPHERE && t2 == mjGEOM_SPHERE);
}

bool ContactJdot(const mjModel* m, const mjData* d, const ContactPoint& p, const double* qvel,
                 Eigen::Ref<RowMatrix> rows) {
  const int nv = m->nv;
  const Eigen::Map<const Eigen::VectorXd> v(qvel, nv);
  const int body[2] = {m->geom_bodyid[p.id.geom1], m->geom_bodyid[p.id.geom2]};
  const Vec3 n = p.frame.row(0).transpose();
  const Vec3 c = p.pos;

  // per body: Jacobians at c (translation, rotation), mj_jacDot at c, ω_b, v_b(c)
  BodyAt at[2];
  for (int b = 0; b < 2; b++) {
    at[b].jt.setZero(3, nv);
    at[b].jr.setZero(3, nv);
    at[b].jdot.setZero(3, nv);
    if (body[b] > 0) {
      mj_jac(m, d, at[b].jt.data(), at[b].jr.data(), c.data(), body[b]);
      mj_jacDot(m, d, at[b].jdot.data(), nullptr, c.data(), body[b]);
    }
    at[b].omega = at[b].jr * v;
    at[b].vc = at[b].jt * v;
  }
  PointRates rates;
  const bool formula = m->geom_type[p.id.geom1] == mjGEOM_PLANE ? PlaneRates(m, d, p, at, rates)
                                                                : SegmentRates(m, d, p, at, rates);
  if (!formula) return false;

  // J̇_rel = Σ ±(J̇_b(c) + Jr_b · × (ċ − v_b(c)))
  Jac jrel_dot = at[1].jdot - at[0].jdot;
  for (int b = 0; b < 2; b++) {
    if (body[b] <= 0) continue;
    const Vec3 slip = rates.cdot - at[b].vc;
    const double sign = b == 1 ? 1 : -1;
    for (int i = 0; i < nv; i++) {
      const Vec3 col = at[b].jr.col(i);
      if (col.squaredNorm() == 0) continue;
      jrel_dot.col(i) += sign * col.cross(slip);
    }
  }
  const int nrow = rows.rows();
  rows.row(0) = (rates.ndot.transpose() * (at[1].jt - at[0].jt) + n.transpose() * jrel_dot);
  for (int k = 1; k < nrow; k++) rows.row(k) = p.frame.row(k) * jrel_dot;
  return true;
}

}  // namespace saltation
