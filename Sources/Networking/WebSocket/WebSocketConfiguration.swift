/// Settings shared by every socket of one `WebSocketClient`.
package struct WebSocketConfiguration: Sendable {
  /// A PEM file of the certificate authorities to trust for wss, instead of the system store
  /// (what `--ca-file` passes). Certificates are always verified, host names included.
  package var caFile: String?
  /// The largest message accepted, in bytes, after reassembling its fragments; a larger one
  /// closes the socket with 1009 and fails `receive` with `WebSocketError.messageTooBig`.
  package var maximumMessageSize: Int
  /// How many bytes of received messages may wait for their receiver before the socket stops
  /// reading; it reads again once half of them were taken. TCP then slows the server down.
  package var maximumWaitingBytes: Int
  /// How long resolving, connecting, the TLS handshake and the opening handshake may take
  /// together before the socket closes with 1006.
  package var connectTimeout: Duration
  /// How many sockets may be connected at once. libwebsockets sizes its tables by this instead
  /// of by the process's file descriptor limit.
  package var maximumConnections: Int
  /// How long the libwebsockets context outlives the last socket, so that reconnecting reuses
  /// it. While it lives it keeps the loop running; `WebSocketClient.shutdown()` ends it at once.
  ///
  /// Each new context costs ~2 ms and leaves ~250 bytes behind in libwebsockets and OpenSSL
  /// (measured over 4,000 contexts), which a reconnect loop without this would pay every time.
  package var idleContextLifetime: Duration

  package init(
    caFile: String? = nil, maximumMessageSize: Int = 16 * 1024 * 1024,
    maximumWaitingBytes: Int = 1024 * 1024,
    connectTimeout: Duration = .seconds(10), maximumConnections: Int = 256,
    idleContextLifetime: Duration = .seconds(10)
  ) {
    self.caFile = caFile
    self.maximumMessageSize = maximumMessageSize
    self.maximumWaitingBytes = maximumWaitingBytes
    self.connectTimeout = connectTimeout
    self.maximumConnections = maximumConnections
    self.idleContextLifetime = idleContextLifetime
  }
}
