#include "CCurlShim.h"

#include "CLazyLibrary.h"

/// libcurl's soname since 7.16, whichever TLS library it was built with.
static const char soname[] = "libcurl.so.4";

// The curl functions only this file calls: the variadic ones behind the typed wrappers, and
// curl_global_init.
#define CCURL_INTERNAL_FUNCTIONS(FUNCTION)                                                         \
  FUNCTION(curl_global_init)                                                                       \
  FUNCTION(curl_easy_setopt)                                                                       \
  FUNCTION(curl_easy_getinfo)                                                                      \
  FUNCTION(curl_multi_setopt)

// Each entry has the type of curl's own declaration, so every call through it is checked
// against curl's header.
#define ENTRY(name) __typeof__(&name) name;
#define FUNCTION_ENTRY(result, name, parameters, arguments) ENTRY(name)
#define VOID_FUNCTION_ENTRY(name, parameters, arguments) ENTRY(name)
static struct {
  CCURL_FUNCTIONS(FUNCTION_ENTRY, VOID_FUNCTION_ENTRY)
  CCURL_INTERNAL_FUNCTIONS(ENTRY)
} curl;

static const char *open_and_initialize(void) {
  void *library;
  LAZY_LIBRARY_OPEN(library, soname)
#define RESOLVE(name) LAZY_LIBRARY_RESOLVE(library, soname, curl.name, #name)
#define RESOLVE_FUNCTION(result, name, parameters, arguments) RESOLVE(name)
#define RESOLVE_VOID_FUNCTION(name, parameters, arguments) RESOLVE(name)
  CCURL_FUNCTIONS(RESOLVE_FUNCTION, RESOLVE_VOID_FUNCTION)
  CCURL_INTERNAL_FUNCTIONS(RESOLVE)
  CURLcode code = curl.curl_global_init(CURL_GLOBAL_DEFAULT);
  if (code != CURLE_OK) return lazy_library_failure(soname, curl.curl_easy_strerror(code));
  return NULL;
}

LAZY_LIBRARY_LOADER(ccurl_load, open_and_initialize)

#define DEFINE_FUNCTION(result, name, parameters, arguments)                                       \
  result c##name parameters { return curl.name arguments; }
#define DEFINE_VOID_FUNCTION(name, parameters, arguments)                                          \
  void c##name parameters { curl.name arguments; }
CCURL_FUNCTIONS(DEFINE_FUNCTION, DEFINE_VOID_FUNCTION)

CURLcode ccurl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
  return curl.curl_easy_setopt(easy, option, value);
}

CURLcode ccurl_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value) {
  return curl.curl_easy_setopt(easy, option, value);
}

CURLcode ccurl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
  return curl.curl_easy_setopt(easy, option, value);
}

CURLcode ccurl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
  return curl.curl_easy_setopt(easy, option, value);
}

CURLcode ccurl_easy_setopt_write_function(CURL *easy, CURLoption option,
                                          curl_write_callback function) {
  return curl.curl_easy_setopt(easy, option, function);
}

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
  return curl.curl_multi_setopt(multi, option, value);
}

CURLMcode ccurl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
  return curl.curl_multi_setopt(multi, option, value);
}

CURLMcode ccurl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback function) {
  return curl.curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, function);
}

CURLMcode ccurl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback function) {
  return curl.curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, function);
}

CURLcode ccurl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
  return curl.curl_easy_getinfo(easy, info, value);
}

CURLcode ccurl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) {
  return curl.curl_easy_getinfo(easy, info, value);
}

CURLcode ccurl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
  return curl.curl_easy_getinfo(easy, info, value);
}
