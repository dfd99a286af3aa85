// The last record of a run that failed (an unstable simulation, MuJoCo resetting the state, a
// numerical failure of the rigid model): {"kind":"failure","time":T,"error":"…"} in JSON Lines and
// a row of kind "failure" in the CSV. Every record before it has time ≤ T; none follows it.
#ifndef SALTATION_TOOLS_FAILURE_RECORD_H_
#define SALTATION_TOOLS_FAILURE_RECORD_H_

#include <string>

namespace saltation::cli {

// one JSON object (no newline)
std::string FailureJson(double time, const std::string& message);

// one CSV row under `header` (comma-separated column names, no quoting): time in "time", "failure"
// in "kind", the message in "detail" (quoted), every other cell empty
std::string FailureCsv(const std::string& header, double time, const std::string& message);

}  // namespace saltation::cli

#endif  // SALTATION_TOOLS_FAILURE_RECORD_H_
