/* The C API through the installed libjouleprof.so: the version, and an error for a bad call. */
#include <jouleprof/jouleprof.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  const char* version = jp_version();
  printf("libjouleprof %s\n", version);
  return version != NULL && strlen(version) > 0 ? 0 : 1;
}
