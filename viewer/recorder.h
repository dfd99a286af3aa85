// Record-to-file: every hook event as one JSON Lines object and one CSV summary row, in the
// library's schema (saltation::HookEventToJson, built on EventToJson for events with Ξ, and
// HookEventToCsv). Both files are saltation::OutputFile: each line is on disk when Write returns
// (a crash loses nothing already seen) and a failed write (disk full) leaves whole lines only.
#ifndef SALTATION_VIEWER_RECORDER_H_
#define SALTATION_VIEWER_RECORDER_H_

#include <string>

#include "saltation/hook.h"
#include "saltation/model.h"
#include "saltation/output_file.h"

namespace saltation_viewer {

class Recorder {
 public:
  ~Recorder() { Close(); }

  // Opens base + ".jsonl" and base + ".csv" (truncating); returns an error message with the OS
  // reason, or "".
  std::string Open(const std::string& base);
  void Close();
  bool active() const { return jsonl_.is_open(); }
  const std::string& jsonl_path() const { return jsonl_path_; }
  const std::string& csv_path() const { return csv_path_; }
  int count() const { return count_; }

  // Writes the event to both files, the JSON Lines log's header (EventLogHeader: the model, its
  // joints, units, options; docs/log-format.md) before its first record; on a failed write the
  // recording stops (active() false) and the message ("could not write 'PATH': No space left on
  // device") is returned and kept in error() until the next Open. A log holds one run of one
  // model: an event of another model (one loaded meanwhile) or earlier than the last one written
  // (the run was reset) stops the recording the same way. "" when written (or not recording).
  std::string Write(const saltation::Hook& hook, const std::string& model_path, const saltation::HookEvent& ev);
  const std::string& error() const { return error_; }

 private:
  saltation::OutputFile jsonl_, csv_;
  std::string jsonl_path_, csv_path_, error_;
  std::string model_path_;  // the model of the header written, "" before it
  double last_time_ = 0;    // of the last record written
  int count_ = 0;
};

// A default record name in the current directory: saltation-YYYYmmdd-HHMMSS
std::string DefaultRecordBase();

}  // namespace saltation_viewer

#endif  // SALTATION_VIEWER_RECORDER_H_
