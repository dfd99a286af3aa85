#include "saltation/event_json.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "saltation/contact_features.h"
#include "saltation/errors.h"
#include "saltation/model.h"
#include "same_bits.h"

namespace saltation {
namespace {

// the shortest text that reads back as x bit for bit (std::to_chars), null when not finite
void Number(std::ostringstream& out, double x) {
  if (!std::isfinite(x)) {
    out << "null";
    return;
  }
  char buf[32];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), x);
  out.write(buf, r.ptr - buf);
}

void Vector(std::ostringstream& out, const Eigen::VectorXd& v) {
  out << '[';
  for (Eigen::Index i = 0; i < v.size(); i++) {
    if (i) out << ',';
    Number(out, v(i));
  }
  out << ']';
}

// the bits of x, little-endian, whatever the host's byte order
void AppendDouble(std::string& bytes, double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof(u));
  for (int b = 0; b < 8; b++) bytes += static_cast<char>((u >> (8 * b)) & 0xFF);
}

std::string Base64(const std::string& bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    std::uint32_t v = 0;
    for (size_t k = 0; k < 3; k++) v = (v << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0);
    for (size_t k = 0; k < 4; k++) out += k <= n ? kAlphabet[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

// the base's entry (i, j): 0, the identity's, or the reference matrix's
double BaseEntry(int base, const Eigen::MatrixXd* reference, Eigen::Index i, Eigen::Index j) {
  if (base == 2) return (*reference)(i, j);
  return base == 1 && i == j ? 1.0 : 0.0;
}

// {"shape":[r,c],"base":B,"mask":…,"data":…} (event_json.h) for the entries that differ from the
// base B: each(visit) calls visit(k, value) for each of them, k (row-major) increasing
template <class Each>
void Encoded(std::ostringstream& out, Eigen::Index rows, Eigen::Index cols, const char* base_name, Each each) {
  std::string mask(static_cast<size_t>((rows * cols + 7) / 8), '\0'), data;
  each([&](Eigen::Index k, double x) {
    mask[k >> 3] = static_cast<char>(mask[k >> 3] | (1 << (k & 7)));
    AppendDouble(data, x);
  });
  out << "{\"shape\":[" << rows << ',' << cols << "],\"base\":\"" << base_name << "\",\"mask\":\"" << Base64(mask)
      << "\",\"data\":\"" << Base64(data) << "\"}";
}

// of the bases zero, identity and the reference, the one that leaves the fewest entries to store
void Matrix(std::ostringstream& out, const Eigen::MatrixXd& A, const Eigen::MatrixXd* reference = nullptr,
            const char* reference_name = nullptr) {
  const Eigen::Index rows = A.rows(), cols = A.cols();
  const bool have_reference = reference && reference->rows() == rows && reference->cols() == cols;
  int best = 0;
  Eigen::Index best_count = -1;
  for (int base = 0; base < (have_reference ? 3 : 2); base++) {
    Eigen::Index count = 0;
    for (Eigen::Index i = 0; i < rows; i++) {
      for (Eigen::Index j = 0; j < cols; j++) count += SameBits(A(i, j), BaseEntry(base, reference, i, j)) ? 0 : 1;
    }
    if (best_count < 0 || count < best_count) {
      best = base;
      best_count = count;
    }
  }
  Encoded(out, rows, cols, best == 2 ? reference_name : best == 1 ? "identity" : "zero", [&](auto visit) {
    for (Eigen::Index i = 0; i < rows; i++) {
      for (Eigen::Index j = 0; j < cols; j++) {
        if (!SameBits(A(i, j), BaseEntry(best, reference, i, j))) visit(i * cols + j, A(i, j));
      }
    }
  });
}

// the same text as Matrix(out, A.Dense()), read from the block: the identity outside the support
// differs from the identity base nowhere and from the zero base on its diagonal only
void Matrix(std::ostringstream& out, const IdentityExceptBlock& A) {
  const Eigen::Index n = A.n, k = static_cast<Eigen::Index>(A.support.size());
  Eigen::Index count_zero = n - k, count_identity = 0;
  for (Eigen::Index a = 0; a < k; a++) {
    for (Eigen::Index b = 0; b < k; b++) {
      count_zero += SameBits(A.block(a, b), 0.0) ? 0 : 1;
      count_identity += SameBits(A.block(a, b), a == b ? 1.0 : 0.0) ? 0 : 1;
    }
  }
  if (count_identity < count_zero) {
    Encoded(out, n, n, "identity", [&](auto visit) {
      for (Eigen::Index a = 0; a < k; a++) {
        for (Eigen::Index b = 0; b < k; b++) {
          if (!SameBits(A.block(a, b), a == b ? 1.0 : 0.0)) visit(A.support[a] * n + A.support[b], A.block(a, b));
        }
      }
    });
    return;
  }
  Encoded(out, n, n, "zero", [&](auto visit) {
    Eigen::Index a = 0;  // the support's next index
    for (Eigen::Index i = 0; i < n; i++) {
      if (a < k && A.support[a] == i) {
        for (Eigen::Index b = 0; b < k; b++) {
          if (!SameBits(A.block(a, b), 0.0)) visit(i * n + A.support[b], A.block(a, b));
        }
        a++;
      } else {
        visit(i * n + i, 1.0);
      }
    }
  });
}

void String(std::ostringstream& out, const std::string& s) {
  out << '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out << buf;
    } else {
      out << c;
    }
  }
  out << '"';
}

