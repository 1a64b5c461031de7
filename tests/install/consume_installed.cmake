# cmake -P: install BUILD_DIR into WORK_DIR/prefix, build CONSUMER_SOURCE against it, run both
# consumers and the installed CLI (TORCH_HELPER: also a libtorch command, run by jouleprof-torch).
# Any failing step fails the test with that step's output.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok\n${out}")
endfunction()

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(expected include/jouleprof/jouleprof.hpp include/jouleprof/jouleprof.h
                 include/jouleprof/calibration.hpp bin/jouleprof lib/libjouleprof.so
                 lib/libjouleprof_static.a lib/cmake/jouleprof/jouleprofConfig.cmake)
  if(NOT EXISTS ${prefix}/${expected})
    message(FATAL_ERROR "install did not write ${expected}")
  endif()
endforeach()
file(GLOB torch_headers ${prefix}/include/jouleprof/torch*.hpp)
if(torch_headers)
  message(FATAL_ERROR "the libtorch adapter's headers were installed without the adapter: ${torch_headers}")
endif()
step("configure the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build
     -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
step("build the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step("run the C++ consumer" ${WORK_DIR}/build/cpp_consumer)
step("run the C consumer" ${WORK_DIR}/build/c_consumer)
step("run the installed CLI" ${prefix}/bin/jouleprof version)
# Where libtorch was built: the libtorch commands' executable, found by the installed jouleprof.
if(TORCH_HELPER)
  if(NOT EXISTS ${prefix}/libexec/jouleprof/jouleprof-torch)
    message(FATAL_ERROR "install did not write libexec/jouleprof/jouleprof-torch")
  endif()
  step("run a libtorch command through the installed CLI"
       ${CMAKE_COMMAND} -E env --unset=JOULEPROF_TORCH_HELPER
       ${prefix}/bin/jouleprof profile --list-models)
endif()
