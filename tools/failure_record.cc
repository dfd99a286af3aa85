#include "failure_record.h"

#include <sstream>

#include "saltation/json_text.h"

namespace saltation::cli {

std::string FailureJson(double time, const std::string& message) {
  return "{\"time\":" + JsonNumber(time) + ",\"kind\":\"failure\",\"error\":" + JsonString(message) + "}";
}

std::string FailureCsv(const std::string& header, double time, const std::string& message) {
  std::string quoted = "\"";
  for (char c : message) {
    if (c == '\n' || c == '\r') c = ' ';
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  quoted += "\"";
  std::stringstream columns(header);
  std::string column, row;
  for (bool first = true; std::getline(columns, column, ','); first = false) {
    if (!first) row += ",";
    if (column == "time") {
      row += JsonNumber(time);
    } else if (column == "kind") {
      row += "failure";
    } else if (column == "error") {
      row += quoted;
    }
  }
  return row;
}

}  // namespace saltation::cli
