#include "CLazyLibrary.h"

#include <stdio.h>
#include <stdlib.h>

const char *lazy_library_failure(const char *soname, const char *reason) {
  static const char format[] = "cannot load %s: %s";
  int length = snprintf(NULL, 0, format, soname, reason);
  char *message = length < 0 ? NULL : malloc((size_t)length + 1);
  if (!message) return "cannot load a library: out of memory";
  snprintf(message, (size_t)length + 1, format, soname, reason);
  return message;
}
