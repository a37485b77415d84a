/// Marks an action enum whose cases travel as a dotted case path.
///
/// Every action enum of a feature conforms, so that a child action embedded in a parent case
/// (`case counter(CounterAction)`) reads on the wire as one dotted type, mirroring TCA's
/// `\.counter.incrTapped`:
///
/// ```json
/// {"type": "counter.nthPrimeResponse", "value": 17}
/// ```
///
/// Conform with the ``ComposableAction()`` macro, which also describes each case from its
/// declaration: its documentation comment says what it does, and ``SentByEffect()`` marks the
/// cases only the store's effects send. The synthesized `Codable` conformance is the wire form;
/// the protocol layer translates it to and from the wire shape, through the decoding and the
/// encoding the macro writes where it is used.
public protocol ComposableAction: Codable, Sendable {
  /// Each case by its wire type, child actions' cases spelled out as dotted types, with who
  /// sends it and what it does. Written by the ``ComposableAction()`` macro; empty for an enum
  /// that conforms without it.
  static var describedCases: [DescribedActionCase] { get }

  /// Reads the action from its wire form, case by case: the decoding the ``ComposableAction()``
  /// macro writes for the enum, so that an action is read without driving its synthesized
  /// `Decodable` through a `Decoder` (whose keyed containers cost the most per action). Without
  /// the macro, the synthesized `Decodable` is driven instead. The protocol layer calls it.
  static func decodeAction(from reader: inout some ActionWireReader) throws -> Self

  /// Writes the action in its wire form, case by case: the encoding the ``ComposableAction()``
  /// macro writes for the enum, so that an action is written without driving its synthesized
  /// `Encodable` through an `Encoder` (whose keyed containers cost the most per action).
  /// Without the macro, the synthesized `Encodable` is driven instead. The protocol layer calls
  /// it.
  func encodeAction(to writer: inout some ActionWireWriter)
}

extension ComposableAction {
  public static var describedCases: [DescribedActionCase] { [] }

  public static func decodeAction(from reader: inout some ActionWireReader) throws -> Self {
    try reader.decodeSynthesized(Self.self)
  }

  public func encodeAction(to writer: inout some ActionWireWriter) {
    writer.encodeSynthesized(self)
  }
}

/// What the decoding the ``ComposableAction()`` macro writes reads an action from: the dotted
/// type path, one case name per level, and the wire object's fields, named as synthesized
/// `Codable` names the case's values (the label, or `_0`, `_1`, … by position).
///
/// The protocol layer implements it; every rule of the wire form (strictness, `value` for a
/// lone unlabelled value, error messages) lives there, so that the written decoding and the
/// synthesized `Decodable` read every action alike.
public protocol ActionWireReader {
  /// The next case name of the type path, for an enum of type `action`; throws when the path
  /// has none left (the case that holds `action` was the last).
  mutating func nextCaseName(of action: Any.Type) throws -> String
  /// Notes that the case name just read is the case declared as `name`, and returns the level
  /// to read that case's values at.
  mutating func enterCase(_ name: String) -> Int
  /// The error for a case name that names no case of `action`.
  func unknownCase(of action: Any.Type) -> any Error
  /// The case's value named `key`: the child action the rest of the path names when it is the
  /// first unlabelled value (`_0`) and an action itself, else a field.
  mutating func value<Value: Decodable>(_ type: Value.Type, key: String, level: Int) throws
    -> Value
  /// `value(_:key:level:)` for a value declared optional: a field that is `null`, or, for a
  /// child action, a path that ends at this case, is nil.
  mutating func valueIfPresent<Value: Decodable>(_ type: Value.Type, key: String, level: Int)
    throws -> Value?
  /// `value(_:key:level:)` for a value declared as an action, which need not be looked up
  /// at run time: the child action, or a field holding an action in its own wire form.
  mutating func value<Action: ComposableAction>(_ type: Action.Type, key: String, level: Int)
    throws -> Action
  /// `valueIfPresent(_:key:level:)` for a value declared as an optional action.
  mutating func valueIfPresent<Action: ComposableAction>(
    _ type: Action.Type, key: String, level: Int
  ) throws -> Action?
  /// Reads an action of type `action` through its synthesized `Decodable`.
  mutating func decodeSynthesized<Action: ComposableAction>(_ action: Action.Type) throws
    -> Action
}

