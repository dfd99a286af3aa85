// Reading a JSON Lines event log back (docs/log-format.md): the header, every record, and the
// compact matrices decoded to the very doubles that were written.
//
//   saltation::EventLog log = saltation::ReadEventLog("events.jsonl");
//   log.header.state_labels[i];                       // row i of every Ξ: "q:hip.x", "v:knee", …
//   for (const saltation::LogRecord& r : log.records)
//     if (r.HasMatrix("xi")) std::cout << r.kind << ' ' << r.time << ' ' << r.Matrix("xi").norm();
//
// Contract: any input, however malformed (truncated, wrong types, absurd shapes, bad UTF-8
// escapes, nesting 10,000 deep), ends in a LogFormatError that names the file, the line, the
// record's index (record i is EventLog::records[i], read_events' df.iloc[i]), the field and what is
// wrong — never a crash, and no allocation larger than the input implies beyond a fixed cap (a
// matrix has at most 2^24 entries, a state at most 8192 coordinates). Accepted: a first line that
// is the header of schema kEventLogSchema; then records, each a JSON object with a finite number
// "time" (non-decreasing from record to record) and a "kind" that EventKindName knows, or
// "failure" (the last record of a run that failed: time, kind and a string "error" only). Every
// other field is one docs/log-format.md lists, of its type (an unknown field is refused): flags
// (grazing, proxy, input_jump) true or false; numbers a number or null (NaN); counts (group, size,
// rank_after, impact.rank) non-negative integers up to 2^30; names and contact labels strings (arrays of
// them); feature, feature_before, feature_after names FeatureName gives; matrix fields (xi, dreset,
// composite_first, composite_reverse) null or compact matrices of shape ndx × ndx; vector fields
// of their length (point 3, bracket 2, f_minus, f_plus, grad_g, dt_dx, dreset_dt ndx), entries
// numbers or null (NaN); impact an object of candidates, impulse_set, rank, kinetic_energy_minus,
// kinetic_energy_plus. Blank lines are skipped. Reads only the text (or the file).
#ifndef SALTATION_EVENT_LOG_READER_H_
#define SALTATION_EVENT_LOG_READER_H_

#include <Eigen/Dense>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "saltation/json_value.h"

namespace saltation {

// A matrix field decoded from the compact form (event_json.h) to the doubles written. `fields`:
// the record's matrices decoded so far, for a base that names one of them.
Eigen::MatrixXd DecodeMatrix(const JsonValue& value, const std::string& where,
                             const std::map<std::string, Eigen::MatrixXd>* fields = nullptr);

struct LogHeader {
  std::string schema, saltation_version, mujoco_version, source, model, model_name, integrator;
  int nq = 0, nv = 0, na = 0, nu = 0, ndx = 0;
  double timestep = 0;
  std::vector<std::string> state_labels, state_units;  // ndx each
  std::map<std::string, std::string> units;             // field → unit
  JsonValue options;                                    // as written
  JsonValue json;                                       // the whole header record
};

struct LogRecord {
  int line = 0;          // 1-based line in the file
  double time = 0;
  std::string kind;
  int group = -1;        // simultaneous group id (the group record and its members), else −1
  JsonValue json;        // the record as written
  bool Has(const std::string& key) const { return json.Find(key) != nullptr; }
  // a number field (NaN for null); LogFormatError when absent or not a number
  double Number(const std::string& key) const;
  // a vector field (NaN for null entries); LogFormatError when absent or not an array
  Eigen::VectorXd Vector(const std::string& key) const;
  // a matrix field that is present and not null
  bool HasMatrix(const std::string& key) const { return matrices.count(key) != 0; }
  const Eigen::MatrixXd& Matrix(const std::string& key) const;  // LogFormatError when absent
  std::map<std::string, Eigen::MatrixXd> matrices;               // decoded when read
};

struct EventLog {
  LogHeader header;
  std::vector<LogRecord> records;
};

// The log in `text`; `name` prefixes the messages (a file name).
EventLog ParseEventLog(std::string_view text, const std::string& name = "log");

// Every field name a record may hold (time, kind and the fields above), in the reader's order: the
// one list (Python's Event reads these, absent ones as None).
std::vector<std::string> EventRecordFields();
// The log in a file; LogFormatError also for a file that cannot be read.
EventLog ReadEventLog(const std::string& path);

}  // namespace saltation

#endif  // SALTATION_EVENT_LOG_READER_H_
