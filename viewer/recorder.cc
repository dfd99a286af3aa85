#include "recorder.h"

#include <ctime>

#include "saltation/event_json.h"

namespace saltation_viewer {

std::string Recorder::Open(const std::string& base) {
  Close();
  jsonl_path_ = base + ".jsonl";
  csv_path_ = base + ".csv";
  jsonl_ = std::fopen(jsonl_path_.c_str(), "w");
  if (!jsonl_) return "cannot write '" + jsonl_path_ + "'";
  csv_ = std::fopen(csv_path_.c_str(), "w");
  if (!csv_) {
    Close();
    return "cannot write '" + csv_path_ + "'";
  }
  std::fprintf(csv_, "%s\n", saltation::HookEventCsvHeader().c_str());
  std::fflush(csv_);
  count_ = 0;
  return "";
}

void Recorder::Close() {
  if (jsonl_) std::fclose(jsonl_);
  if (csv_) std::fclose(csv_);
  jsonl_ = csv_ = nullptr;
}

void Recorder::Write(const saltation::Model& model, const saltation::HookEvent& ev) {
  if (!active()) return;
  std::fprintf(jsonl_, "%s\n", saltation::HookEventToJson(model, ev).c_str());
  std::fflush(jsonl_);
  std::fprintf(csv_, "%s\n", saltation::HookEventToCsv(model, ev).c_str());
  std::fflush(csv_);
  count_++;
}

std::string DefaultRecordBase() {
  std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof(buf), "saltation-%Y%m%d-%H%M%S", std::localtime(&now));
  return buf;
}

}  // namespace saltation_viewer
