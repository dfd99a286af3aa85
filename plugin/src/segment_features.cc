#include "segment_features.h"

#include <array>
#include <cmath>
#include <vector>

#include "own_points.h"

namespace saltation {
namespace {

// 1 − (e_1·e_2)² below this: the free lines are parallel (MuJoCo switches to its two-point rule)
constexpr double kParallel = 1e-9;

int Sigma(int feature, int side) {
  const int f = feature - kSegmentFeatureBase;
  return (side ? f / 3 : f % 3) - 1;
}

int Code(int sigma1, int sigma2) { return SegmentFeatureCode(sigma1, sigma2); }

bool Fixed(const Segments& s, const int sigma[2], int side) { return !s.has_length[side] || sigma[side] != 0; }

void SigmaOf(int feature, int sigma[2]) { sigma[0] = Sigma(feature, 0), sigma[1] = Sigma(feature, 1); }

// a capsule–capsule contact's own point (own_points.h): the pair's point whose anchor (geom2's
// frame) lies nearest id's; its feature, −1 when the pair has none
int OwnSegmentFeature(const mjModel* m, const mjData* d, const ContactId& id) {
  thread_local std::vector<SurfacePoint> points;
  points.clear();
  CapsuleCapsulePoints(m, d, id.geom1, id.geom2, 1e300, points);
  const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->geom_xmat + 9 * id.geom2);
  const Eigen::Map<const Eigen::Vector3d> origin(d->geom_xpos + 3 * id.geom2);
  int feature = -1;
  double best = INFINITY;
  for (const SurfacePoint& p : points) {
    const double dist = (R.transpose() * (p.pos - origin) - id.anchor).norm();
    if (dist < best) best = dist, feature = p.segment_feature;
  }
  return feature;
}

}  // namespace

int SegmentFeatureCode(int sigma1, int sigma2) { return kSegmentFeatureBase + (sigma1 + 1) + 3 * (sigma2 + 1); }

Segments SegmentsOf(const mjModel* m, const mjData* d, int g1, int g2) {
  Segments s;
  const int geoms[2] = {g1, g2};
  for (int i = 0; i < 2; i++) {
    const int g = geoms[i];
    const mjtNum* mat = d->geom_xmat + 9 * g;
    s.c[i] = Eigen::Map<const Eigen::Vector3d>(d->geom_xpos + 3 * g);
    s.e[i] = Eigen::Vector3d(mat[2], mat[5], mat[8]);
    s.has_length[i] = m->geom_type[g] == mjGEOM_CAPSULE;
    s.half[i] = s.has_length[i] ? m->geom_size[3 * g + 1] : 0;
    s.body[i] = m->geom_bodyid[g];
  }
  return s;
}


bool NearestParams(const Segments& s, const int sigma[2], double t[2]) {
  const bool fixed[2] = {Fixed(s, sigma, 0), Fixed(s, sigma, 1)};
  for (int i = 0; i < 2; i++) t[i] = fixed[i] ? sigma[i] * s.half[i] : 0;
  if (fixed[0] && fixed[1]) return true;
  const double c = s.e[0].dot(s.e[1]);
  if (!fixed[0] && !fixed[1]) {
    // e_1·w = 0 and e_2·w = 0 for w = c_1 + t_1 e_1 − c_2 − t_2 e_2
    const double den = 1 - c * c;
    if (den < kParallel) return false;
    const Eigen::Vector3d dif = s.c[0] - s.c[1];
    const double a0 = -s.e[0].dot(dif), a1 = -s.e[1].dot(dif);
    t[0] = (a0 - c * a1) / den;
    t[1] = (c * a0 - a1) / den;
    return true;
  }
  const int i = fixed[0] ? 1 : 0, j = 1 - i;  // i free, j fixed
  t[i] = s.e[i].dot(s.c[j] + t[j] * s.e[j] - s.c[i]);
  return true;
}

std::array<SegmentEnd, 4> SegmentEnds(const Segments& s) {
  std::array<SegmentEnd, 4> ends;
  for (int k = 0; k < 4; k++) {
    SegmentEnd& e = ends[k];
    const int i = k / 2, j = 1 - i;
    e.side = i, e.end = k % 2 ? 1 : -1;
    e.sigma[i] = e.end, e.sigma[j] = 0;
    NearestParams(s, e.sigma, e.t);  // one side fixed: never fails
    if (std::abs(e.t[j]) > s.half[j]) {
      e.sigma[j] = e.t[j] > 0 ? 1 : -1;
      NearestParams(s, e.sigma, e.t);
    }
    e.foot = s.c[j] + e.t[j] * s.e[j];
    e.separation = (e.foot - (s.c[i] + e.t[i] * s.e[i])).norm();
  }
  return ends;
}

