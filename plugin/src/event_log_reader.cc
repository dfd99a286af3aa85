#include "saltation/event_log_reader.h"

#include <cstdint>
#include <cstring>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "saltation/contact_features.h"
#include "saltation/event_kind.h"
#include "saltation/event_log_header.h"
#include "saltation/json_text.h"

namespace saltation {

constexpr long long kMaxMatrixEntries = 1LL << 24;
constexpr int kMaxStateDim = 8192;

namespace {

[[noreturn]] void Bad(const std::string& where, const std::string& what) { throw LogFormatError(where + ": " + what); }

double Entry(const JsonValue& v, const std::string& where) {
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v.is_number()) Bad(where, "an entry is not a number or null");
  return v.number();
}

// a non-negative integer that fits an int
long long Count(const JsonValue& v, const std::string& where, const char* what, long long max) {
  if (!v.is_number() || !(v.number() >= 0) || v.number() > static_cast<double>(max) ||
      v.number() != std::floor(v.number())) {
    Bad(where, std::string(what) + " must be an integer in [0, " + std::to_string(max) + "]");
  }
  return static_cast<long long>(v.number());
}

const JsonValue& Member(const JsonValue& object, const char* key, const std::string& where) {
  const JsonValue* v = object.Find(key);
  if (!v) Bad(where, std::string("no \"") + key + "\"");
  return *v;
}

std::string Text(const JsonValue& object, const char* key, const std::string& where) {
  const JsonValue& v = Member(object, key, where);
  if (!v.is_string()) Bad(where, std::string("\"") + key + "\" must be a string");
  return v.string();
}

std::vector<std::string> Strings(const JsonValue& object, const char* key, const std::string& where) {
  const JsonValue& v = Member(object, key, where);
  if (!v.is_array()) Bad(where, std::string("\"") + key + "\" must be an array of strings");
  std::vector<std::string> out;
  for (const JsonValue& s : v.items()) {
    if (!s.is_string()) Bad(where, std::string("\"") + key + "\" must be an array of strings");
    out.push_back(s.string());
  }
  return out;
}

LogHeader ReadHeader(JsonValue json, const std::string& where) {
  if (!json.is_object()) Bad(where, "the first line is not a JSON object (the header)");
  const JsonValue* kind = json.Find("kind");
  if (!kind || !kind->is_string() || kind->string() != "header") {
    Bad(where, "the first record is not the header (\"kind\": \"header\"): a log of an older saltation, or not a log");
  }
  LogHeader h;
  h.schema = Text(json, "schema", where);
  if (h.schema != kEventLogSchema) {
    Bad(where, "schema \"" + h.schema + "\" is not the one this reader knows, \"" + kEventLogSchema + "\"");
  }
  h.saltation_version = Text(json, "saltation_version", where);
  h.mujoco_version = Text(json, "mujoco_version", where);
  if (json.Find("source")) h.source = Text(json, "source", where);
  h.model = Text(json, "model", where);
  if (json.Find("model_name")) h.model_name = Text(json, "model_name", where);
  h.integrator = Text(json, "integrator", where);
  h.nq = static_cast<int>(Count(Member(json, "nq", where), where, "nq", kMaxStateDim));
  h.nv = static_cast<int>(Count(Member(json, "nv", where), where, "nv", kMaxStateDim));
  h.na = static_cast<int>(Count(Member(json, "na", where), where, "na", kMaxStateDim));
  if (json.Find("nu")) h.nu = static_cast<int>(Count(*json.Find("nu"), where, "nu", kMaxStateDim));
  h.ndx = 2 * h.nv + h.na;
  if (h.ndx > kMaxStateDim) Bad(where, "2nv + na = " + std::to_string(h.ndx) + " is more than " + std::to_string(kMaxStateDim));
  if (const JsonValue* ndx = json.Find("ndx"); ndx && Count(*ndx, where, "ndx", kMaxStateDim) != h.ndx) {
    Bad(where, "ndx is not 2nv + na = " + std::to_string(h.ndx));
  }
  const JsonValue& dt = Member(json, "timestep", where);
  if (!dt.is_number()) Bad(where, "\"timestep\" must be a number");
  h.timestep = dt.number();
  h.state_labels = Strings(json, "state_labels", where);
  if (static_cast<int>(h.state_labels.size()) != h.ndx) {
    Bad(where, "state_labels has " + std::to_string(h.state_labels.size()) + " names, not 2nv + na = " + std::to_string(h.ndx));
  }
  if (json.Find("state_units")) {
    h.state_units = Strings(json, "state_units", where);
    if (h.state_units.size() != h.state_labels.size()) Bad(where, "state_units and state_labels differ in length");
  }
  const JsonValue& units = Member(json, "units", where);
  if (!units.is_object()) Bad(where, "\"units\" must be an object");
  for (size_t i = 0; i < units.keys().size(); i++) {
    if (!units.items()[i].is_string()) Bad(where, "unit of \"" + units.keys()[i] + "\" must be a string");
    h.units[units.keys()[i]] = units.items()[i].string();
  }
  h.options = Member(json, "options", where);
  if (!h.options.is_object()) Bad(where, "\"options\" must be an object");
  h.json = std::move(json);
  return h;
}

// in this order: a matrix's base may be one read before it (xi's is dreset)
constexpr const char* kMatrixFields[] = {"dreset", "xi", "composite_first", "composite_reverse"};

}  // namespace

