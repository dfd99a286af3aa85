// Record-to-file: every hook event as one JSON Lines object and one CSV summary row, in the
// library's schema (saltation::HookEventToJson, built on EventToJson for events with Ξ, and
// HookEventToCsv). Each line is flushed as it is written, so a crash loses nothing already seen.
#ifndef SALTATION_VIEWER_RECORDER_H_
#define SALTATION_VIEWER_RECORDER_H_

#include <cstdio>
#include <string>

#include "saltation/hook.h"
#include "saltation/model.h"

namespace saltation_viewer {

class Recorder {
 public:
  ~Recorder() { Close(); }

  // Opens base + ".jsonl" and base + ".csv" (truncating); returns an error message or "".
  std::string Open(const std::string& base);
  void Close();
  bool active() const { return jsonl_ != nullptr; }
  const std::string& jsonl_path() const { return jsonl_path_; }
  const std::string& csv_path() const { return csv_path_; }
  int count() const { return count_; }

  void Write(const saltation::Model& model, const saltation::HookEvent& ev);

 private:
  std::FILE* jsonl_ = nullptr;
  std::FILE* csv_ = nullptr;
  std::string jsonl_path_, csv_path_;
  int count_ = 0;
};

// A default record name in the current directory: saltation-YYYYmmdd-HHMMSS
std::string DefaultRecordBase();

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_RECORDER_H_
