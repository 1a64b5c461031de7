/* jp_attribute as a C program calls it, for the test that runs one recording through the command
 * line, the C API and Python (tests/python/test_front_ends_agree.py):
 *   jp_attribute_main SAMPLES TRACE|- OUTPUT [OPTIONS_JSON]
 * Exit 0 when the profile was written; else jp_last_error() on stderr and exit 1. */
#include <stdio.h>
#include <string.h>

#include "jouleprof/jouleprof.h"

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    fprintf(stderr, "usage: %s SAMPLES TRACE|- OUTPUT [OPTIONS_JSON]\n", argv[0]);
    return 2;
  }
  const char* trace = strcmp(argv[2], "-") == 0 ? NULL : argv[2];
  const char* options = argc == 5 ? argv[4] : NULL;
  if (jp_attribute(argv[1], trace, argv[3], options) != JP_OK) {
    fprintf(stderr, "%s\n", jp_last_error());
    return 1;
  }
  return 0;
}
