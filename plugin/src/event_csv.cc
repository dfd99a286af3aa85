#include "saltation/event_csv.h"

#include <charconv>
#include <cmath>

#include "saltation/errors.h"

namespace saltation {
namespace {

// a cell: the shortest text that reads back bit for bit, empty when not finite
std::string Cell(double x) {
  if (!std::isfinite(x)) return "";
  char buf[32];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

// RFC 4180 quoting for a text cell holding a comma, a quote or a line break
std::string Text(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

const char* Bool(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string HookEventCsvHeader() {
  return "time,kind,group,geom1,geom2,restitution,transversality,transversality_rel,xi_norm,grazing,proxy,"
         "input_jump,min_gap,size,order_spread,accumulation_time,ratio,normal_velocity_minus,normal_velocity_plus,dg_dt,"
         "dreset_dt_norm,error";
}

std::string HookEventToCsv(const Model& model, const HookEvent& ev) {
  if (ev.xi_pending) throw ConfigError("event's Ξ is not complete yet (Ξ on demand): call Hook::CompleteXi first");
  const EventKind k = ev.kind;
  std::string row = Cell(ev.time);
  row += ',';
  row += EventKindName(k);
  row += ',' + (ev.group >= 0 ? std::to_string(ev.group) : "");
  row += ',' + Text(ev.contact.geom1 >= 0 ? model.GeomName(ev.contact.geom1) : "");
  row += ',' + Text(ev.contact.geom2 >= 0 ? model.GeomName(ev.contact.geom2) : "");
  // as the JSON record: every event with Ξ has its pair's e (the value its impact used; a release's
  // at the event), a restitution record the measured one
  row += ',' + (ev.has_xi ? Cell(ev.rigid.restitution) : k == EventKind::kRestitution ? Cell(ev.restitution) : "");
  if (ev.has_xi) {
    row += ',' + Cell(ev.rigid.xi.transversality) + ',' + Cell(ev.rigid.xi.transversality_rel) + ',' +
           Cell(ev.rigid.xi.Norm());
  } else {
    row += ",,,";
  }
  row += std::string(",") + Bool(ev.grazing) + ',' + Bool(ev.proxy) + ',' + Bool(ev.input_jump);
  row += ',' + (k == EventKind::kNearMiss ? Cell(ev.min_gap) : "");
  row += ',' + (k == EventKind::kSimultaneous ? std::to_string(ev.group_size) : "");
  row += ',' + (k == EventKind::kSimultaneous ? Cell(ev.order_spread) : "");
  row += ',' + (k == EventKind::kZeno ? Cell(ev.accumulation_time) : "");
  row += ',' + (k == EventKind::kZeno ? Cell(ev.ratio) : "");
  row += ',' + (k == EventKind::kRestitution ? Cell(ev.normal_velocity_minus) : "");
  row += ',' + (k == EventKind::kRestitution ? Cell(ev.normal_velocity_plus) : "");
  const bool moving = ev.has_xi && model.options().mocap_motion;  // surfaces with a prescribed motion
  row += ',' + (moving ? Cell(ev.rigid.xi.dg_dt) : "");
  row += ',' + (moving ? Cell(ev.rigid.xi.dreset_dt.size() > 0 ? ev.rigid.xi.dreset_dt.norm() : 0.0) : "");
  row += ',';  // error: only a failure row (the CLI's last) has one
  return row;
}

}  // namespace saltation
