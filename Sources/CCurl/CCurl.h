// libcurl's declarations, imported into Swift as the CCurl module for its types and constants.
// Nothing links libcurl: CCurlShim loads it on first use. C targets that need curl include this
// file (not <curl/curl.h>) so that curl's declarations stay owned by this module.
#include <curl/curl.h>
