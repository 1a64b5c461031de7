// Compiled into libjouleprof.so only: which build of the shared library a program loaded.
#include "jouleprof/jouleprof.h"

extern "C" const char* jp_version(void) { return JOULEPROF_VERSION; }
