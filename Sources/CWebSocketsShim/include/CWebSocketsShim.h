#ifndef CWEBSOCKETSSHIM_H
#define CWEBSOCKETSSHIM_H

// libwebsockets and OpenSSL, loaded when the first WebSocket connects.
//
// Neither is linked: loading them (and the libraries they depend on) at start-up cost every run
// a few milliseconds, though most runs never open a WebSocket. cws_load opens them with dlopen
// instead and resolves the functions below into a table; Swift calls them through the wrappers
// declared here. A direct call of one of their functions would not link, which keeps any from
// slipping in.
//
// The CWebSockets module's header is included by a relative path for the reason given in
// CCurlShim.h: so that this module does not take over its declarations.
#include "../../CWebSockets/shim.h"

/// Loads libwebsockets, libssl and libcrypto, once per process, on whichever thread comes first.
/// Returns NULL when they are ready, else why they cannot be used, naming the library and
/// quoting dlerror; the answer never changes. Nothing else declared here may be called before it
/// returned NULL.
const char *cws_load(void);

// The functions Swift calls, as FUNCTION(library, result, name, parameters, arguments), or
// VOID_FUNCTION(library, name, parameters, arguments) for those without a result, where library
// is websockets, ssl or crypto. Each gets a table entry of the library's own type and a wrapper
// named cws_<name> (cws_lws_write for lws_write).
#define CWS_FUNCTIONS(FUNCTION, VOID_FUNCTION)                                                     \
  FUNCTION(websockets, struct lws_context *, lws_create_context,                                   \
           (const struct lws_context_creation_info *info), (info))                                 \
  VOID_FUNCTION(websockets, lws_context_destroy, (struct lws_context *context), (context))         \
  FUNCTION(websockets, void *, lws_context_user, (struct lws_context *context), (context))         \
  FUNCTION(websockets, struct lws *, lws_client_connect_via_info,                                  \
           (const struct lws_client_connect_info *info), (info))                                   \
  FUNCTION(websockets, struct lws_context *, lws_get_context, (const struct lws *wsi), (wsi))      \
  FUNCTION(websockets, void *, lws_get_opaque_user_data, (const struct lws *wsi), (wsi))           \
  FUNCTION(websockets, int, lws_callback_on_writable, (struct lws *wsi), (wsi))                    \
  FUNCTION(websockets, int, lws_rx_flow_control, (struct lws *wsi, int enable), (wsi, enable))     \
  FUNCTION(websockets, int, lws_write,                                                             \
           (struct lws *wsi, unsigned char *buffer, size_t length,                                 \
            enum lws_write_protocol protocol),                                                     \
           (wsi, buffer, length, protocol))                                                        \
  VOID_FUNCTION(websockets, lws_set_timeout,                                                       \
                (struct lws *wsi, enum pending_timeout reason, int seconds),                       \
                (wsi, reason, seconds))                                                            \
  FUNCTION(websockets, int, lws_frame_is_binary, (struct lws *wsi), (wsi))                         \
  FUNCTION(websockets, int, lws_is_final_fragment, (struct lws *wsi), (wsi))                       \
  FUNCTION(websockets, size_t, lws_remaining_packet_payload, (struct lws *wsi), (wsi))             \
  FUNCTION(websockets, int, lws_hdr_total_length,                                                  \
           (struct lws *wsi, enum lws_token_indexes token), (wsi, token))                          \
  FUNCTION(websockets, int, lws_hdr_copy,                                                          \
           (struct lws *wsi, char *buffer, int length, enum lws_token_indexes token),              \
           (wsi, buffer, length, token))                                                           \
  FUNCTION(websockets, unsigned int, lws_http_client_http_response, (struct lws *wsi), (wsi))      \
  VOID_FUNCTION(websockets, lws_set_log_level,                                                     \
                (int level, void (*emit)(int level, const char *line)), (level, emit))             \
  VOID_FUNCTION(ssl, SSL_CTX_free, (SSL_CTX *context), (context))                                  \
  FUNCTION(ssl, int, SSL_CTX_load_verify_locations,                                                \
           (SSL_CTX *context, const char *file, const char *directory),                            \
           (context, file, directory))                                                             \
  FUNCTION(ssl, int, SSL_CTX_set_default_verify_paths, (SSL_CTX *context), (context))

#define CWS_DECLARE(library, result, name, parameters, arguments) result cws_##name parameters;
#define CWS_DECLARE_VOID(library, name, parameters, arguments) void cws_##name parameters;
CWS_FUNCTIONS(CWS_DECLARE, CWS_DECLARE_VOID)
#undef CWS_DECLARE
#undef CWS_DECLARE_VOID

/// Why OpenSSL rejected a certificate, from the X509_STORE_CTX that lws hands to
/// LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION (lws only logs it).
const char *cws_certificate_error(void *store_context);

/// A TLS client context for lws to use instead of making its own (its settings are macros).
/// Trust anchors are added separately, when the first wss socket needs them.
SSL_CTX *cws_tls_client_context_new(void);

#endif
