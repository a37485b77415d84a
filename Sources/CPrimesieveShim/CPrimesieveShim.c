#include "CPrimesieveShim.h"

#include <primesieve.h>

#include "CLazyLibrary.h"

/// The soname of primesieve 11, Debian's libprimesieve11.
static const char soname[] = "libprimesieve.so.11";

// The primesieve functions only this file calls.
#define CPRIMESIEVE_INTERNAL_FUNCTIONS(FUNCTION) FUNCTION(primesieve_set_num_threads)

// Each entry has the type of primesieve's own declaration, so every call through it is checked
// against primesieve's header.
#define ENTRY(name) __typeof__(&name) name;
#define FUNCTION_ENTRY(result, name, parameters, arguments) ENTRY(name)
static struct {
  CPRIMESIEVE_FUNCTIONS(FUNCTION_ENTRY)
  CPRIMESIEVE_INTERNAL_FUNCTIONS(ENTRY)
} primesieve;

static const char *open_and_configure(void) {
  void *library;
  LAZY_LIBRARY_OPEN(library, soname)
#define RESOLVE(name) LAZY_LIBRARY_RESOLVE(library, soname, primesieve.name, #name)
#define RESOLVE_FUNCTION(result, name, parameters, arguments) RESOLVE(name)
  CPRIMESIEVE_FUNCTIONS(RESOLVE_FUNCTION)
  CPRIMESIEVE_INTERNAL_FUNCTIONS(RESOLVE)
  // One thread per call: libuv's thread pool already runs several calls side by side.
  primesieve.primesieve_set_num_threads(1);
  return NULL;
}

LAZY_LIBRARY_LOADER(cprimesieve_load, open_and_configure)

#define DEFINE_FUNCTION(result, name, parameters, arguments)                                       \
  result c##name parameters { return primesieve.name arguments; }
CPRIMESIEVE_FUNCTIONS(DEFINE_FUNCTION)