void AppendSideGuards(const Segments& s, const int sigma[2], int i, FeatureGuardSet& set) {
  double t[2];
  if (!s.has_length[i] || !NearestParams(s, sigma, t)) return;
  const Eigen::Vector3d other = s.c[1 - i] + t[1 - i] * s.e[1 - i];
  const double q = s.e[i].dot(other - s.c[i]);
  auto add = [&](double sign, double offset, int to) {
    FeatureGuard& g = set.guard[set.count++];
    g.axis = i, g.sign = sign, g.offset = offset, g.to = to, g.length = s.half[i];
    g.value = sign * q + offset;
  };
  if (sigma[i]) {
    add(sigma[i], -s.half[i], 0);
  } else {
    add(-1, s.half[i], 1);
    add(1, s.half[i], -1);
  }
}

Eigen::VectorXd SideGuardGradient(const Model& model, const mjData* d, const Segments& s, const int sigma[2],
                                  const FeatureGuard& guard) {
  const mjModel* m = model.mj();
  const int nv = m->nv;
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(model.ndx());
  double t[2];
  if (!NearestParams(s, sigma, t)) return grad;
  const Eigen::Vector3d p[2] = {s.c[0] + t[0] * s.e[0], s.c[1] + t[1] * s.e[1]};
  // b_i = e_iᵀ(J_j(P_j) − J_i(P_j)): the rate of q_i with P_j carried by body j
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> jj(3, nv), ji(3, nv);
  Eigen::RowVectorXd b[2];
  for (int i = 0; i < 2; i++) {
    const int j = 1 - i;
    mj_jac(m, d, jj.data(), nullptr, p[j].data(), s.body[j]);
    mj_jac(m, d, ji.data(), nullptr, p[j].data(), s.body[i]);
    b[i] = s.e[i].transpose() * (jj - ji);
  }
  // ṡ of the free parameters: ṡ_i = b_i + c ṡ_j (the fixed ones do not move along their axis)
  const double c = s.e[0].dot(s.e[1]);
  const bool fixed[2] = {Fixed(s, sigma, 0), Fixed(s, sigma, 1)};
  Eigen::RowVectorXd sdot[2] = {Eigen::RowVectorXd::Zero(nv), Eigen::RowVectorXd::Zero(nv)};
  if (!fixed[0] && !fixed[1]) {
    const double den = 1 - c * c;
    sdot[0] = (b[0] + c * b[1]) / den;
    sdot[1] = (b[1] + c * b[0]) / den;
  } else {
    for (int i = 0; i < 2; i++) {
      if (!fixed[i]) sdot[i] = b[i];
    }
  }
  const int i = guard.axis, j = 1 - i;
  grad.head(nv) = guard.sign * (b[i] + c * sdot[j]).transpose();
  return grad;
}

bool IsSegmentPair(const mjModel* m, const ContactId& id) {
  if (id.geom1 < 0 || id.geom2 < 0 || id.geom1 >= m->ngeom || id.geom2 >= m->ngeom) return false;
  const int t1 = m->geom_type[id.geom1], t2 = m->geom_type[id.geom2];
  return (t1 == mjGEOM_SPHERE || t1 == mjGEOM_CAPSULE) && t2 == mjGEOM_CAPSULE;
}

int SegmentFeatureAt(const mjModel* m, const mjData* d, const ContactId& id) {
  if (!IsSegmentPair(m, id)) return -1;
  if (OwnCapsuleCapsulePoints(m, id.geom1, id.geom2)) return OwnSegmentFeature(m, d, id);
  const Segments s = SegmentsOf(m, d, id.geom1, id.geom2);
  const Eigen::Vector3d dif = s.c[0] - s.c[1];
  int sigma[2] = {0, 0};
  if (!s.has_length[0]) {
    // mjraw_SphereCapsule: the centre's projection on the axis, clipped
    const double x = s.e[1].dot(dif);
    sigma[1] = x > s.half[1] ? 1 : x < -s.half[1] ? -1 : 0;
  } else {
    // mjraw_CapsuleCapsule in its normalised coordinates x_i ∈ [−1, 1]
    const Eigen::Vector3d a1 = s.e[0] * s.half[0], a2 = s.e[1] * s.half[1];
    const double ma = a1.dot(a1), mb = -a1.dot(a2), mc = a2.dot(a2), u = -a1.dot(dif), v = a2.dot(dif);
    const double det = ma * mc - mb * mb;
    if (!(ma > 0 && mc > 0) || det < kParallel * ma * mc) return -1;
    double x1 = (mc * u - mb * v) / det, x2 = (ma * v - mb * u) / det;
    auto clip = [](double x) { return x > 1 ? 1.0 : x < -1 ? -1.0 : x; };
    if (x1 > 1) {
      x1 = 1, x2 = (v - mb) / mc;
    } else if (x1 < -1) {
      x1 = -1, x2 = (v + mb) / mc;
    }
    if (x2 > 1) {
      x2 = 1, x1 = clip((u - mb) / ma);
    } else if (x2 < -1) {
      x2 = -1, x1 = clip((u + mb) / ma);
    }
    sigma[0] = x1 >= 1 ? 1 : x1 <= -1 ? -1 : 0;
    sigma[1] = x2 >= 1 ? 1 : x2 <= -1 ? -1 : 0;
  }
  ContactId at = id;
  at.feature = Code(sigma[0], sigma[1]);
  Eigen::Vector3d p1, p2;
  if (!SegmentNearest(m, d, at, p1, p2)) return -1;
  const double scale = 1 + s.half[0] + s.half[1] + m->geom_size[3 * id.geom1] + m->geom_size[3 * id.geom2];
  if (!((p2 - p1).norm() > 1e-12 * scale)) return -1;  // the segments touch: no normal
  return at.feature;
}

