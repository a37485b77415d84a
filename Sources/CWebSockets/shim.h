#ifndef CWEBSOCKETS_SHIM_H
#define CWEBSOCKETS_SHIM_H

#include <libwebsockets.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

/// `LWS_PRE`, the headroom lws_write needs before a payload. It expands to a function-like
/// macro, which Swift cannot import.
static inline size_t cws_lws_pre(void) { return LWS_PRE; }

/// The write type of a close frame: LWS_WRITE_CLOSE in lws's private
/// roles/ws/private-lib-roles-ws.h, which lws_write accepts. The public lws_close_reason path
/// cannot be used in Debian's build (see WebSocketConnection.writeNext).
static inline enum lws_write_protocol cws_lws_write_close(void) {
  return (enum lws_write_protocol)4;
}

/// Why OpenSSL rejected a certificate, from the X509_STORE_CTX that lws hands to
/// LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION (lws only logs it).
static inline const char *cws_certificate_error(void *store_context) {
  return X509_verify_cert_error_string(X509_STORE_CTX_get_error((X509_STORE_CTX *)store_context));
}

/// A TLS client context for lws to use instead of making its own (its settings are macros).
/// Trust anchors are added separately, when the first wss socket needs them.
static inline SSL_CTX *cws_tls_client_context_new(void) {
  SSL_CTX *context = SSL_CTX_new(TLS_client_method());
  if (context) {
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    SSL_CTX_set_options(context, SSL_OP_NO_COMPRESSION);
    SSL_CTX_set_mode(context, SSL_MODE_RELEASE_BUFFERS);
  }
  return context;
}

#endif
