#include "CPostgresShim.h"

#include "CLazyLibrary.h"

/// The soname of libpq 5, Debian's libpq5.
static const char soname[] = "libpq.so.5";

/// Pipeline mode, which sends a commit's statements in one round trip, came with libpq 14.
static const int oldest_version = 140000;

// The libpq functions only this file calls.
#define CPQ_INTERNAL_FUNCTIONS(FUNCTION) FUNCTION(PQlibVersion)

// Each entry has the type of libpq's own declaration, so every call through it is checked
// against libpq's header.
#define ENTRY(name) __typeof__(&name) name;
#define FUNCTION_ENTRY(result, name, parameters, arguments) ENTRY(name)
static struct {
  CPQ_FUNCTIONS(FUNCTION_ENTRY)
  CPQ_INTERNAL_FUNCTIONS(ENTRY)
} pq;

static const char *open_and_check(void) {
  void *library;
  LAZY_LIBRARY_OPEN(library, soname)
#define RESOLVE(name) LAZY_LIBRARY_RESOLVE(library, soname, pq.name, #name)
#define RESOLVE_FUNCTION(result, name, parameters, arguments) RESOLVE(name)
  CPQ_FUNCTIONS(RESOLVE_FUNCTION)
  CPQ_INTERNAL_FUNCTIONS(RESOLVE)
  if (pq.PQlibVersion() < oldest_version)
    return lazy_library_failure(soname, "it is older than libpq 14, which has pipeline mode");
  return NULL;
}

LAZY_LIBRARY_LOADER(cpq_load, open_and_check)

#define DEFINE_FUNCTION(result, name, parameters, arguments)                                       \
  result c##name parameters { return pq.name arguments; }
CPQ_FUNCTIONS(DEFINE_FUNCTION)

static void ignore_notice(void *context, const char *message) {
  (void)context;
  (void)message;
}

void cpq_ignore_notices(PGconn *conn) { pq.PQsetNoticeProcessor(conn, ignore_notice, NULL); }