namespace {

// strict base64 (RFC 4648, padded): anything else is an error
std::string DecodeBase64(const std::string& text, const std::string& where, const char* what) {
  if (text.size() % 4 != 0) Bad(where, std::string(what) + " is not base64 (length not a multiple of 4)");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t v = 0;
    int pad = 0;
    for (size_t k = 0; k < 4; k++) {
      const char c = text[i + k];
      int d;
      if (c >= 'A' && c <= 'Z') {
        d = c - 'A';
      } else if (c >= 'a' && c <= 'z') {
        d = c - 'a' + 26;
      } else if (c >= '0' && c <= '9') {
        d = c - '0' + 52;
      } else if (c == '+') {
        d = 62;
      } else if (c == '/') {
        d = 63;
      } else if (c == '=' && i + 4 == text.size() && k >= 2) {
        d = 0;
        pad++;
      } else {
        Bad(where, std::string(what) + " is not base64");
      }
      if (pad && c != '=') Bad(where, std::string(what) + " is not base64 (text after '=')");
      v = (v << 6) | static_cast<std::uint32_t>(d);
    }
    for (int k = 0; k < 3 - pad; k++) out += static_cast<char>((v >> (16 - 8 * k)) & 0xFF);
  }
  return out;
}

double ReadDouble(const std::string& bytes, size_t at) {
  std::uint64_t u = 0;
  for (int b = 7; b >= 0; b--) u = (u << 8) | static_cast<unsigned char>(bytes[at + b]);
  double x;
  std::memcpy(&x, &u, sizeof(x));
  return x;
}

}  // namespace

Eigen::MatrixXd DecodeMatrix(const JsonValue& v, const std::string& where,
                             const std::map<std::string, Eigen::MatrixXd>* fields) {
  if (!v.is_object()) Bad(where, "a matrix must be an object {\"shape\", \"base\", \"mask\", \"data\"} (or null)");
  for (const std::string& key : v.keys()) {
    if (key != "shape" && key != "base" && key != "mask" && key != "data") Bad(where, "unknown matrix member \"" + key + "\"");
  }
  const JsonValue& shape = Member(v, "shape", where);
  if (!shape.is_array() || shape.items().size() != 2) Bad(where, "\"shape\" must be [rows, cols]");
  const long long rows = Count(shape.items()[0], where, "rows", kMaxMatrixEntries);
  const long long cols = Count(shape.items()[1], where, "cols", kMaxMatrixEntries);
  if (rows * cols > kMaxMatrixEntries) {
    Bad(where, "matrix of " + std::to_string(rows) + " × " + std::to_string(cols) + " is too large");
  }
  const std::string base = Text(v, "base", where);
  Eigen::MatrixXd A;
  if (base == "zero") {
    A = Eigen::MatrixXd::Zero(rows, cols);
  } else if (base == "identity") {
    A = Eigen::MatrixXd::Identity(rows, cols);
  } else {
    if (!fields || !fields->count(base)) {
      Bad(where, "base \"" + base + "\" is not zero, identity or a matrix of this record read before");
    }
    A = fields->at(base);
    if (A.rows() != rows || A.cols() != cols) Bad(where, "base \"" + base + "\" has another shape");
  }
  const std::string mask = DecodeBase64(Text(v, "mask", where), where, "\"mask\"");
  const std::string data = DecodeBase64(Text(v, "data", where), where, "\"data\"");
  if (static_cast<long long>(mask.size()) != (rows * cols + 7) / 8) {
    Bad(where, "\"mask\" has " + std::to_string(mask.size()) + " bytes, not ⌈rows × cols / 8⌉ = " + std::to_string((rows * cols + 7) / 8));
  }
  size_t at = 0;
  for (long long k = 0; k < static_cast<long long>(mask.size()) * 8; k++) {
    if (!(static_cast<unsigned char>(mask[k >> 3]) >> (k & 7) & 1)) continue;
    if (k >= rows * cols) Bad(where, "\"mask\" has bits set beyond rows × cols");
    if (at + 8 > data.size()) Bad(where, "\"data\" holds fewer entries than \"mask\" marks");
    A(k / cols, k % cols) = ReadDouble(data, at);
    at += 8;
  }
  if (at != data.size()) Bad(where, "\"data\" holds more entries than \"mask\" marks");
  return A;
}

