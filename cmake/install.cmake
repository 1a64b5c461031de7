# `cmake --install`: the public headers, the C++ library (static, jouleprof::jouleprof), the C API
# library (libjouleprof.so, jouleprof::c_api), the NVTX injection library, the CLI, the shipped
# data and a CMake package, so that another project can
#   find_package(jouleprof 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE jouleprof::jouleprof)
# (docs/library.md). The libtorch adapter's library and headers are not installed; where it was
# built, the CLI's libtorch commands are, as libexec/jouleprof/jouleprof-torch (linked statically
# with the adapter).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(JOULEPROF_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/jouleprof)

target_include_directories(jouleprof_lib PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_include_directories(jouleprof_shared PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(jouleprof_lib PROPERTIES EXPORT_NAME jouleprof)
set_target_properties(jouleprof_shared PROPERTIES EXPORT_NAME c_api)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/jouleprof
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN "torch*.hpp" EXCLUDE)
install(TARGETS jouleprof_lib jouleprof_shared EXPORT jouleprofTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS jouleprof_nvtx LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS jouleprof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# At the path jouleprof looks for it: ../libexec/jouleprof/ from its own directory.
if(TARGET jouleprof-torch)
  install(TARGETS jouleprof-torch RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/jouleprof)
endif()
install(EXPORT jouleprofTargets NAMESPACE jouleprof:: DESTINATION ${JOULEPROF_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/jouleprofConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/jouleprofConfig.cmake
                              INSTALL_DESTINATION ${JOULEPROF_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/jouleprofConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/jouleprofConfig.cmake
              ${PROJECT_BINARY_DIR}/jouleprofConfigVersion.cmake
        DESTINATION ${JOULEPROF_INSTALL_CMAKEDIR})

# Everything the install above takes, and the wheel: scripts/demo builds this target, so that
# `cmake --install` and the README's `pip install build/wheel/…` work right after it.
add_custom_target(jouleprof_dist)
add_dependencies(jouleprof_dist jouleprof jouleprof_lib jouleprof_shared jouleprof_nvtx)
if(TARGET jouleprof_wheel)
  add_dependencies(jouleprof_dist jouleprof_wheel)
endif()
