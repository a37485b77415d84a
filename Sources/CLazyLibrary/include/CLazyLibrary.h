#ifndef CLAZYLIBRARY_H
#define CLAZYLIBRARY_H

// What the shims that load a library on first use share: opening it by soname, resolving its
// functions, the failure message, and doing it once. Each shim keeps its own list of functions
// and its own table, whose entries have the types the library declares.

#include <dlfcn.h>
#include <pthread.h>

/// "cannot load <soname>: <reason>", what a shim's load function answers when the library
/// cannot be used. Each library fails at most once per process, so the message is allocated and
/// kept.
const char *lazy_library_failure(const char *soname, const char *reason);

// For functions answering NULL or a failure message: each does its step, or returns the failure.

/// Opens `soname` into `library`, resolving every symbol now (a missing one fails here, not at
/// a call) and keeping them out of the global namespace (only dlsym reaches them).
#define LAZY_LIBRARY_OPEN(library, soname)                                                         \
  if (!((library) = dlopen(soname, RTLD_NOW | RTLD_LOCAL)))                                        \
    return lazy_library_failure(soname, dlerror());

/// Resolves `name` in `library` into `entry`, a table entry of the type the library declares.
#define LAZY_LIBRARY_RESOLVE(library, soname, entry, name)                                         \
  if (!((entry) = (__typeof__(entry))dlsym(library, name)))                                        \
    return lazy_library_failure(soname, dlerror());

/// Defines `const char *function(void)`, which runs `open` (a `const char *open(void)`
/// answering NULL or a failure message) once per process, on whichever thread comes first, and
/// answers what it answered ever after.
#define LAZY_LIBRARY_LOADER(function, open)                                                        \
  static const char *function##_failure;                                                           \
  static void function##_once(void) { function##_failure = open(); }                               \
  const char *function(void) {                                                                     \
    static pthread_once_t once = PTHREAD_ONCE_INIT;                                                \
    pthread_once(&once, function##_once);                                                          \
    return function##_failure;                                                                     \
  }

#endif
