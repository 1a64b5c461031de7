# Every jouleprof build switch, reported together at the end of configuration.
option(JOULEPROF_WITH_TORCH "Build the libtorch adapter and model zoo (needs Torch)" ON)
option(JOULEPROF_WITH_ONNX "Import ONNX model graphs (needs libonnx)" ON)
option(JOULEPROF_WITH_XGBOOST "Random-forest and boosting kernel predictors (needs XGBoost)" ON)
option(JOULEPROF_WITH_SQLITE "Run history in SQLite" ON)
option(JOULEPROF_WITH_POSTGRESQL "Run history on a PostgreSQL server (needs libpq)" ON)
option(JOULEPROF_WITH_HTTP "Prometheus exporter (needs cpp-httplib)" ON)
option(JOULEPROF_BUILD_TESTS "Build the unit and integration tests" ON)
option(JOULEPROF_BUILD_BENCH "Build the benchmarks in bench/" ON)
option(JOULEPROF_BUILD_EVAL "Build the accuracy evaluations in eval/" ON)
option(JOULEPROF_WERROR "Treat compiler warnings as errors" OFF)
option(JOULEPROF_ODR_CHECK "Link libjouleprof.so with LTO and -Werror=odr: a type or function defined twice with different bodies fails the build (GCC)" OFF)
option(JOULEPROF_FUZZ "Build the fuzz/ harnesses with libFuzzer (clang; scripts/fuzz does this)" OFF)
set(JOULEPROF_SANITIZE "" CACHE STRING "Sanitizers: '', 'address,undefined' or 'thread'")

set(_jouleprof_options JOULEPROF_WITH_TORCH JOULEPROF_WITH_ONNX JOULEPROF_WITH_XGBOOST
    JOULEPROF_WITH_SQLITE JOULEPROF_WITH_POSTGRESQL JOULEPROF_WITH_HTTP JOULEPROF_BUILD_TESTS JOULEPROF_BUILD_BENCH
    JOULEPROF_BUILD_EVAL JOULEPROF_WERROR JOULEPROF_ODR_CHECK JOULEPROF_FUZZ JOULEPROF_SANITIZE)

function(jouleprof_report_options)
  message(STATUS "jouleprof ${PROJECT_VERSION} build options:")
  foreach(opt IN LISTS _jouleprof_options)
    message(STATUS "  ${opt} = ${${opt}}")
  endforeach()
endfunction()

if(JOULEPROF_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "JOULEPROF_FUZZ needs clang (CXX=clang++; scripts/fuzz sets it)")
  endif()
  # Coverage feedback for libFuzzer in every object; the harnesses link -fsanitize=fuzzer.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(JOULEPROF_SANITIZE)
  add_compile_options(-fsanitize=${JOULEPROF_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${JOULEPROF_SANITIZE})
endif()

# With JOULEPROF_ODR_CHECK the library's objects also carry LTO bytecode; every link but that of
# libjouleprof.so (src/capi) takes their ordinary code, so that only the check pays for LTO.
if(JOULEPROF_ODR_CHECK)
  add_link_options(-fno-lto)
endif()
