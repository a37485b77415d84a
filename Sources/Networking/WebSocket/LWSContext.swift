import CLibUV
import CWebSockets
import CWebSocketsShim
import Glibc

/// One libwebsockets client context living on the product's libuv loop, which lws calls a
/// foreign loop: lws adds its own handles (an idle, a timer, a poll per socket and one for its
/// wake-up pipe) and never runs the loop itself.
///
/// Teardown takes two calls (lws 4.1.6, foreign loop). `beginDestroy` closes every connection
/// and then lws's handles, whose close callbacks run in later loop iterations; the memory those
/// handles live in belongs to the context, so `finishDestroy`, which frees it, must wait until
/// `hasHandlesOnLoop` is false. Neither may run inside an lws callback. Loop thread only.
final class LWSContext {
  let pointer: OpaquePointer
  private let uvLoop: UnsafeMutablePointer<uv_loop_t>
  private let protocols: UnsafeMutablePointer<lws_protocols>
  private let protocolName: UnsafeMutablePointer<CChar>
  private let foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  private let owner: Unmanaged<AnyObject>

  /// The name the one protocol is registered under; sockets bind to it whatever subprotocol the
  /// server selects.
  static let protocolName = "composable-actor"

  /// Creates the context. `owner` comes back from `lws_context_user` in callbacks and is kept
  /// alive until `finishDestroy`, so no callback can reach a freed owner. `tls` must outlive
  /// the context.
  init(
    uvLoop: UnsafeMutablePointer<uv_loop_t>, owner: AnyObject, tls: TLSClientContext,
    configuration: WebSocketConfiguration
  ) throws(LWSContextError) {
    LWSLog.install()
    self.uvLoop = uvLoop
    protocolName = strdup(Self.protocolName)
    protocols = .allocate(capacity: 2)
    protocols.initialize(repeating: lws_protocols(), count: 2)
    protocols[0].name = UnsafePointer(protocolName)
    protocols[0].callback = webSocketProtocolCallback
    protocols[0].rx_buffer_size = 64 * 1024
    foreignLoops = .allocate(capacity: 1)
    foreignLoops.initialize(to: UnsafeMutableRawPointer(uvLoop))
    self.owner = Unmanaged.passRetained(owner)

    var info = lws_context_creation_info()
    info.port = CONTEXT_PORT_NO_LISTEN
    info.protocols = UnsafePointer(protocols)
    info.gid = -1
    info.uid = -1
    info.options = UInt64(LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
    info.provided_client_ssl_ctx = tls.pointer
    info.foreign_loops = foreignLoops
    info.user = self.owner.toOpaque()
    info.fd_limit_per_thread = UInt32(configuration.maximumConnections + 4)
    // lws's own connect-phase timeouts must not beat the configured one, which reports better.
    info.timeout_secs = UInt32(configuration.connectTimeout.components.seconds + 5)
    guard let created = cws_lws_create_context(&info) else {
      Self.release(protocols, protocolName, foreignLoops, self.owner)
      throw LWSContextError(description: "cannot create the libwebsockets context")
    }
    pointer = created
  }

  /// Starts a client connection to `address` (numeric), asking for `url`; nil if lws gave up
  /// at once. `token` becomes the connection's `opaque_user_data`.
  func connect(address: String, url: WebSocketURL, protocols: [String], token: Int)
    -> OpaquePointer?
  {
    var info = lws_client_connect_info()
    info.context = pointer
    info.port = Int32(url.port)
    info.ssl_connection = url.isSecure ? Int32(LCCSCF_USE_SSL.rawValue) : 0
    info.ietf_version_or_minus_one = -1
    info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: token)
    // lws copies every string into the connection before returning.
    return address.withCString { address in
      url.resource.withCString { path in
        url.hostHeader.withCString { host in
          Self.protocolName.withCString { local in
            withOptionalCString(protocols.isEmpty ? nil : protocols.joined(separator: ", ")) {
              info.address = address
              info.path = path
              info.host = host
              info.local_protocol_name = local
              info.protocol = $0
              return cws_lws_client_connect_via_info(&info)
            }
          }
        }
      }
    }
  }

  /// The first `lws_context_destroy`: closes all connections and starts closing lws's handles.
  func beginDestroy() {
    cws_lws_context_destroy(pointer)
  }

  /// Whether lws's own handles are still on the loop (they carry the context as their data);
  /// while they are, their close callbacks have not run and the context must stay allocated.
  var hasHandlesOnLoop: Bool {
    var search = HandleSearch(data: UnsafeMutableRawPointer(pointer))
    uv_walk(uvLoop, findHandle, &search)
    return search.found
  }

  /// The second `lws_context_destroy`, which frees the context, then the memory lws read.
  func finishDestroy() {
    cws_lws_context_destroy(pointer)
    Self.release(protocols, protocolName, foreignLoops, owner)
  }

  private static func release(
    _ protocols: UnsafeMutablePointer<lws_protocols>, _ protocolName: UnsafeMutablePointer<CChar>,
    _ foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ owner: Unmanaged<AnyObject>
  ) {
    protocols.deinitialize(count: 2)
    protocols.deallocate()
    foreignLoops.deinitialize(count: 1)
    foreignLoops.deallocate()
    free(protocolName)
    owner.release()
  }
}

struct LWSContextError: Error, CustomStringConvertible {
  let description: String
}

private struct HandleSearch {
  let data: UnsafeMutableRawPointer
  var found = false
}

private func findHandle(
  _ handle: UnsafeMutablePointer<uv_handle_t>?, _ arg: UnsafeMutableRawPointer?
) {
  let search = arg!.assumingMemoryBound(to: HandleSearch.self)
  if handle?.pointee.data == search.pointee.data { search.pointee.found = true }
}

/// Runs `body` with a C string for `string`, or with nil.
private func withOptionalCString<T>(
  _ string: String?, _ body: (UnsafePointer<CChar>?) -> T
) -> T {
  guard let string else { return body(nil) }
  return string.withCString(body)
}
