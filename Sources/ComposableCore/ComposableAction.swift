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
/// the protocol layer translates it to and from the wire shape.
public protocol ComposableAction: Codable, Sendable {
  /// Each case by its wire type, child actions' cases spelled out as dotted types, with who
  /// sends it and what it does. Written by the ``ComposableAction()`` macro; empty for an enum
  /// that conforms without it.
  static var describedCases: [DescribedActionCase] { get }
}

extension ComposableAction {
  public static var describedCases: [DescribedActionCase] { [] }
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
@attached(extension, conformances: ComposableAction, names: named(describedCases))
public macro ComposableAction() =
  #externalMacro(module: "ComposableMacros", type: "ComposableActionMacro")

/// Marks a case of a ``ComposableAction()`` enum as sent only by the store's effects: a host
/// that sends it in `run` gets an error line.
@attached(peer)
public macro SentByEffect() = #externalMacro(module: "ComposableMacros", type: "SentByEffectMacro")