void Labels(std::ostringstream& out, const Model& model, const std::vector<ContactId>& ids) {
  out << '[';
  for (size_t i = 0; i < ids.size(); i++) {
    if (i) out << ',';
    String(out, ContactLabel(model, ids[i]));
  }
  out << ']';
}


// ,"key":value — one field of an object already opened
void Key(std::ostringstream& out, const char* key) { out << ",\"" << key << "\":"; }
void NumberField(std::ostringstream& out, const char* key, double x) { Key(out, key), Number(out, x); }
void VectorField(std::ostringstream& out, const char* key, const Eigen::VectorXd& v) { Key(out, key), Vector(out, v); }
void MatrixField(std::ostringstream& out, const char* key, const Eigen::MatrixXd& A,
                 const Eigen::MatrixXd* reference = nullptr, const char* reference_name = nullptr) {
  Key(out, key), Matrix(out, A, reference, reference_name);
}
void MatrixField(std::ostringstream& out, const char* key, const IdentityExceptBlock& A) { Key(out, key), Matrix(out, A); }
void StringField(std::ostringstream& out, const char* key, const std::string& v) { Key(out, key), String(out, v); }
void LabelsField(std::ostringstream& out, const Model& model, const char* key, const std::vector<ContactId>& ids) {
  Key(out, key), Labels(out, model, ids);
}

}  // namespace

std::string CompactMatrixJson(const Eigen::MatrixXd& A, const Eigen::MatrixXd* reference, const char* reference_name) {
  std::ostringstream out;
  Matrix(out, A, reference, reference_name);
  return out.str();
}

std::string CompactMatrixJson(const IdentityExceptBlock& A) {
  std::ostringstream out;
  Matrix(out, A);
  return out.str();
}

std::string ShortestJsonNumber(double x) {
  std::ostringstream out;
  Number(out, x);
  return out.str();
}

// the fields of a rigid event, from "{" up to its last field (the caller closes the object)
// body1, body2: the bodies of the contact's geoms (name, or "#id" when unnamed)
static void BodyFields(std::ostringstream& out, const Model& model, const ContactId& contact) {
  const mjModel* m = model.mj();
  for (const auto& [key, geom] : {std::pair{"body1", contact.geom1}, std::pair{"body2", contact.geom2}}) {
    if (geom < 0 || geom >= m->ngeom) continue;
    StringField(out, key, NameOrId(m, mjOBJ_BODY, m->geom_bodyid[geom]));
  }
}

static void RigidFields(std::ostringstream& out, const Model& model, const RigidEvent& ev, EventKind kind,
                        bool grazing);

std::string HookEventToJson(const Model& model, const HookEvent& ev) {
  if (ev.xi_pending) throw ConfigError("event's Ξ is not complete yet (Ξ on demand): call Hook::CompleteXi first");
  std::ostringstream out;
  if (ev.has_xi) {
    // the rigid event's fields under the hook's kind and grazing verdict
    RigidFields(out, model, ev.rigid, ev.kind, ev.grazing);
    if (ev.group >= 0) out << ",\"group\":" << ev.group;
    if (ev.input_jump) out << ",\"input_jump\":true";
    out << ",\"proxy\":" << (ev.proxy ? "true" : "false") << '}';
    return out.str();
  }
  out << "{\"time\":";
  Number(out, ev.time);
  StringField(out, "kind", EventKindName(ev.kind));
  StringField(out, "geom1", ev.contact.geom1 >= 0 ? model.GeomName(ev.contact.geom1) : "");
  StringField(out, "geom2", ev.contact.geom2 >= 0 ? model.GeomName(ev.contact.geom2) : "");
  BodyFields(out, model, ev.contact);
  if (ev.point.allFinite()) {
    VectorField(out, "point", ev.point);
  }
  if (ev.kind == EventKind::kNearMiss) {
    NumberField(out, "min_gap", ev.min_gap);
  } else if (ev.kind == EventKind::kSimultaneous) {
    out << ",\"group\":" << ev.group << ",\"size\":" << ev.group_size;
    NumberField(out, "order_spread", ev.order_spread);
    MatrixField(out, "composite_first", ev.composite_first);
    MatrixField(out, "composite_reverse", ev.composite_reverse);
  } else if (ev.kind == EventKind::kZeno) {
    NumberField(out, "accumulation_time", ev.accumulation_time);
    NumberField(out, "ratio", ev.ratio);
  } else if (ev.kind == EventKind::kRestitution) {
    NumberField(out, "restitution", ev.restitution);
    NumberField(out, "normal_velocity_minus", ev.normal_velocity_minus);
    NumberField(out, "normal_velocity_plus", ev.normal_velocity_plus);
  } else if (ev.kind == EventKind::kGraze) {
    out << ",\"xi\":null";
  }
  // a flag is written where true (an absent one is false), as the CSV's column says it
  if (ev.kind != EventKind::kSimultaneous && ev.group >= 0) out << ",\"group\":" << ev.group;
  if (ev.grazing) out << ",\"grazing\":true";
  if (ev.proxy) out << ",\"proxy\":true";
  if (ev.input_jump) out << ",\"input_jump\":true";
  out << '}';
  return out.str();
}