const char* SegmentFeatureName(int feature) {
  const int clamped = (Sigma(feature, 0) != 0) + (Sigma(feature, 1) != 0);
  return clamped == 0 ? "cylinder" : clamped == 1 ? "cap" : "caps";
}

bool SegmentNearest(const mjModel* m, const mjData* d, const ContactId& id, Eigen::Vector3d& p1,
                    Eigen::Vector3d& p2) {
  const Segments s = SegmentsOf(m, d, id.geom1, id.geom2);
  int sigma[2];
  SigmaOf(id.feature, sigma);
  double t[2];
  if (!NearestParams(s, sigma, t)) return false;
  p1 = s.c[0] + t[0] * s.e[0];
  p2 = s.c[1] + t[1] * s.e[1];
  return true;
}

FeatureGuardSet SegmentFeatureGuards(const mjModel* m, const mjData* d, const ContactId& id) {
  FeatureGuardSet set;
  const Segments s = SegmentsOf(m, d, id.geom1, id.geom2);
  int sigma[2];
  SigmaOf(id.feature, sigma);
  const double c = s.e[0].dot(s.e[1]);
  const bool own = OwnCapsuleCapsulePoints(m, id.geom1, id.geom2);
  const double threshold = own ? CapsuleInteriorThreshold(m, id.geom1, id.geom2) : 0;
  // a capsule–capsule end against the other's interior hands over to the interior point only where
  // there is one (1 − c² ≥ threshold): its guard is the larger of its side's and threshold − (1 − c²),
  // so it fires where the later of the two crosses (the end leaves its own region with the lines
  // past the threshold: the listing rule of capsule_capsule_points.cc drops its point there). The
  // order of a region's guards (the free side's, then the end's) and their count do not depend on
  // the state: the simulator pairs a step's start and end guards by index
  const double below_threshold = threshold - (1 - c * c);
  const int end_side = sigma[0] != 0 && sigma[1] == 0 ? 0 : 1;
  for (const int i : {1 - end_side, end_side}) {
    const int first = set.count;
    AppendSideGuards(s, sigma, i, set);
    const bool end_into_interior = own && sigma[i] != 0 && sigma[1 - i] == 0;
    for (int n = first; n < set.count; n++) {
      FeatureGuard& g = set.guard[n];
      g.to = i == 0 ? Code(g.to, sigma[1]) : Code(sigma[0], g.to);
      if (end_into_interior && below_threshold > g.value) {
        g.axis = kLinesAngleGuard, g.sign = -1, g.offset = threshold;
        g.value = below_threshold;
        g.listing_changes = true;
      }
    }
  }
  if (own && sigma[0] == 0 && sigma[1] == 0) {
    // the interior point ends where the lines come within the threshold of parallel: the nearest
    // end takes over (their distances differ by at most ε there)
    const std::array<SegmentEnd, 4> ends = SegmentEnds(s);
    const SegmentEnd* nearest = &ends[0];
    for (const SegmentEnd& e : ends) {
      if (e.separation < nearest->separation) nearest = &e;
    }
    FeatureGuard& g = set.guard[set.count++];
    g.axis = kLinesAngleGuard, g.sign = 1, g.offset = -threshold;
    g.length = 1;
    g.value = -below_threshold;
    g.listing_changes = true;
    g.to = Code(nearest->sigma[0], nearest->sigma[1]);
  }
  return set;
}

Eigen::VectorXd SegmentGuardGradient(const Model& model, const mjData* d, const ContactId& id,
                                     const FeatureGuard& guard) {
  if (guard.axis == kLinesAngleGuard) {
    // d/dt (1 − c²) = −2c ċ, ċ = d(e_1·e_2)/dt = (ω_1 − ω_2)·(e_1 × e_2)
    const mjModel* m = model.mj();
    const Segments s = SegmentsOf(m, d, id.geom1, id.geom2);
    Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> r1(3, m->nv), r2(3, m->nv);
    mj_jac(m, d, nullptr, r1.data(), s.c[0].data(), s.body[0]);
    mj_jac(m, d, nullptr, r2.data(), s.c[1].data(), s.body[1]);
    Eigen::VectorXd grad = Eigen::VectorXd::Zero(model.ndx());
    const double c = s.e[0].dot(s.e[1]);
    grad.head(m->nv) = -2 * c * guard.sign * ((r1 - r2).transpose() * s.e[0].cross(s.e[1]));
    return grad;
  }
  int sigma[2];
  SigmaOf(id.feature, sigma);
  return SideGuardGradient(model, d, SegmentsOf(model.mj(), d, id.geom1, id.geom2), sigma, guard);
}

}  // namespace saltation
