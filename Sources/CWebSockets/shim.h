#ifndef CWEBSOCKETS_SHIM_H
#define CWEBSOCKETS_SHIM_H

// libwebsockets' and OpenSSL's declarations, for their types and constants. Nothing links
// either library: CWebSocketsShim loads them on first use and wraps the functions the client
// calls.
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

#endif
