import CWebSockets
import CWebSocketsShim
import Synchronization

/// Makes lws answer every ping of a burst, by letting it parse one ping per pong written.
///
/// lws 4.1 keeps room for one pong: a ping it parses while that pong still waits to be written
/// is dropped (client-parser-ws.c), so ten pings read at once got one pong, the first one's.
/// It offers no ping callback, but it logs each ping it parses, in the middle of parsing the
/// read. At that line every open socket's input is paused: lws keeps the rest of the read for
/// later, writes the pong at the next writable event, and only then calls the socket's own
/// writable callback, which resumes the input. One loop pass per ping; nothing is dropped.
///
/// The line names no socket, so all open sockets pause; the others resume at their next
/// writable event, requested here, one loop pass later. Everything runs on the loop thread; the
/// lock is for Swift's checker.
enum PongPacing {
  /// lws 4.1's line for a parsed ping (LLL_INFO).
  static let pingLine: StaticString = "byte ping, sending pong"

  /// `wsi` is open: a ping may arrive on it.
  static func opened(_ wsi: OpaquePointer) {
    sockets.withLock { _ = $0.open.insert(UInt(bitPattern: wsi)) }
  }

  /// lws is closing `wsi`: it must not be touched again.
  static func closed(_ wsi: OpaquePointer) {
    sockets.withLock {
      $0.open.remove(UInt(bitPattern: wsi))
      $0.paused.remove(UInt(bitPattern: wsi))
    }
  }

  /// lws logged a ping it is parsing (on one of the open sockets).
  static func pingParsed() {
    // Outside the lock: lws logs from inside these calls, which lands here again.
    let pausing = sockets.withLock { sockets in
      let pausing = sockets.open.subtracting(sockets.paused)
      sockets.paused.formUnion(pausing)
      return pausing
    }
    for address in pausing {
      let wsi = OpaquePointer(bitPattern: address)!
      _ = cws_lws_rx_flow_control(wsi, disable | reason)
      _ = cws_lws_callback_on_writable(wsi)
    }
  }

  /// lws called `wsi`'s writable callback: any pong of a paused burst is out.
  static func writable(_ wsi: OpaquePointer) {
    guard sockets.withLock({ $0.paused.remove(UInt(bitPattern: wsi)) != nil }) else { return }
    _ = cws_lws_rx_flow_control(wsi, enable | reason)
    // As after any pause, lws parses what it kept only when it services the socket again.
    _ = cws_lws_callback_on_writable(wsi)
  }

  /// A reason bit of lws's rx flow control of its own, so this pause and the one for a slow
  /// receiver (WebSocketConnection) lift independently: input flows when no bit is set. Bit 0
  /// is lws's "user bool", bits 6 and 7 are lws's own.
  private static let reason: Int32 = 1 << 1
  private static let disable = Int32(LWS_RXFLOW_REASON_APPLIES_DISABLE)
  private static let enable = Int32(LWS_RXFLOW_REASON_APPLIES_ENABLE)
}

private let sockets = Mutex<(open: Set<UInt>, paused: Set<UInt>)>(([], []))
