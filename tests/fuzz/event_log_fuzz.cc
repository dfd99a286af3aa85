// Fuzz target of the event log reader (event_log_reader.h): any bytes must end in a parsed log
// or a LogFormatError — a crash, a sanitizer report or any other exception is a finding.
//
// With Clang and SALTATION_BUILD_FUZZERS=ON this is a libFuzzer target (-fsanitize=fuzzer):
//   build/tests/fuzz/event_log_fuzz -max_len=65536 CORPUS_DIR docs/examples
// With another compiler it is a replay driver under ASan/UBSan: event_log_fuzz FILE…
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
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

#ifndef SALTATION_LIBFUZZER
int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    std::ifstream in(argv[i], std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const std::string bytes = text.str();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    std::printf("%s: ok\n", argv[i]);
  }
  return 0;
}
#endif
