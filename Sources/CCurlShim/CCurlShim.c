#include "CCurlShim.h"

CURLcode ccurl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
  return curl_easy_setopt(easy, option, value);
}

CURLcode ccurl_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(easy, option, value);
}

CURLcode ccurl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
  return curl_easy_setopt(easy, option, value);
}

CURLcode ccurl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
  return curl_easy_setopt(easy, option, value);
}

CURLcode ccurl_easy_setopt_write_function(CURL *easy, CURLoption option,
                                          curl_write_callback function) {
  return curl_easy_setopt(easy, option, function);
}

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
  return curl_multi_setopt(multi, option, value);
}

CURLMcode ccurl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
  return curl_multi_setopt(multi, option, value);
}

CURLMcode ccurl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback function) {
  return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, function);
}

CURLMcode ccurl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback function) {
  return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, function);
}

CURLcode ccurl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
  return curl_easy_getinfo(easy, info, value);
}

CURLcode ccurl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) {
  return curl_easy_getinfo(easy, info, value);
}

CURLcode ccurl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
  return curl_easy_getinfo(easy, info, value);
}
