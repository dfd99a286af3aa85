#include "recorder.h"

#include <ctime>

#include "saltation/event_json.h"
#include "saltation/event_log_header.h"

namespace saltation_viewer {

std::string Recorder::Open(const std::string& base) {
  Close();
  jsonl_path_ = base + ".jsonl";
  csv_path_ = base + ".csv";
  error_.clear();
  model_path_.clear();
  count_ = 0;
  try {
    jsonl_.Open(jsonl_path_);
    csv_.Open(csv_path_);
    csv_.WriteLine(saltation::HookEventCsvHeader());
  } catch (const saltation::OutputError& e) {
    Close();
    error_ = e.what();
  }
  return error_;
}

void Recorder::Close() {
  for (saltation::OutputFile* f : {&jsonl_, &csv_}) {
    try {
      f->Close();
    } catch (const saltation::OutputError& e) {
      if (error_.empty()) error_ = e.what();
    }
  }
}

std::string Recorder::Write(const saltation::Hook& hook, const std::string& model_path,
                            const saltation::HookEvent& ev) {
  if (!active()) return "";
  if (count_ > 0 && (model_path != model_path_ || ev.time < last_time_)) {
    error_ = "recording '" + jsonl_path_ + "' stopped after " + std::to_string(count_) + " records: " +
             (model_path != model_path_ ? "another model was loaded" : "the run was reset") +
             " (a log holds one run of one model; record again for a new file)";
    Close();
    return error_;
  }
  try {
    if (model_path_.empty()) {
      jsonl_.WriteLine(saltation::EventLogHeader(hook, model_path, "viewer"));
      model_path_ = model_path;
    }
    const saltation::Model& model = hook.rigid_model();
    jsonl_.WriteLine(saltation::HookEventToJson(model, ev));
    csv_.WriteLine(saltation::HookEventToCsv(model, ev));
    last_time_ = ev.time;
    count_++;
  } catch (const saltation::OutputError& e) {
    error_ = e.what();
    Close();
    return error_;
  }
  return "";
}

std::string DefaultRecordBase() {
  std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof(buf), "saltation-%Y%m%d-%H%M%S", std::localtime(&now));
  return buf;
}

}  // namespace saltation_viewer
