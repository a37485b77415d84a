import CLibUV

/// A libuv call that failed, with libuv's (negative) error code.
package struct LoopError: Error, Equatable, CustomStringConvertible {
  /// The libuv error code, e.g. `UV_EPIPE`.
  package let code: Int32
  /// The operation that failed, for messages (`"uv_pipe_open"`).
  package let operation: String

  package init(code: Int32, operation: String) {
    self.code = code
    self.operation = operation
  }

  /// The other end went away (a pipe's reader, a socket's peer): for an output, an ending
  /// rather than a failure.
  package var isPeerGone: Bool {
    code == UV_EPIPE.rawValue || code == UV_ECONNRESET.rawValue
  }

  /// libuv's short error name, e.g. `"EPIPE"`.
  package var name: String { String(cString: uv_err_name(code)) }

  package var description: String {
    "\(operation): \(name) (\(String(cString: uv_strerror(code))))"
  }
}

extension LoopError {
  /// Throws unless `rc` is a success code (libuv returns negative errors).
  static func check(_ rc: Int32, _ operation: String) throws(LoopError) {
    if rc < 0 { throw LoopError(code: rc, operation: operation) }
  }
}
