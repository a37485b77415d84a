#ifndef CCURLSHIM_H
#define CCURLSHIM_H

// libcurl, loaded when the first request needs it, and typed entry points for curl's variadic
// functions, which Swift cannot call.
//
// libcurl is not linked: it and the ~30 libraries it depends on (TLS, LDAP, Kerberos, SSH, ...)
// took several milliseconds of every start-up, for nothing in the runs that make no request.
// ccurl_load opens it with dlopen instead and resolves the functions below into a table; Swift
// calls them through the wrappers declared here. A direct call of a curl function would not
// link, which keeps any from slipping in.
//
// This header includes the CCurl module's header rather than <curl/curl.h>: including curl
// here would make this module own curl's declarations, and Swift files importing only CCurl
// would no longer see them. The path is relative because SwiftPM gives C targets no include
// path for the system-library targets they depend on.
#include "../../CCurl/CCurl.h"

/// Loads libcurl and runs curl_global_init (which is not thread-safe itself), once per process,
/// on whichever thread comes first. Returns NULL when curl is ready, else why it cannot be used,
/// naming the library and quoting dlerror; the answer never changes. Nothing else declared here
/// may be called before it returned NULL.
const char *ccurl_load(void);

// The curl functions Swift calls, as FUNCTION(result, name, parameters, arguments), or
// VOID_FUNCTION(name, parameters, arguments) for those without a result. Each gets a table entry
// of curl's own type and a wrapper named c<name> (ccurl_easy_init for curl_easy_init).
#define CCURL_FUNCTIONS(FUNCTION, VOID_FUNCTION)                                                   \
  FUNCTION(CURL *, curl_easy_init, (void), ())                                                     \
  VOID_FUNCTION(curl_easy_cleanup, (CURL *easy), (easy))                                           \
  FUNCTION(const char *, curl_easy_strerror, (CURLcode code), (code))                              \
  VOID_FUNCTION(curl_free, (void *memory), (memory))                                               \
  FUNCTION(CURLM *, curl_multi_init, (void), ())                                                   \
  FUNCTION(CURLMcode, curl_multi_cleanup, (CURLM *multi), (multi))                                 \
  FUNCTION(CURLMcode, curl_multi_add_handle, (CURLM *multi, CURL *easy), (multi, easy))            \
  FUNCTION(CURLMcode, curl_multi_remove_handle, (CURLM *multi, CURL *easy), (multi, easy))         \
  FUNCTION(CURLMcode, curl_multi_socket_action,                                                    \
           (CURLM *multi, curl_socket_t fd, int events, int *running),                             \
           (multi, fd, events, running))                                                           \
  FUNCTION(CURLMsg *, curl_multi_info_read, (CURLM *multi, int *queued), (multi, queued))          \
  FUNCTION(const char *, curl_multi_strerror, (CURLMcode code), (code))                            \
  FUNCTION(CURLU *, curl_url, (void), ())                                                          \
  VOID_FUNCTION(curl_url_cleanup, (CURLU *url), (url))                                             \
  FUNCTION(CURLUcode, curl_url_set,                                                                \
           (CURLU *url, CURLUPart part, const char *value, unsigned int flags),                    \
           (url, part, value, flags))                                                              \
  FUNCTION(CURLUcode, curl_url_get,                                                                \
           (CURLU *url, CURLUPart part, char **value, unsigned int flags),                         \
           (url, part, value, flags))                                                              \
  FUNCTION(const char *, curl_url_strerror, (CURLUcode code), (code))                             \
  FUNCTION(struct curl_slist *, curl_slist_append, (struct curl_slist * list, const char *line),  \
           (list, line))                                                                           \
  VOID_FUNCTION(curl_slist_free_all, (struct curl_slist * list), (list))

#define CCURL_DECLARE(result, name, parameters, arguments) result c##name parameters;
#define CCURL_DECLARE_VOID(name, parameters, arguments) void c##name parameters;
CCURL_FUNCTIONS(CCURL_DECLARE, CCURL_DECLARE_VOID)
#undef CCURL_DECLARE
#undef CCURL_DECLARE_VOID

CURLcode ccurl_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode ccurl_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value);
/// For string options, which curl copies; NULL resets the option to its built-in default.
CURLcode ccurl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
/// For data pointers (CURLOPT_PRIVATE, CURLOPT_WRITEDATA, CURLOPT_ERRORBUFFER, ...).
CURLcode ccurl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share a signature.
CURLcode ccurl_easy_setopt_write_function(CURL *easy, CURLoption option,
                                          curl_write_callback function);

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode ccurl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value);
CURLMcode ccurl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback function);
CURLMcode ccurl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback function);

CURLcode ccurl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode ccurl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value);
CURLcode ccurl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value);

#endif
