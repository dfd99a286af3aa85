# SALTATION_SANITIZE: a comma-separated list of sanitizers (e.g. "address,undefined") compiled into
# every target of this project (library, plugin, CLI, tests). MuJoCo's own library is not
# instrumented. Undefined behaviour aborts (no recovery), so a test that hits it fails.
# SALTATION_BUILD_FUZZERS: the libFuzzer targets in fuzz/ (Clang only; scripts/fuzz builds them).
set(SALTATION_SANITIZE "" CACHE STRING "Sanitizers for every target (e.g. address,undefined)")
option(SALTATION_BUILD_FUZZERS "Build the libFuzzer targets in fuzz/ (Clang)" OFF)

if(SALTATION_SANITIZE)
  add_compile_options(-fsanitize=${SALTATION_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SALTATION_SANITIZE})
endif()
if(SALTATION_BUILD_FUZZERS AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "SALTATION_BUILD_FUZZERS needs Clang (libFuzzer): configure with "
                      "CMAKE_CXX_COMPILER=clang++ (scripts/fuzz does)")
endif()
