import CWebSockets
import CWebSocketsShim
import Glibc
import Synchronization

/// Routes libwebsockets' log: errors to stderr, one prefixed line each; the lines that say a
/// server broke the protocol, kept for the socket that lws fails because of it; and the line of
/// each ping lws parses, for `PongPacing`.
///
/// Every other failure a caller can act on comes back through the API with a reason, and lws's
/// notices would only interleave with the product's logs. But when lws finds a protocol error in
/// a frame (a reserved opcode or bit, a fragmented control frame, …) it drops the connection at
/// once, with no callback that says why; its log line, written just before, is the only trace.
/// The setting is process-wide.
enum LWSLog {
  static func install() {
    _ = installed
  }

  /// Why lws is failing a connection, if it logged a protocol violation since the last call.
  /// lws logs it and then closes that connection in the same call on the loop thread, so the
  /// next callback, the one that says lws is closing it, is the connection it belongs to: every
  /// callback takes it, and only that one keeps it.
  static func takeViolation() -> String? {
    pendingViolation.withLock { violation in
      defer { violation = nil }
      return violation
    }
  }

  private static let installed: Void = {
    cws_lws_set_log_level(LLL_ERR | LLL_WARN | LLL_INFO, emitLWSLine)
  }()

  /// lws 4.1's log lines (client-parser-ws.c) before it drops a connection whose server broke
  /// RFC 6455, and how the socket reports each.
  fileprivate static let violations: [(line: StaticString, reason: String)] = [
    ("illegal opcode", "the server sent a frame with a reserved opcode"),
    ("illegal rsv bits set", "the server set reserved bits with no extension negotiated"),
    ("disordered continuation", "the server sent a continuation frame with no message to continue"),
    ("hey you owed us a FIN", "the server started a message inside a fragmented one"),
    ("control msg can't be fragmented", "the server fragmented a control frame"),
    ("Control frame asking for extended length", "the server sent a control frame over 125 bytes"),
    ("b63 of length must be zero", "the server sent a frame length with its top bit set"),
  ]
}

private let pendingViolation = Mutex<String?>(nil)

private func emitLWSLine(_ level: Int32, _ line: UnsafePointer<CChar>?) {
  guard let line else { return }
  guard level == LLL_ERR else {
    // lws writes an info line for every frame it sends: only a match costs more than a search.
    if strstr(line, cString(PongPacing.pingLine)) != nil {
      PongPacing.pingParsed()
      return
    }
    let found = LWSLog.violations.first { strstr(line, cString($0.line)) != nil }
    if let found { pendingViolation.withLock { $0 = found.reason } }
    return
  }
  let prefixed = "libwebsockets: " + String(cString: line)
  _ = prefixed.utf8CString.withUnsafeBufferPointer {
    write(STDERR_FILENO, $0.baseAddress, $0.count - 1)
  }
}

/// A literal's `utf8Start` is null-terminated, and UInt8 memory may be read as CChar.
private func cString(_ literal: StaticString) -> UnsafePointer<CChar> {
  UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)
}
