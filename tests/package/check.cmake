# ctest driver: install the build into a scratch prefix, build the consumer project against it
# with find_package(saltation), run it.
set(prefix "${BINARY_DIR}/package-test/prefix")
set(consumer "${BINARY_DIR}/package-test/consumer")
file(REMOVE_RECURSE "${BINARY_DIR}/package-test")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${prefix}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/package" -B "${consumer}"
                        -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "find_package(saltation) failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${consumer}" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "consumer did not build")
endif()
execute_process(COMMAND "${consumer}/consumer" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "consumer failed")
endif()
