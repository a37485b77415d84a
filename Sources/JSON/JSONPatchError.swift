/// Why a patch could not be read or applied.
@_spi(Hosting)
public struct JSONPatchError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Kind: Sendable, Hashable {
    /// An operation object is malformed: unknown `op`, missing or mistyped member.
    case invalidOperation
    /// A `path` or `from` is not a valid JSON Pointer.
    case invalidPointer
    /// A pointer names a value that does not exist (or whose parent does not exist).
    case pathNotFound
    /// A `test` operation found a different value.
    case testFailed
  }

  public let kind: Kind
  public let message: String
  /// The position of the failing operation in the patch, when applying one.
  package internal(set) var operationIndex: Int?

  init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String {
    operationIndex.map { "operation \($0): \(message)" } ?? message
  }
}
