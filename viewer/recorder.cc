#include "recorder.h"

#include <ctime>

#include "saltation/event_json.h"

namespace saltation_viewer {

std::string Recorder::Open(const std::string& base) {
  Close();
  jsonl_path_ = base + ".jsonl";
  csv_path_ = base + ".csv";
  error_.clear();
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

std::string Recorder::Write(const saltation::Model& model, const saltation::HookEvent& ev) {
  if (!active()) return "";
  try {
    jsonl_.WriteLine(saltation::HookEventToJson(model, ev));
    csv_.WriteLine(saltation::HookEventToCsv(model, ev));
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
