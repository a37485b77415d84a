/// Why an input action was rejected.
public struct ActionDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Kind: Sendable, Hashable {
    /// The type path names no case: `"counter.nope"`, `"nope"`, `"counter"` where `counter`
    /// needs a child action, or `"counter.incrTapped.more"` past a leaf.
    case unknownAction
    /// The action is malformed: no `type`, a `type` that is not a string, a missing, mistyped
    /// or unexpected payload field, or a number out of range.
    case invalidAction
  }

  public let kind: Kind
  /// One line for people, naming the action type and the field at fault:
  /// `counter.nthPrimeResponse: field "value": expected an integer or null, got "x"`.
  public let message: String

  init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }
}
