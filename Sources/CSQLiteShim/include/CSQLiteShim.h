#ifndef CSQLITESHIM_H
#define CSQLITESHIM_H

// libsqlite3, loaded when the first state folder is opened.
//
// It is not linked, so that runs without durable instances do not spend start-up time loading
// it. csqlite_load opens it with dlopen instead and resolves the functions below into a table;
// Swift calls them through the wrappers declared here. A direct call of a sqlite3 function
// would not link, which keeps any from slipping in.
//
// The CSQLite module's header is included by a relative path for the reason given in
// CCurlShim.h: so that this module does not take over its declarations.
#include "../../CSQLite/CSQLite.h"

/// Loads libsqlite3, once per process, on whichever thread comes first. Returns NULL when SQLite
/// is ready, else why it cannot be used, naming the library and quoting dlerror (or saying it was
/// built without thread support, which the storage's second connection needs); the answer never
/// changes. Nothing else declared here may be called before it returned NULL.
const char *csqlite_load(void);

// The sqlite3 functions Swift calls, as FUNCTION(result, name, parameters, arguments). Each gets
// a table entry of SQLite's own type and a wrapper named c<name> (csqlite3_step for
// sqlite3_step).
#define CSQLITE_FUNCTIONS(FUNCTION)                                                                \
  FUNCTION(int, sqlite3_open_v2,                                                                   \
           (const char *filename, sqlite3 **db, int flags, const char *vfs),                       \
           (filename, db, flags, vfs))                                                             \
  FUNCTION(int, sqlite3_close_v2, (sqlite3 * db), (db))                                            \
  FUNCTION(const char *, sqlite3_errmsg, (sqlite3 * db), (db))                                     \
  FUNCTION(int, sqlite3_system_errno, (sqlite3 * db), (db))                                        \
  FUNCTION(int, sqlite3_busy_timeout, (sqlite3 * db, int milliseconds), (db, milliseconds))        \
  FUNCTION(int, sqlite3_exec,                                                                      \
           (sqlite3 * db, const char *sql, int (*callback)(void *, int, char **, char **),         \
            void *context, char **error),                                                          \
           (db, sql, callback, context, error))                                                    \
  FUNCTION(int, sqlite3_prepare_v3,                                                                \
           (sqlite3 * db, const char *sql, int length, unsigned int flags,                         \
            sqlite3_stmt **statement, const char **tail),                                          \
           (db, sql, length, flags, statement, tail))                                              \
  FUNCTION(int, sqlite3_finalize, (sqlite3_stmt * statement), (statement))                         \
  FUNCTION(int, sqlite3_reset, (sqlite3_stmt * statement), (statement))                            \
  FUNCTION(int, sqlite3_step, (sqlite3_stmt * statement), (statement))                             \
  FUNCTION(int, sqlite3_bind_int64, (sqlite3_stmt * statement, int index, sqlite3_int64 value),    \
           (statement, index, value))                                                              \
  FUNCTION(int, sqlite3_column_type, (sqlite3_stmt * statement, int column), (statement, column))  \
  FUNCTION(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt * statement, int column),            \
           (statement, column))                                                                    \
  FUNCTION(const void *, sqlite3_column_blob, (sqlite3_stmt * statement, int column),              \
           (statement, column))                                                                    \
  FUNCTION(const unsigned char *, sqlite3_column_text, (sqlite3_stmt * statement, int column),     \
           (statement, column))                                                                    \
  FUNCTION(int, sqlite3_column_bytes, (sqlite3_stmt * statement, int column),                      \
           (statement, column))                                                                    \
  FUNCTION(void *, sqlite3_wal_hook,                                                               \
           (sqlite3 * db, int (*hook)(void *, sqlite3 *, const char *, int), void *context),       \
           (db, hook, context))                                                                    \
  FUNCTION(int, sqlite3_wal_checkpoint_v2,                                                         \
           (sqlite3 * db, const char *schema, int mode, int *logFrames, int *checkpointedFrames),  \
           (db, schema, mode, logFrames, checkpointedFrames))

#define CSQLITE_DECLARE(result, name, parameters, arguments) result c##name parameters;
CSQLITE_FUNCTIONS(CSQLITE_DECLARE)
#undef CSQLITE_DECLARE

// SQLITE_TRANSIENT, which makes SQLite copy a bound value before the call returns, is a macro
// casting -1 to a function pointer: Swift cannot import it, so these bind with it.

/// sqlite3_bind_text64 of UTF-8 text.
int csqlite3_bind_text_transient(sqlite3_stmt *statement, int index, const char *text,
                                 sqlite3_uint64 length);
/// sqlite3_bind_blob64; an empty blob may come with a NULL pointer (as an empty Swift array's
/// buffer does) and is still bound as an empty blob, not as NULL.
int csqlite3_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes,
                                 sqlite3_uint64 length);

#endif