/// Where the encoding the ``ComposableAction()`` macro writes puts an action: the case name of
/// each level, then each value of the case under the name synthesized `Codable` gives it (the
/// label, or `_0`, `_1`, … by position), in declaration order.
///
/// The protocol layer implements it; every rule of the wire form (a child action under `_0`
/// continuing the path, an action in any other value written in its own object form, `value`
/// for a lone unlabelled value, `null` for nil, the names a field may not take) lives there, so
/// that the written encoding and the synthesized `Encodable` write every action alike. A value
/// that cannot be written (a hand-written `Encodable` that fails) stops the program: the action
/// type does not have the shape the wire form needs.
public protocol ActionWireWriter {
  /// Extends the type path with the case declared as `name`.
  mutating func appendCase(_ name: String)
  /// Writes the case's value named `key`: the child action when it is the first unlabelled
  /// value (`_0`) and an action itself, an action in its own wire form under any other name,
  /// else a field.
  mutating func field<Value: Encodable>(_ value: Value, key: String)
  /// `field(_:key:)` for a value declared optional: nil is a field that is `null`, or, for a
  /// child action, a path that ends at this case.
  mutating func fieldIfPresent<Value: Encodable>(_ value: Value?, key: String)
  /// `field(_:key:)` for a value declared as an action, which need not be looked up at run
  /// time: the child action, or a field holding the action in its own wire form.
  mutating func field<Action: ComposableAction>(_ action: Action, key: String)
  /// `fieldIfPresent(_:key:)` for a value declared as an optional action.
  mutating func fieldIfPresent<Action: ComposableAction>(_ action: Action?, key: String)
  /// `field(_:key:)` for the commonest values, written without an encoder.
  mutating func field(_ value: Int, key: String)
  /// `field(_:key:)` for the commonest values, written without an encoder.
  mutating func field(_ value: String, key: String)
  /// `field(_:key:)` for the commonest values, written without an encoder.
  mutating func field(_ value: Bool, key: String)
  /// `fieldIfPresent(_:key:)` for the commonest values, written without an encoder.
  mutating func fieldIfPresent(_ value: Int?, key: String)
  /// `fieldIfPresent(_:key:)` for the commonest values, written without an encoder.
  mutating func fieldIfPresent(_ value: String?, key: String)
  /// `fieldIfPresent(_:key:)` for the commonest values, written without an encoder.
  mutating func fieldIfPresent(_ value: Bool?, key: String)
  /// Writes `action` through its synthesized `Encodable`.
  mutating func encodeSynthesized<Action: ComposableAction>(_ action: Action)
}

/// Who sends an action in normal operation. Hosts may send any action in a scenario (to test a
/// reducer step by step), but in `run` only `host` actions: the others are the effects' answers.
public enum ActionSender: String, Sendable {
  /// A host: a screen's button, a client's call.
  case host
  /// The store's own effects: an answer, a timer's tick.
  case effect
}

/// One case of an action enum as ``ComposableAction/describedCases`` lists it.
public struct DescribedActionCase: Equatable, Sendable {
  /// The dotted wire type, `"counter.incrTapped"`.
  public let type: String
  /// Nil where the case leaves it to the case that holds its enum (as ``IdentifiedAction``'s
  /// `element` does): `rows.element` is sent by whoever sends `rows`.
  public let sentBy: ActionSender?
  /// What it does, from the case's documentation comment; nil as ``sentBy``.
  public let summary: String?

  public init(_ type: String, sentBy: ActionSender?, summary: String?) {
    self.type = type
    self.sentBy = sentBy
    self.summary = summary
  }

  /// A case whose first value is no action: itself.
  public static func `case`<Value>(
    _ name: String, firstValue _: Value.Type, sentBy: ActionSender, summary: String?
  ) -> [Self] {
    [Self(name, sentBy: sentBy, summary: summary)]
  }

  /// A case whose first value is an action: that action's cases under its name. Each is sent
  /// by effects if either case says so, and its summary is this case's then its own.
  public static func `case`<Child: ComposableAction>(
    _ name: String, firstValue _: Child.Type, sentBy: ActionSender, summary: String?
  ) -> [Self] {
    Child.describedCases.map { child in
      let summaries = [summary, child.summary].compactMap { $0 }
      return Self(
        "\(name).\(child.type)", sentBy: sentBy == .effect ? .effect : child.sentBy ?? sentBy,
        summary: summaries.isEmpty ? nil : summaries.joined(separator: " "))
    }
  }

  /// A case with no value, or whose first value is labelled: itself.
  public static func `case`(_ name: String, sentBy: ActionSender, summary: String?) -> [Self] {
    [Self(name, sentBy: sentBy, summary: summary)]
  }
}

/// Conforms an action enum to ``ComposableAction`` and describes its cases: each case's
/// documentation comment is its summary (in `describe`, the schemas and the MCP tools), and
/// a case marked ``SentByEffect()`` is one only the store's effects send; the others a host
/// sends.
///
/// ```swift
/// @ComposableAction
/// public enum CounterAction: Equatable {
///   /// Adds one to count.
///   case incrTapped
///   /// The answer: the prime, or null when there is none.
///   @SentByEffect
///   case nthPrimeResponse(Int?)
/// }
/// ```
///
/// A case whose first value is an unlabelled action (`case counter(CounterAction)`) lists that
/// action's cases under its name, `counter.incrTapped`, so the store's whole list follows from
/// its action type.
///
/// It also writes ``ComposableAction/decodeAction(from:)`` and
/// ``ComposableAction/encodeAction(to:)``: how each case reads from and writes to its wire
/// form, without driving the synthesized `Codable` through the standard library's keyed
/// containers (reading is several times faster so).
@attached(
  extension, conformances: ComposableAction, names: named(describedCases), named(decodeAction),
  named(encodeAction))
public macro ComposableAction() =
  #externalMacro(module: "ComposableMacros", type: "ComposableActionMacro")

/// Marks a case of a ``ComposableAction()`` enum as sent only by the store's effects: a host
/// that sends it in `run` gets an error line.
@attached(peer)
public macro SentByEffect() = #externalMacro(module: "ComposableMacros", type: "SentByEffectMacro")
