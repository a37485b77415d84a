#ifndef CCURLSHIM_H
#define CCURLSHIM_H

// Typed, non-variadic entry points for curl's variadic functions, which Swift cannot call.
//
// This header includes the CCurl module's header rather than <curl/curl.h>: including curl
// here would make this module own curl's declarations, and Swift files importing only CCurl
// would no longer see them. The path is relative because SwiftPM gives C targets no include
// path for the system-library targets they depend on.
#include "../../CCurl/CCurl.h"

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
