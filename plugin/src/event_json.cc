#include "saltation/event_json.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "saltation/errors.h"

namespace saltation {
namespace {

void Number(std::ostringstream& out, double x) {
  if (!std::isfinite(x)) {
    out << "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", x);
  out << buf;
}

void Vector(std::ostringstream& out, const Eigen::VectorXd& v) {
  out << '[';
  for (Eigen::Index i = 0; i < v.size(); i++) {
    if (i) out << ',';
    Number(out, v(i));
  }
  out << ']';
}

void Matrix(std::ostringstream& out, const Eigen::MatrixXd& A) {
  out << '[';
  for (Eigen::Index i = 0; i < A.rows(); i++) {
    if (i) out << ',';
    Vector(out, A.row(i).transpose());
  }
  out << ']';
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
void MatrixField(std::ostringstream& out, const char* key, const Eigen::MatrixXd& A) { Key(out, key), Matrix(out, A); }
void StringField(std::ostringstream& out, const char* key, const std::string& v) { Key(out, key), String(out, v); }
void LabelsField(std::ostringstream& out, const Model& model, const char* key, const std::vector<ContactId>& ids) {
  Key(out, key), Labels(out, model, ids);
}

}  // namespace

// the fields of a rigid event, from "{" up to its last field (the caller closes the object)
// body1, body2: the bodies of the contact's geoms (name, or "#id" when unnamed)
static void BodyFields(std::ostringstream& out, const Model& model, const ContactId& contact) {
  const mjModel* m = model.mj();
  for (const auto& [key, geom] : {std::pair{"body1", contact.geom1}, std::pair{"body2", contact.geom2}}) {
    if (geom < 0 || geom >= m->ngeom) continue;
    const int body = m->geom_bodyid[geom];
    const char* name = mj_id2name(m, mjOBJ_BODY, body);
    StringField(out, key, name && name[0] ? std::string(name) : "#" + std::to_string(body));
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
    out << ",\"grazing\":true,\"xi\":null";
  }
  out << '}';
  return out.str();
}

std::string HookEventCsvHeader() {
  return "time,kind,geom1,geom2,restitution,transversality,transversality_rel,xi_norm,grazing,detail";
}

std::string HookEventToCsv(const Model& model, const HookEvent& ev) {
  if (ev.xi_pending) throw ConfigError("event's Ξ is not complete yet (Ξ on demand): call Hook::CompleteXi first");
  std::ostringstream out;
  auto num = [&](double x) { Number(out, x); };
  num(ev.time);
  out << ',' << EventKindName(ev.kind) << ',' << (ev.contact.geom1 >= 0 ? model.GeomName(ev.contact.geom1) : "") << ','
      << (ev.contact.geom2 >= 0 ? model.GeomName(ev.contact.geom2) : "") << ',';
  num(ev.restitution);
  out << ',';
  if (ev.has_xi) {
    num(ev.rigid.xi.transversality);
    out << ',';
    num(ev.rigid.xi.transversality_rel);
    out << ',';
    num(ev.rigid.xi.Norm());
  } else {
    out << ",,";
  }
  out << ',' << (ev.grazing ? "true" : "false") << ',';
  out << EventDetail(ev);
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
  MatrixField(out, "xi", xi.Dense());
  NumberField(out, "xi_norm", xi.Norm());
  MatrixField(out, "dreset", xi.reset.Dense());
  out << ",\"bracket\":[";
  Number(out, ev.bracket_lo);
  out << ',';
  Number(out, ev.bracket_hi);
  out << "],\"rank_after\":" << ev.rank_after;
  LabelsField(out, model, "mode_before", ev.mode_before.contacts);
  LabelsField(out, model, "mode_after", ev.mode_after.contacts);
  LabelsField(out, model, "released", ev.released);
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
  return out.str();
}

}  // namespace saltation
