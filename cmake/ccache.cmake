# Rebuilds of an unchanged file come from ccache when it is installed (scripts/packages.txt lists
# it). With the base directory set and the working directory left out of the hash, a second
# checkout of the tree (a fresh clone, a worktree) hits the same cache; its debug info may then
# name the first checkout's paths, which only matters for a debugger's source lookup.
find_program(JOULEPROF_CCACHE ccache)
if(JOULEPROF_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(_jouleprof_launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
      CCACHE_NOHASHDIR=1 ${JOULEPROF_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER ${_jouleprof_launcher})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_jouleprof_launcher})
endif()
