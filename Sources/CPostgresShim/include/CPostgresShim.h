#ifndef CPOSTGRESSHIM_H
#define CPOSTGRESSHIM_H

// libpq, loaded when the first `--state-url postgresql://…` storage opens.
//
// It is not linked, so that runs that keep no state in PostgreSQL do not spend start-up time
// loading it. cpq_load opens it with dlopen instead and resolves the functions below into a
// table; Swift calls them through the wrappers declared here. A direct call of a libpq function
// would not link, which keeps any from slipping in.
//
// The CPostgres module's header is included by a relative path for the reason given in
// CCurlShim.h: so that this module does not take over its declarations.
#include "../../CPostgres/CPostgres.h"

/// Loads libpq, once per process, on whichever thread comes first. Returns NULL when libpq is
/// ready, else why it cannot be used, naming the library and quoting dlerror (or saying it is
/// older than pipeline mode, which commits need); the answer never changes. Nothing else declared
/// here may be called before it returned NULL.
const char *cpq_load(void);

// The libpq functions Swift calls, as FUNCTION(result, name, parameters, arguments). Each gets a
// table entry of libpq's own type and a wrapper named c<name> (cPQfinish for PQfinish).
#define CPQ_FUNCTIONS(FUNCTION)                                                                    \
  FUNCTION(PGconn *, PQconnectdbParams,                                                             \
           (const char *const *keywords, const char *const *values, int expand_dbname),            \
           (keywords, values, expand_dbname))                                                      \
  FUNCTION(void, PQfinish, (PGconn * conn), (conn))                                                \
  FUNCTION(ConnStatusType, PQstatus, (const PGconn *conn), (conn))                                 \
  FUNCTION(char *, PQerrorMessage, (const PGconn *conn), (conn))                                   \
  FUNCTION(int, PQsocket, (const PGconn *conn), (conn))                                            \
  FUNCTION(int, PQsetnonblocking, (PGconn * conn, int arg), (conn, arg))                           \
  FUNCTION(int, PQenterPipelineMode, (PGconn * conn), (conn))                                      \
  FUNCTION(int, PQpipelineSync, (PGconn * conn), (conn))                                           \
  FUNCTION(int, PQsendQueryParams,                                                                 \
           (PGconn * conn, const char *command, int nParams, const Oid *paramTypes,                \
            const char *const *paramValues, const int *paramLengths, const int *paramFormats,      \
            int resultFormat),                                                                     \
           (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,           \
            resultFormat))                                                                         \
  FUNCTION(int, PQsendQuery, (PGconn * conn, const char *query), (conn, query))                   \
  FUNCTION(int, PQsendPrepare,                                                                     \
           (PGconn * conn, const char *stmtName, const char *query, int nParams,                   \
            const Oid *paramTypes),                                                                \
           (conn, stmtName, query, nParams, paramTypes))                                           \
  FUNCTION(int, PQsendQueryPrepared,                                                               \
           (PGconn * conn, const char *stmtName, int nParams, const char *const *paramValues,      \
            const int *paramLengths, const int *paramFormats, int resultFormat),                   \
           (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat))       \
  FUNCTION(int, PQflush, (PGconn * conn), (conn))                                                  \
  FUNCTION(int, PQconsumeInput, (PGconn * conn), (conn))                                           \
  FUNCTION(int, PQisBusy, (PGconn * conn), (conn))                                                 \
  FUNCTION(PGresult *, PQgetResult, (PGconn * conn), (conn))                                       \
  FUNCTION(ExecStatusType, PQresultStatus, (const PGresult *res), (res))                           \
  FUNCTION(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))     \
  FUNCTION(char *, PQresultErrorMessage, (const PGresult *res), (res))                             \
  FUNCTION(void, PQclear, (PGresult * res), (res))                                                 \
  FUNCTION(int, PQntuples, (const PGresult *res), (res))                                           \
  FUNCTION(int, PQnfields, (const PGresult *res), (res))                                           \
  FUNCTION(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num),                  \
           (res, tup_num, field_num))                                                              \
  FUNCTION(int, PQgetlength, (const PGresult *res, int tup_num, int field_num),                    \
           (res, tup_num, field_num))                                                              \
  FUNCTION(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num),                    \
           (res, tup_num, field_num))                                                              \
  FUNCTION(PQnoticeProcessor, PQsetNoticeProcessor,                                                \
           (PGconn * conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg))

#define CPQ_DECLARE(result, name, parameters, arguments) result c##name parameters;
CPQ_FUNCTIONS(CPQ_DECLARE)
#undef CPQ_DECLARE

/// Sends no notice to stderr: PostgreSQL's notices ("relation already exists, skipping") are
/// not the process's to print, and stderr is the host's.
void cpq_ignore_notices(PGconn *conn);

#endif
