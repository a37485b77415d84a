// libcurl, imported into Swift as the CCurl module. C targets that need curl include this file
// (not <curl/curl.h>) so that curl's declarations stay owned by this module.
#include <curl/curl.h>
