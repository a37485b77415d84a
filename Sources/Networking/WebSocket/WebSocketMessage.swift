/// A complete WebSocket message, reassembled from all of its fragments.
package enum WebSocketMessage: Sendable, Equatable {
  /// A text message; its bytes were checked to be UTF-8.
  case text(String)
  case binary([UInt8])
}

extension WebSocketMessage {
  /// The payload's size: UTF-8 bytes for text.
  var byteCount: Int {
    switch self {
    case .text(let text): text.utf8.count
    case .binary(let bytes): bytes.count
    }
  }
}