double LogRecord::Number(const std::string& key) const {
  const JsonValue* v = json.Find(key);
  if (!v) throw LogFormatError("line " + std::to_string(line) + ": no \"" + key + "\"");
  if (v->is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v->is_number()) throw LogFormatError("line " + std::to_string(line) + ": \"" + key + "\" is not a number");
  return v->number();
}

Eigen::VectorXd LogRecord::Vector(const std::string& key) const {
  const JsonValue* v = json.Find(key);
  const std::string where = "line " + std::to_string(line) + ": \"" + key + "\"";
  if (!v) throw LogFormatError(where + " is missing");
  if (!v->is_array()) throw LogFormatError(where + " is not an array");
  Eigen::VectorXd out(v->items().size());
  for (size_t i = 0; i < v->items().size(); i++) out(i) = Entry(v->items()[i], where);
  return out;
}

const Eigen::MatrixXd& LogRecord::Matrix(const std::string& key) const {
  auto it = matrices.find(key);
  if (it == matrices.end()) throw LogFormatError("line " + std::to_string(line) + ": no matrix \"" + key + "\"");
  return it->second;
}

namespace {

// what a record field holds (docs/log-format.md, "Records")
enum class FieldType {
  kNumber,    // a number, or null (a non-finite value)
  kCount,     // a non-negative integer
  kFlag,      // true or false
  kText,      // a string
  kFeature,   // a feature name (FeatureName)
  kLabels,    // an array of strings (contact labels)
  kPoint,     // 3 numbers (or null)
  kBracket,   // 2 numbers (or null)
  kState,     // ndx numbers (or null)
  kMatrix,    // null or a compact ndx × ndx matrix (decoded into LogRecord::matrices)
  kImpact,    // {"candidates", "impulse_set", "rank", "kinetic_energy_minus", "kinetic_energy_plus"}
};

struct FieldRule {
  const char* key;
  FieldType type;
};

// every field a record may carry but time and kind (read first); any other key is refused
constexpr FieldRule kRecordFields[] = {
    {"geom1", FieldType::kText},          {"geom2", FieldType::kText},
    {"body1", FieldType::kText},          {"body2", FieldType::kText},
    {"point", FieldType::kPoint},         {"restitution", FieldType::kNumber},
    {"transversality", FieldType::kNumber}, {"transversality_rel", FieldType::kNumber},
    {"grazing", FieldType::kFlag},        {"proxy", FieldType::kFlag},
    {"input_jump", FieldType::kFlag},     {"f_minus", FieldType::kState},
    {"f_plus", FieldType::kState},        {"grad_g", FieldType::kState},
    {"dt_dx", FieldType::kState},         {"dg_dt", FieldType::kNumber},
    {"dreset_dt", FieldType::kState},     {"xi", FieldType::kMatrix},
    {"xi_norm", FieldType::kNumber},      {"dreset", FieldType::kMatrix},
    {"bracket", FieldType::kBracket},     {"rank_after", FieldType::kCount},
    {"mode_before", FieldType::kLabels},  {"mode_after", FieldType::kLabels},
    {"released", FieldType::kLabels},     {"feature", FieldType::kFeature},
    {"feature_before", FieldType::kFeature}, {"feature_after", FieldType::kFeature},
    {"impact", FieldType::kImpact},       {"group", FieldType::kCount},
    {"size", FieldType::kCount},          {"order_spread", FieldType::kNumber},
    {"composite_first", FieldType::kMatrix}, {"composite_reverse", FieldType::kMatrix},
    {"min_gap", FieldType::kNumber},      {"accumulation_time", FieldType::kNumber},
    {"ratio", FieldType::kNumber},        {"normal_velocity_minus", FieldType::kNumber},
    {"normal_velocity_plus", FieldType::kNumber}, {"error", FieldType::kText},
};

// the kind of the run's last record when it failed (tools/failure_record.h): only "error" beside
// time and kind
constexpr const char* kFailureKind = "failure";

const char* TypeName(const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::kNull: return "null";
    case JsonValue::Type::kBool: return v.boolean() ? "true" : "false";
    case JsonValue::Type::kNumber: return "a number";
    case JsonValue::Type::kString: return "a string";
    case JsonValue::Type::kArray: return "an array";
    case JsonValue::Type::kObject: return "an object";
  }
  return "?";
}

