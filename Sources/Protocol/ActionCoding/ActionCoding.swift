import ComposableCore
@_spi(Hosting) import JSON

/// Translates between action enums and their wire form.
///
/// Features declare actions as plain enums with synthesized `Codable`. On the wire an action is
/// an object whose `"type"` is the dotted path of cases, with the leaf case's associated values
/// as sibling fields; a lone unlabelled value is called `"value"`:
///
/// | Swift | wire |
/// |---|---|
/// | `.counter(.incrTapped)` | `{"type":"counter.incrTapped"}` |
/// | `.counter(.nthPrimeResponse(7))` | `{"type":"counter.nthPrimeResponse","value":7}` |
/// | `.favorites(.delete(indices: [1]))` | `{"type":"favorites.delete","indices":[1]}` |
///
/// A case's first unlabelled value continues the path when its type is itself a
/// ``ComposableAction``; every other value is a field. Several unlabelled values keep the
/// synthesized names `_0`, `_1`, …. Fields of all levels share one object, so a parent case that
/// carries values besides its child action must not reuse its child's field names, and no
/// associated value may be labelled `type`.
///
/// Features write no code. An enum declared with `@ComposableAction` is read and written by the
/// code the macro writes (``ComposableAction/decodeAction(from:)`` and
/// ``ComposableAction/encodeAction(to:)``), a switch on each case name that reads the values
/// straight from the wire object or writes them straight to the wire form; any other enum
/// drives the synthesized `Codable` through an encoder and a decoder of the codec's own, the
/// same reader and writer underneath, so both read and write every action alike. Actions with
/// hand-written `Codable` are not supported. The synthesized path costs a microsecond or two
/// per action, mostly in the standard library's generic containers; a payload-free action
/// always decodes to the same value, so callers on a hot path can remember those by type path.
public enum ActionCoding {
  /// Reads an action from its wire form: an object with `"type"` and payload fields, or, for a
  /// payload-free action, the bare type string (`"counter.incrTapped"`).
  ///
  /// Strict: every field of the object must belong to the case, and every value must have the
  /// type the case declares.
  public static func decode<A: ComposableAction>(
    _ type: A.Type, from action: JSONValue
  ) throws(ActionDecodingError) -> A {
    try decodeNoting(A.self, from: action).action
  }

  /// ``decode(_:from:)``, and whether ``encode(_:)`` of the action gives back `action` as it
  /// stands: the same members in the same order, each value of the same kind, so that written
  /// out the two are the same bytes. Where they are, a line can show the action the host sent
  /// rather than encode it again.
  public static func decodeNoting<A: ComposableAction>(
    _ type: A.Type, from action: JSONValue
  ) throws(ActionDecodingError) -> (action: A, roundTrips: Bool) {
    try decodeNoting(A.self, from: action, synthesizedOnly: false)
  }

  /// ``decodeNoting(_:from:)``; with `synthesizedOnly`, through each enum's synthesized
  /// `Decodable` even where the macro wrote the decoding, which tests compare it with.
  static func decodeNoting<A: ComposableAction>(
    _ type: A.Type, from action: JSONValue, synthesizedOnly: Bool
  ) throws(ActionDecodingError) -> (action: A, roundTrips: Bool) {
    let typePath: String
    // The payload fields; the object keeps its `type` member, which the decoder never reads as
    // a field (removing it would copy the object).
    let fields: JSONObject
    switch action {
    case .string(let path):
      typePath = path
      fields = JSONObject()
    case .object(let object):
      guard let type = object["type"] else {
        throw ActionDecodingError(.invalidAction, "action has no \"type\"")
      }
      guard case .string(let path) = type else {
        throw ActionDecodingError(
          .invalidAction, "action \"type\" must be a string, got \(type.briefDescription)")
      }
      typePath = path
      fields = object
    default:
      throw ActionDecodingError(
        .invalidAction,
        "an action must be an object or a type string, got \(action.briefDescription)")
    }
    let decoder = ActionDecoder(
      actionType: A.self, typePath: typePath, fields: fields, synthesizedOnly: synthesizedOnly)
    do {
      let decoded = try decoder.decodeAction(A.self)
      try decoder.finish()
      // The bare type string is encoded as an object.
      let isObject = if case .object = action { true } else { false }
      return (decoded, isObject && decoder.roundTrips)
    } catch let error as ActionDecodingError {
      throw error
    } catch {
      throw ActionDecodingError(.invalidAction, "\(typePath): \(error)")
    }
  }

  /// ``decodeNoting(_:from:)`` of an action object that is text of its line, read straight
  /// from the text; nil where the general path must read it, which is also where it fails.
  static func decodeNoting<A: ComposableAction>(_ type: A.Type, from text: ActionText) -> (
    action: A, roundTrips: Bool
  )? {
    var reader = ActionTextReader(text)
    guard let action = try? A.decodeAction(from: &reader), let roundTrips = try? reader.finish()
    else { return nil }
    return (action, roundTrips)
  }

  /// The wire form of `action`: `"type"` first, then the payload fields in declaration order.
  public static func encode<A: ComposableAction>(_ action: A) -> JSONValue {
    ActionEncoder.object(action, synthesizedOnly: false)
  }

  /// Appends the JSON text of ``encode(_:)`` to `buffer`, without building the object.
  public static func encode<A: ComposableAction>(_ action: A, into buffer: inout [UInt8]) {
    ActionEncoder.write(action, into: &buffer, synthesizedOnly: false)
  }

  /// The dotted case path of `action`, such as `"counter.nthPrimeResponse"`; its payload is not
  /// encoded.
  public static func typePath<A: ComposableAction>(of action: A) -> String {
    ActionEncoder.typePath(of: action)
  }
}
