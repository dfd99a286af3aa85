// Benchmarks of the engine hook against MuJoCo (issue 15), measured side by side inside one run so
// that the ratios are not at the mercy of a noisy shared machine: each benchmark alternates the
// contenders in every iteration and reports their ratio as a counter. The benchmarks live in
// stepping_bench.cc, xi_bench.cc, phi_bench.cc, construct_bench.cc and plugin_bench.cc;
// bench/summarize.py turns this binary's --benchmark_format=json output into the table and the one
// JSON object of scripts/bench.
//
//   saltation_bench [--quick] [--22-humanoids] [Google Benchmark flags]
//   --quick: short forms of every benchmark (seconds, not minutes), for the ctest that checks the
//            JSON has every key; the figures are not the ones to quote
//   --22-humanoids: also TwentyTwoHumanoids (MuJoCo's 22 humanoids through the hook: minutes)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"

int main(int argc, char** argv) {
  saltation::InstallMujocoHandlers();
  if (const std::string e = saltation::MujocoVersionMismatch(); !e.empty()) {
    std::fprintf(stderr, "saltation_bench: %s\n", e.c_str());
    return 3;
  }
  std::vector<char*> args;
  for (int i = 0; i < argc; i++) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      bench::SetQuick(true);
    } else if (std::strcmp(argv[i], "--22-humanoids") == 0) {
      bench::SetTwentyTwo(true);
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 2;
  bench::RegisterStepping();
  bench::RegisterXi();
  bench::RegisterPhi();
  bench::RegisterConstruct();
  bench::RegisterPlugin();
  bench::RegisterRigid();
  bench::RegisterRecord();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
