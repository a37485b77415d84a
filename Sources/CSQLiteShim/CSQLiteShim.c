#include "CSQLiteShim.h"

#include "CLazyLibrary.h"

/// The soname of SQLite 3, Debian's libsqlite3-0.
static const char soname[] = "libsqlite3.so.0";

// The sqlite3 functions only this file calls: the ones behind the SQLITE_TRANSIENT wrappers,
// and the thread-safety check.
#define CSQLITE_INTERNAL_FUNCTIONS(FUNCTION)                                                       \
  FUNCTION(sqlite3_threadsafe)                                                                     \
  FUNCTION(sqlite3_bind_text64)                                                                    \
  FUNCTION(sqlite3_bind_blob64)

// Each entry has the type of SQLite's own declaration, so every call through it is checked
// against SQLite's header.
#define ENTRY(name) __typeof__(&name) name;
#define FUNCTION_ENTRY(result, name, parameters, arguments) ENTRY(name)
static struct {
  CSQLITE_FUNCTIONS(FUNCTION_ENTRY)
  CSQLITE_INTERNAL_FUNCTIONS(ENTRY)
} sqlite;

static const char *open_and_check(void) {
  void *library;
  LAZY_LIBRARY_OPEN(library, soname)
#define RESOLVE(name) LAZY_LIBRARY_RESOLVE(library, soname, sqlite.name, #name)
#define RESOLVE_FUNCTION(result, name, parameters, arguments) RESOLVE(name)
  CSQLITE_FUNCTIONS(RESOLVE_FUNCTION)
  CSQLITE_INTERNAL_FUNCTIONS(RESOLVE)
  // Checkpoints run on a thread of their own, on a connection of their own.
  if (!sqlite.sqlite3_threadsafe())
    return lazy_library_failure(soname, "it was built without thread support");
  return NULL;
}

LAZY_LIBRARY_LOADER(csqlite_load, open_and_check)

#define DEFINE_FUNCTION(result, name, parameters, arguments)                                       \
  result c##name parameters { return sqlite.name arguments; }
CSQLITE_FUNCTIONS(DEFINE_FUNCTION)

int csqlite3_bind_text_transient(sqlite3_stmt *statement, int index, const char *text,
                                 sqlite3_uint64 length) {
  return sqlite.sqlite3_bind_text64(statement, index, length ? text : "", length, SQLITE_TRANSIENT,
                                    SQLITE_UTF8);
}

int csqlite3_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes,
                                 sqlite3_uint64 length) {
  return sqlite.sqlite3_bind_blob64(statement, index, length ? bytes : "", length,
                                    SQLITE_TRANSIENT);
}
