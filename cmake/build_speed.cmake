# How long a build takes on a fresh two-core machine (docs/building.md has the figures): line-table
# debug info, a fast linker, and unity batches (jouleprof_unity, below). Precompiled headers were
# measured and left out: with GCC 12 they saved nothing on the library's and the tests' units,
# whose time is code generation, and they lose the system-header status of the standard headers,
# so GCC 12's false -Warray-bounds in std::string then fails a -Werror build.

# Full DWARF (-g) made the libtorch units twice as slow to compile and the two executables 200 and
# 250 MB; line tables (-g1) keep what backtraces, perf and sanitizer reports need (file, line,
# function) and leave out types and variables, which only a debugger's `print` wants.
set(JOULEPROF_DEBUG_INFO "lines" CACHE STRING "Debug info where the build type has it: 'lines' (-g1) or 'full' (-g)")
set_property(CACHE JOULEPROF_DEBUG_INFO PROPERTY STRINGS lines full)
if(JOULEPROF_DEBUG_INFO STREQUAL "lines")
  # After the build type's -g on every command line, so it is the level that counts.
  add_compile_options($<$<CONFIG:Debug,RelWithDebInfo>:-g1>)
elseif(NOT JOULEPROF_DEBUG_INFO STREQUAL "full")
  message(FATAL_ERROR "JOULEPROF_DEBUG_INFO is '${JOULEPROF_DEBUG_INFO}': it takes 'lines' or 'full'")
endif()

# lld, else the compiler's default (GNU ld): the build links ~200 executables against one static
# library, and lld does each in a third of GNU ld's time. mold (1.10, Debian 12's) was as fast
# but pulled far more archive members into each executable: 206 MB for an AddressSanitizer test
# that lld and GNU ld link to 45 MB, 25 GB for the sanitizer build's tests. GCC's LTO objects,
# which JOULEPROF_ODR_CHECK links, need GCC's linker plugin, which lld lacks: that build keeps
# the default linker.
set(JOULEPROF_LINKER "auto" CACHE STRING "Linker: 'auto' (lld, else the default; the default with JOULEPROF_ODR_CHECK), 'lld', 'mold' or 'default'")
set_property(CACHE JOULEPROF_LINKER PROPERTY STRINGS auto lld mold default)
set(_jouleprof_linker "")
if(JOULEPROF_LINKER STREQUAL "auto")
  find_program(JOULEPROF_LLD ld.lld)
  if(JOULEPROF_LLD AND NOT JOULEPROF_ODR_CHECK)
    set(_jouleprof_linker lld)
  endif()
elseif(JOULEPROF_LINKER MATCHES "^(lld|mold)$")
  set(_jouleprof_linker ${JOULEPROF_LINKER})
elseif(NOT JOULEPROF_LINKER STREQUAL "default")
  message(FATAL_ERROR "JOULEPROF_LINKER is '${JOULEPROF_LINKER}': it takes auto, lld, mold or default")
endif()
if(_jouleprof_linker)
  include(CheckLinkerFlag)
  check_linker_flag(CXX -fuse-ld=${_jouleprof_linker} JOULEPROF_LINKER_${_jouleprof_linker}_WORKS)
  if(JOULEPROF_LINKER_${_jouleprof_linker}_WORKS)
    add_link_options(-fuse-ld=${_jouleprof_linker})
    set(JOULEPROF_LINKER_USED ${_jouleprof_linker})
  elseif(NOT JOULEPROF_LINKER STREQUAL "auto")
    message(FATAL_ERROR "JOULEPROF_LINKER=${JOULEPROF_LINKER}: ${CMAKE_CXX_COMPILER} cannot link with -fuse-ld=${_jouleprof_linker}")
  endif()
endif()
if(NOT JOULEPROF_LINKER_USED)
  set(JOULEPROF_LINKER_USED "the compiler's default")
endif()

# jouleprof_unity(<target> [batch]): the target's sources compiled in batches (of
# JOULEPROF_UNITY_BATCH, or [batch]), so that the headers they all include are parsed, and the
# templates they all use (fmt, CLI11, std containers, nlohmann/json) instantiated and optimised,
# once a batch instead of once a file: a library unit spends 60 % of its time in that code
# generation. Names in an anonymous namespace must then differ across a target's files (a clash
# is a compile error naming both). JOULEPROF_UNITY=OFF compiles file by file, which an edit-and-
# rebuild loop may prefer: an edit then rebuilds one file, not its batch.
option(JOULEPROF_UNITY "Compile the library, the libtorch adapter and the commands in batches (unity build)" ON)
set(JOULEPROF_UNITY_BATCH 8 CACHE STRING "Sources per unity batch")
function(jouleprof_unity target)
  if(NOT JOULEPROF_UNITY)
    return()
  endif()
  set(batch ${JOULEPROF_UNITY_BATCH})
  if(ARGC GREATER 1)
    set(batch ${ARGV1})
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
endfunction()

list(APPEND _jouleprof_options JOULEPROF_DEBUG_INFO JOULEPROF_LINKER_USED JOULEPROF_UNITY)
