#include "CWebSocketsShim.h"

#include "CLazyLibrary.h"

/// The sonames of Debian's libwebsockets 4.1 and of the OpenSSL 3 it is built against. lws brings
/// in OpenSSL itself; each is opened by name all the same, so that every function is looked up
/// in the library that defines it and a failure names that library.
static const struct {
  const char *websockets, *ssl, *crypto;
} sonames = {"libwebsockets.so.17", "libssl.so.3", "libcrypto.so.3"};

// The OpenSSL functions only this file calls, for the helpers at its end, as
// FUNCTION(library, name).
#define CWS_INTERNAL_FUNCTIONS(FUNCTION)                                                           \
  FUNCTION(ssl, TLS_client_method)                                                                 \
  FUNCTION(ssl, SSL_CTX_new)                                                                       \
  FUNCTION(ssl, SSL_CTX_ctrl)                                                                      \
  FUNCTION(ssl, SSL_CTX_set_options)                                                               \
  FUNCTION(crypto, X509_STORE_CTX_get_error)                                                       \
  FUNCTION(crypto, X509_verify_cert_error_string)

// Each entry has the type of the library's own declaration, so every call through it is checked
// against the library's header.
#define ENTRY(library, name) __typeof__(&name) name;
#define FUNCTION_ENTRY(library, result, name, parameters, arguments) ENTRY(library, name)
#define VOID_FUNCTION_ENTRY(library, name, parameters, arguments) ENTRY(library, name)
static struct {
  CWS_FUNCTIONS(FUNCTION_ENTRY, VOID_FUNCTION_ENTRY)
  CWS_INTERNAL_FUNCTIONS(ENTRY)
} table;

static const char *open_all(void) {
  struct {
    void *websockets, *ssl, *crypto;
  } libraries;
#define OPEN(library) LAZY_LIBRARY_OPEN(libraries.library, sonames.library)
  OPEN(websockets)
  OPEN(ssl)
  OPEN(crypto)
#define RESOLVE(library, name)                                                                     \
  LAZY_LIBRARY_RESOLVE(libraries.library, sonames.library, table.name, #name)
#define RESOLVE_FUNCTION(library, result, name, parameters, arguments) RESOLVE(library, name)
#define RESOLVE_VOID_FUNCTION(library, name, parameters, arguments) RESOLVE(library, name)
  CWS_FUNCTIONS(RESOLVE_FUNCTION, RESOLVE_VOID_FUNCTION)
  CWS_INTERNAL_FUNCTIONS(RESOLVE)
  return NULL;
}

LAZY_LIBRARY_LOADER(cws_load, open_all)

#define DEFINE_FUNCTION(library, result, name, parameters, arguments)                              \
  result cws_##name parameters { return table.name arguments; }
#define DEFINE_VOID_FUNCTION(library, name, parameters, arguments)                                 \
  void cws_##name parameters { table.name arguments; }
CWS_FUNCTIONS(DEFINE_FUNCTION, DEFINE_VOID_FUNCTION)

const char *cws_certificate_error(void *store_context) {
  return table.X509_verify_cert_error_string(
      table.X509_STORE_CTX_get_error((X509_STORE_CTX *)store_context));
}

// SSL_CTX_set_min_proto_version and SSL_CTX_set_mode are macros over SSL_CTX_ctrl, which would
// call OpenSSL's own symbol: they are spelled out.
SSL_CTX *cws_tls_client_context_new(void) {
  SSL_CTX *context = table.SSL_CTX_new(table.TLS_client_method());
  if (context) {
    table.SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
    table.SSL_CTX_set_options(context, SSL_OP_NO_COMPRESSION);
    table.SSL_CTX_ctrl(context, SSL_CTRL_MODE, SSL_MODE_RELEASE_BUFFERS, NULL);
  }
  return context;
}
