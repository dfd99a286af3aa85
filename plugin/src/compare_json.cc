// CompareJson: the `compare --out` document.
#include "saltation/compare.h"
#include "saltation/json_text.h"

namespace saltation {
namespace {

std::string Bool(bool b) { return b ? "true" : "false"; }

template <typename Item, typename Write>
std::string Array(const std::vector<Item>& items, Write write) {
  std::string out = "[";
  for (size_t k = 0; k < items.size(); k++) out += (k ? "," : "") + write(items[k]);
  return out + "]";
}

std::string RowJson(const CompareRow& r, const std::vector<std::string>& names) {
  std::string json = "{\"tau\":" + JsonNumber(r.tau) + ",\"timestep\":" + JsonNumber(r.timestep);
  json += ",\"dampratio\":" + JsonNumber(r.dampratio);
  json += ",\"effective_restitution\":" + JsonNumber(r.restitution);
  json += ",\"restitution_measured\":" + Bool(r.restitution_measured);
  json += ",\"touchdown\":" + JsonNumber(r.t_touch) + ",\"contact\":" + JsonString(r.contact);
  json += ",\"next_touchdown\":" + (r.t_next > 0 ? JsonNumber(r.t_next) : "null");
  json += ",\"t0\":" + JsonNumber(r.t0) + ",\"t1\":" + JsonNumber(r.t1);
  json += ",\"relative_difference\":" + JsonNumber(r.relative);
  json += ",\"absolute_difference\":" + JsonNumber(r.absolute);
  json += ",\"max_discrepancy\":" + JsonNumber(r.max_discrepancy);
  json += ",\"at\":[" + std::to_string(r.at_i) + "," + std::to_string(r.at_j) + "]";
  json += ",\"at_names\":[" + JsonString(names[r.at_i]) + "," + JsonString(names[r.at_j]) + "]";
  json += ",\"onset_term\":" + JsonNumber(r.onset);
  json += ",\"relative_difference_off_onset\":" + JsonNumber(r.relative_off_onset);
  json += ",\"events\":" + Array(r.events, JsonString);
  json += ",\"flags\":" + Array(r.flags, JsonString);
  json += ",\"rigid\":" + MatrixJson(r.rigid) + ",\"compliant\":" + MatrixJson(r.compliant) + "}";
  return json;
}

}  // namespace

std::string CompareJson(const std::string& model_path, const CompareSettings& s, const CompareReport& report,
                        const std::vector<std::string>& names) {
  std::string json = "{\"model\":" + JsonString(model_path) + ",\"window\":";
  json += s.window_given ? "[" + JsonNumber(s.window_t0) + "," + JsonNumber(s.window_t1) + "]" : "\"auto\"";
  json += ",\"layout\":\"(dq, dv, act)\",\"steps_per_tau\":" + std::to_string(s.steps_per_tau);
  if (!s.solimp.empty()) json += ",\"solimp\":" + Array(s.solimp, JsonNumber);
  json += ",\"monotone\":" + Bool(report.monotone);
  json += ",\"converging\":" + Bool(report.converging);
  json += ",\"rows\":" + Array(report.rows, [&names](const CompareRow& r) { return RowJson(r, names); });
  return json + "}\n";
}

}  // namespace saltation