// every name FeatureName gives (the codes of all families lie below 4096)
bool KnownFeature(const std::string& name) {
  static const std::set<std::string> names = [] {
    std::set<std::string> out;
    for (int code = 0; code < 4096; code++) out.insert(FeatureName(code));
    out.erase("");
    return out;
  }();
  return names.count(name) != 0;
}

// "<where>: "<field>" <what>"
[[noreturn]] void BadField(const std::string& where, const std::string& field, const std::string& what) {
  throw LogFormatError(where + ": \"" + field + "\" " + what);
}

void CheckNumber(const JsonValue& v, const std::string& where, const std::string& field) {
  if (!v.is_number() && !v.is_null()) BadField(where, field, "must be a number (or null), not " + std::string(TypeName(v)));
}

void CheckCount(const JsonValue& v, const std::string& where, const std::string& field) {
  if (!v.is_number() || !(v.number() >= 0) || v.number() != std::floor(v.number())) {
    BadField(where, field, "must be a non-negative integer, not " +
                               (v.is_number() ? JsonNumber(v.number()) : std::string(TypeName(v))));
  }
  if (v.number() > static_cast<double>(1LL << 30)) {
    BadField(where, field, "must be at most 2^30, not " + JsonNumber(v.number()));
  }
}

void CheckLabels(const JsonValue& v, const std::string& where, const std::string& field) {
  if (!v.is_array()) BadField(where, field, "must be an array of strings, not " + std::string(TypeName(v)));
  for (const JsonValue& s : v.items()) {
    if (!s.is_string()) BadField(where, field, "must be an array of strings, not one holding " + std::string(TypeName(s)));
  }
}

void CheckNumbers(const JsonValue& v, size_t size, const std::string& where, const std::string& field) {
  if (!v.is_array() || v.items().size() != size) {
    BadField(where, field, "must be an array of " + std::to_string(size) + " numbers, not " +
                               (v.is_array() ? "one of " + std::to_string(v.items().size()) : std::string(TypeName(v))));
  }
  for (const JsonValue& x : v.items()) {
    if (!x.is_number() && !x.is_null()) {
      BadField(where, field, "must hold numbers (or null), not " + std::string(TypeName(x)));
    }
  }
}

void CheckImpact(const JsonValue& v, const std::string& where) {
  if (!v.is_object()) BadField(where, "impact", "must be an object, not " + std::string(TypeName(v)));
  for (size_t i = 0; i < v.keys().size(); i++) {
    const std::string& key = v.keys()[i];
    const std::string field = "impact." + key;
    if (key == "candidates" || key == "impulse_set") {
      CheckLabels(v.items()[i], where, field);
    } else if (key == "rank") {
      CheckCount(v.items()[i], where, field);
    } else if (key == "kinetic_energy_minus" || key == "kinetic_energy_plus") {
      CheckNumber(v.items()[i], where, field);
    } else {
      BadField(where, "impact", "has an unknown member \"" + key + "\"");
    }
  }
}

