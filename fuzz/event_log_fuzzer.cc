// Fuzz target of the event log reader (event_log_reader.h): any bytes must end in a parsed log
// or a LogFormatError — a crash, a sanitizer report or any other exception is a finding.
//
// scripts/fuzz builds it (Clang, libFuzzer, ASan + UBSan) and runs it from fuzz/corpus/event_log_fuzzer/
// (logs written by record, rigid and the plugin, cut and edited by hand).
#include <cstdint>
#include <string_view>

#include "saltation/event_log_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    saltation::ParseEventLog(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const saltation::LogFormatError&) {
    // a clear refusal is the expected outcome for most inputs
  }
  return 0;
}