static void RigidFields(std::ostringstream& out, const Model& model, const RigidEvent& ev, EventKind kind,
                        bool grazing) {
  const SaltationMatrix& xi = ev.xi;
  out << "{\"time\":";
  Number(out, ev.time);
  StringField(out, "kind", EventKindName(kind));
  StringField(out, "geom1", model.GeomName(ev.contact.geom1));
  StringField(out, "geom2", model.GeomName(ev.contact.geom2));
  BodyFields(out, model, ev.contact);
  VectorField(out, "point", ev.point);
  NumberField(out, "restitution", ev.restitution);
  NumberField(out, "transversality", xi.transversality);
  NumberField(out, "transversality_rel", xi.transversality_rel);
  out << ",\"grazing\":" << (grazing ? "true" : "false");
  VectorField(out, "f_minus", xi.f_minus);
  VectorField(out, "f_plus", xi.f_plus);
  VectorField(out, "grad_g", xi.grad_g);
  VectorField(out, "dt_dx", xi.dt_dx);
  if (model.options().mocap_motion) {
    // a prescribed surface motion makes the guard and the reset depend on time: ∂g/∂t and D_tΔ
    NumberField(out, "dg_dt", xi.dg_dt);
    VectorField(out, "dreset_dt", xi.dreset_dt.size() > 0 ? xi.dreset_dt : Eigen::VectorXd::Zero(model.ndx()));
  }
  const Eigen::MatrixXd dreset = xi.reset.Dense();
  MatrixField(out, "xi", xi.Dense(), &dreset, "dreset");  // Ξ − DΔ = u∇gᵀ: few columns differ
  NumberField(out, "xi_norm", xi.Norm());
  MatrixField(out, "dreset", dreset);
  out << ",\"bracket\":[";
  Number(out, ev.bracket_lo);
  out << ',';
  Number(out, ev.bracket_hi);
  out << "],\"rank_after\":" << ev.rank_after;
  LabelsField(out, model, "mode_before", ev.mode_before.contacts);
  LabelsField(out, model, "mode_after", ev.mode_after.contacts);
  LabelsField(out, model, "released", ev.released);
  if (ev.feature >= 0) StringField(out, "feature", FeatureName(ev.feature));  // the contact's feature there
  if (ev.feature_before >= 0) {  // a feature change (contact_features.h): the contact's feature before and after
    StringField(out, "feature_before", FeatureName(ev.feature_before));
    StringField(out, "feature_after", FeatureName(ev.feature_after));
  }
  if (ev.kind == EventKind::kTouchdown) {
    out << ",\"impact\":{\"candidates\":";
    Labels(out, model, ev.impact.candidates);
    LabelsField(out, model, "impulse_set", ev.impact.ImpulseSet());
    out << ",\"rank\":" << ev.impact.rank << ",\"kinetic_energy_minus\":";
    Number(out, ev.impact.kinetic_energy_minus);
    NumberField(out, "kinetic_energy_plus", ev.impact.kinetic_energy_plus);
    out << '}';
  }
}

std::string EventToJson(const Model& model, const RigidEvent& ev, double grazing_threshold) {
  if (!ev.complete) throw ConfigError("event's Ξ is not complete yet: call CompleteEvent (or Hook::CompleteXi) first");
  std::ostringstream out;
  RigidFields(out, model, ev, ev.kind, ev.xi.transversality_rel < grazing_threshold);
  out << '}';
  return out.str();
}

std::string EventDetail(const HookEvent& ev) {
  std::ostringstream out;
  auto field = [&](const char* key, double value) {
    if (out.tellp() > 0) out << ' ';
    out << key << '=';
    Number(out, value);
  };
  switch (ev.kind) {
    case EventKind::kNearMiss:
      field("min_gap", ev.min_gap);
      break;
    case EventKind::kSimultaneous:
      field("size", ev.group_size);
      field("order_spread", ev.order_spread);
      break;
    case EventKind::kZeno:
      field("accumulation_time", ev.accumulation_time);
      field("ratio", ev.ratio);
      break;
    case EventKind::kRestitution:
      out << "measured";
      field("e", ev.restitution);
      break;
    default:
      break;
  }
  if (ev.proxy) out << (out.tellp() > 0 ? " " : "") << "proxy";
  if (ev.input_jump) out << (out.tellp() > 0 ? " " : "") << "input jump";
  return out.str();
}

}  // namespace saltation