// one record (not the header): time, kind and every field type-checked, matrices decoded;
// `where` names the file, the line and the record's index
LogRecord ReadRecord(JsonValue json, int line, int ndx, const std::string& where) {
  if (!json.is_object()) Bad(where, "a record must be a JSON object");
  LogRecord r;
  r.line = line;
  r.kind = Text(json, "kind", where);
  EventKind kind;
  if (r.kind == "header") Bad(where, "a second header (logs of two runs in one file?)");
  if (r.kind != kFailureKind && !ParseEventKind(r.kind, &kind)) Bad(where, "unknown kind \"" + r.kind + "\"");
  const JsonValue& time = Member(json, "time", where);
  if (!time.is_number()) BadField(where, "time", "must be a number, not " + std::string(TypeName(time)));
  r.time = time.number();
  if (r.kind == kFailureKind && !json.Find("error")) Bad(where, "a failure record without its \"error\"");
  // matrices in kMatrixFields' order (a base names one decoded before), the rest in the record's
  for (const char* key : kMatrixFields) {
    const JsonValue* m = json.Find(key);
    if (!m || m->is_null()) continue;
    Eigen::MatrixXd A = DecodeMatrix(*m, where + ": \"" + key + "\"", &r.matrices);
    if (A.rows() != ndx || A.cols() != ndx) {
      Bad(where, std::string("\"") + key + "\" is " + std::to_string(A.rows()) + " × " + std::to_string(A.cols()) +
                     ", not ndx × ndx = " + std::to_string(ndx) + " × " + std::to_string(ndx));
    }
    r.matrices.emplace(key, std::move(A));
  }
  for (size_t i = 0; i < json.keys().size(); i++) {
    const std::string& key = json.keys()[i];
    if (key == "time" || key == "kind") continue;
    const JsonValue& v = json.items()[i];
    const FieldRule* rule = nullptr;
    for (const FieldRule& f : kRecordFields) {
      if (key == f.key) rule = &f;
    }
    if (!rule) Bad(where, "unknown field \"" + key + "\"");
    if ((key == "error") != (r.kind == kFailureKind)) {
      Bad(where, r.kind == kFailureKind ? "a failure record holds only time, kind and error, not \"" + key + "\""
                                        : std::string("\"error\" belongs to a failure record only"));
    }
    switch (rule->type) {
      case FieldType::kNumber: CheckNumber(v, where, key); break;
      case FieldType::kCount: CheckCount(v, where, key); break;
      case FieldType::kFlag:
        if (v.type() != JsonValue::Type::kBool) BadField(where, key, "must be true or false, not " + std::string(TypeName(v)));
        break;
      case FieldType::kText:
        if (!v.is_string()) BadField(where, key, "must be a string, not " + std::string(TypeName(v)));
        break;
      case FieldType::kFeature:
        if (!v.is_string()) BadField(where, key, "must be a feature name, not " + std::string(TypeName(v)));
        if (!KnownFeature(v.string())) BadField(where, key, "is \"" + v.string() + "\", not a feature name");
        break;
      case FieldType::kLabels: CheckLabels(v, where, key); break;
      case FieldType::kPoint: CheckNumbers(v, 3, where, key); break;
      case FieldType::kBracket: CheckNumbers(v, 2, where, key); break;
      case FieldType::kState: CheckNumbers(v, static_cast<size_t>(ndx), where, key); break;
      case FieldType::kMatrix: break;  // decoded above
      case FieldType::kImpact: CheckImpact(v, where); break;
    }
  }
  if (const JsonValue* g = json.Find("group")) r.group = static_cast<int>(g->number());
  r.json = std::move(json);
  return r;
}

}  // namespace

EventLog ParseEventLog(std::string_view text, const std::string& name) {
  EventLog log;
  bool have_header = false;
  int line_number = 0;
  size_t start = 0;
  double last_time = -std::numeric_limits<double>::infinity();
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    line_number++;
    std::string where = name + ":" + std::to_string(line_number);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    JsonValue json = ParseJson(line, where);
    if (!have_header) {
      log.header = ReadHeader(std::move(json), where);
      have_header = true;
      continue;
    }
    where += ": record " + std::to_string(log.records.size());
    if (!log.records.empty() && log.records.back().kind == kFailureKind) {
      Bad(where, "a record after the failure record (a failure ends the run)");
    }
    LogRecord r = ReadRecord(std::move(json), line_number, log.header.ndx, where);
    if (r.time < last_time) {
      Bad(where, "records out of time order (" + std::to_string(r.time) + " s after " + std::to_string(last_time) + " s)");
    }
    last_time = r.time;
    log.records.push_back(std::move(r));
  }
  if (!have_header) Bad(name, "empty log: no header");
  return log;
}

EventLog ReadEventLog(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LogFormatError(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw LogFormatError(path + ": cannot be read");
  return ParseEventLog(text.str(), path);
}

std::vector<std::string> EventRecordFields() {
  std::vector<std::string> names = {"time", "kind"};
  for (const FieldRule& f : kRecordFields) names.push_back(f.key);
  return names;
}

}  // namespace saltation
