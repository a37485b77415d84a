import CWebSockets
import CWebSocketsShim
import Glibc

/// Routes libwebsockets' log to stderr, errors only, one prefixed line each.
///
/// Every failure a caller can act on already comes back through the API with a reason; lws's
/// own notices would only interleave with the product's logs. The setting is process-wide.
enum LWSLog {
  static func install() {
    _ = installed
  }

  private static let installed: Void = {
    cws_lws_set_log_level(LLL_ERR, emitLWSLine)
  }()
}

private func emitLWSLine(_ level: Int32, _ line: UnsafePointer<CChar>?) {
  guard let line else { return }
  let text = "libwebsockets: " + String(cString: line)
  _ = text.utf8CString.withUnsafeBufferPointer {
    write(STDERR_FILENO, $0.baseAddress, $0.count - 1)
  }
}
