import ComposableCore
import JSON

/// Builds output lines straight into bytes, in the field order the schemas document.
///
/// Every line the process prints goes through here; the runtime moves the bytes to stdout once
/// per loop iteration. Lines are written by hand rather than through a `JSONValue` because
/// this is the hottest path of the product.
@StoreActor
public final class OutputLines {
  public private(set) var bytes: [UInt8] = []
  /// Gets each `action` line (newline included) as it is written: for `--record`.
  public var didWriteActionLine: ((ArraySlice<UInt8>) -> Void)?
  /// Gets each `effect` line (newline included) as it is written: for `--record`.
  public var didWriteEffectLine: ((ArraySlice<UInt8>) -> Void)?
  private var actionLineStart: Int?

  public init() {
    bytes.reserveCapacity(64 * 1024)
  }

  /// Hands the pending bytes to `sink` and starts a new batch, keeping the buffer's capacity.
  public func drain(into sink: (UnsafeRawBufferPointer) -> Void) {
    guard !bytes.isEmpty else { return }
    bytes.withUnsafeBytes(sink)
    bytes.removeAll(keepingCapacity: true)
  }

  public func ready(protocolVersion: Int, stores: [String], version: String) {
    raw(#"{"type":"ready","protocol":"#)
    JSONWriter.writeInt(protocolVersion, into: &bytes)
    raw(#","stores":["#)
    for (index, store) in stores.enumerated() {
      if index > 0 { raw(",") }
      JSONWriter.writeString(store, into: &bytes)
    }
    raw(#"],"version":"#)
    JSONWriter.writeString(version, into: &bytes)
    raw("}\n")
  }

  /// `{"type":"action","store":"<store>","seq":`: how every action line of a store starts.
  static func actionLinePrefix(store: String) -> [UInt8] {
    var prefix = Array(#"{"type":"action","store":"#.utf8)
    JSONWriter.writeString(store, into: &prefix)
    prefix.append(contentsOf: #","seq":"#.utf8)
    return prefix
  }

  /// `,"source":"host","action":<action>,"patch":`: what a host action line carries between
  /// its `seq` (or `id`) and its patch, for an action sent again and again.
  static func hostActionText(_ action: JSONValue) -> [UInt8] {
    var text: [UInt8] = []
    writeSourceAndAction(.host, nil, action, into: &text)
    return text
  }

  /// Writes everything but the patch of an action line; `patch` closes it. `prefix` is the
  /// store's ``actionLinePrefix(store:)``.
  /// `effect`: the effect that sent an effect's action, written when effects are traced.
  func beginActionLine(
    prefix: [UInt8], seq: Int, id: MessageID?, source: ActionSource, action: JSONValue,
    effect: UInt64? = nil
  ) {
    beginActionLine(prefix: prefix, seq: seq, id: id)
    Self.writeSourceAndAction(source, effect, action, into: &bytes)
  }

  /// The same, with the rest made by ``hostActionText(_:)``.
  func beginActionLine(prefix: [UInt8], seq: Int, id: MessageID?, hostActionText: [UInt8]) {
    beginActionLine(prefix: prefix, seq: seq, id: id)
    bytes.append(contentsOf: hostActionText)
  }

  private func beginActionLine(prefix: [UInt8], seq: Int, id: MessageID?) {
    if didWriteActionLine != nil { actionLineStart = bytes.count }
    bytes.append(contentsOf: prefix)
    JSONWriter.writeInt(seq, into: &bytes)
    optionalID(id)
  }

  private static func writeSourceAndAction(
    _ source: ActionSource, _ effect: UInt64?, _ action: JSONValue, into bytes: inout [UInt8]
  ) {
    if let effect {
      append(#","source":"effect","effect":"#, to: &bytes)
      JSONWriter.writeInt(Int(truncatingIfNeeded: effect), into: &bytes)
      append(#","action":"#, to: &bytes)
    } else {
      append(
        source == .host ? #","source":"host","action":"# : #","source":"effect","action":"#,
        to: &bytes)
    }
    action.write(into: &bytes)
    append(#","patch":"#, to: &bytes)
  }

  func beginStateLine(store: String, seq: Int, actions: Int, ids: [MessageID]) {
    raw(#"{"type":"state","store":"#)
    JSONWriter.writeString(store, into: &bytes)
    raw(#","seq":"#)
    JSONWriter.writeInt(seq, into: &bytes)
    raw(#","actions":"#)
    JSONWriter.writeInt(actions, into: &bytes)
    if !ids.isEmpty {
      raw(#","ids":["#)
      for (index, id) in ids.enumerated() {
        if index > 0 { raw(",") }
        id.write(into: &bytes)
      }
      raw("]")
    }
    raw(#","patch":"#)
  }

  /// Ends an action or state line with the patch `writePatch` appends, a JSON array.
  func patch(_ writePatch: (inout [UInt8]) -> Void) {
    writePatch(&bytes)
    raw("}\n")
    if let start = actionLineStart {
      actionLineStart = nil
      didWriteActionLine?(bytes[start...])
    }
  }

  public func snapshot(store: String, seq: Int, id: MessageID?, state: JSONValue) {
    raw(#"{"type":"snapshot","store":"#)
    JSONWriter.writeString(store, into: &bytes)
    raw(#","seq":"#)
    JSONWriter.writeInt(seq, into: &bytes)
    optionalID(id)
    raw(#","state":"#)
    state.write(into: &bytes)
    raw("}\n")
  }

  public func describe(id: MessageID?, stores: [JSONValue]) {
    raw(#"{"type":"describe","protocol":1"#)
    optionalID(id)
    raw(#","stores":"#)
    JSONValue.array(stores).write(into: &bytes)
    raw("}\n")
  }

  /// Ends an `advance`: `now` is the virtual time since start, in milliseconds.
  public func advanced(ms: Int, now: Int, id: MessageID?) {
    raw(#"{"type":"advanced","ms":"#)
    JSONWriter.writeInt(ms, into: &bytes)
    raw(#","now":"#)
    JSONWriter.writeInt(now, into: &bytes)
    optionalID(id)
    raw("}\n")
  }

  public func settled(id: MessageID?) {
    raw(#"{"type":"settled""#)
    optionalID(id)
    raw("}\n")
  }

  /// `line` is the input line number, or nil for errors no input line caused.
  public func error(_ error: ProtocolError, line: Int?, id: MessageID?) {
    raw(#"{"type":"error","code":"#)
    JSONWriter.writeString(error.code.rawValue, into: &bytes)
    if let line {
      raw(#","line":"#)
      JSONWriter.writeInt(line, into: &bytes)
    }
    optionalID(id)
    raw(#","message":"#)
    JSONWriter.writeString(error.message, into: &bytes)
    raw("}\n")
  }

  public func exit(reason: String, cancelledEffects: Int, signal: String? = nil) {
    raw(#"{"type":"exit","reason":"#)
    JSONWriter.writeString(reason, into: &bytes)
    if let signal {
      raw(#","signal":"#)
      JSONWriter.writeString(signal, into: &bytes)
    }
    raw(#","cancelledEffects":"#)
    JSONWriter.writeInt(cancelledEffects, into: &bytes)
    raw("}\n")
  }

  /// `{"type":"error","code":…,"store":…,"action":…,"id":…,"message":…}`: not a refused line
  /// but something that went wrong with an action the store reduced, such as an effect of
  /// `action` that failed with an error nothing caught (`effect_failed`).
  public func actionError(
    _ code: ErrorCode, store: String, action: JSONValue, id: MessageID?, message: String
  ) {
    raw(#"{"type":"error","code":"#)
    JSONWriter.writeString(code.rawValue, into: &bytes)
    raw(#","store":"#)
    JSONWriter.writeString(store, into: &bytes)
    raw(#","action":"#)
    action.write(into: &bytes)
    optionalID(id)
    raw(#","message":"#)
    JSONWriter.writeString(message, into: &bytes)
    raw("}\n")
  }

  /// `{"type":"effect",…}`: a moment in an effect's life, when effects are traced.
  public func effect(store: String, _ event: EffectEvent, t: Int) {
    let start = bytes.count
    defer { didWriteEffectLine?(bytes[start...]) }
    raw(#"{"type":"effect","store":"#)
    JSONWriter.writeString(store, into: &bytes)
    raw(#","effect":"#)
    JSONWriter.writeInt(Int(truncatingIfNeeded: event.effect), into: &bytes)
    raw(#","event":"#)
    switch event.kind {
    case .started: raw(#""started""#)
    case .sleeping: raw(#""sleeping""#)
    case .finished: raw(#""finished""#)
    case .cancelled: raw(#""cancelled""#)
    case .failed: raw(#""failed""#)
    }
    if let cause = event.cause {
      raw(#","cause":"#)
      JSONWriter.writeInt(cause, into: &bytes)
    }
    raw(#","operator":"#)
    JSONWriter.writeString(event.operation, into: &bytes)
    if let id = event.cancelID {
      raw(#","cancelID":"#)
      JSONWriter.writeString(id.description, into: &bytes)
    }
    switch event.kind {
    case .cancelled(let why):
      raw(#","by":"#)
      cancellation(why)
    case .failed(let message):
      raw(#","error":"#)
      JSONWriter.writeString(message, into: &bytes)
    case .sleeping(let until):
      raw(#","until":"#)
      JSONWriter.writeInt(Int(until / .milliseconds(1)), into: &bytes)
    case .started, .finished:
      break
    }
    raw(#","t":"#)
    JSONWriter.writeInt(t, into: &bytes)
    raw("}\n")
  }

  /// What cancelled an effect: `{"reason":…}`, with the `seq` of the action whose reduction
  /// did, when one did.
  private func cancellation(_ why: EffectCancellation) {
    let (reason, seq): (String, Int?) =
      switch why {
      case .cancelledByID(let seq): ("cancel", seq)
      case .replaced(let seq): ("cancelInFlight", seq)
      case .enclosingEffectCancelled: ("enclosingEffect", nil)
      case .allCancelled(let reason): (reason, nil)
      }
    raw(#"{"reason":"#)
    JSONWriter.writeString(reason, into: &bytes)
    if let seq {
      raw(#","seq":"#)
      JSONWriter.writeInt(seq, into: &bytes)
    }
    raw("}")
  }

  private func optionalID(_ id: MessageID?) {
    guard let id else { return }
    raw(#","id":"#)
    id.write(into: &bytes)
  }

  private func raw(_ text: StaticString) {
    Self.append(text, to: &bytes)
  }

  /// Nonisolated so that its closure is too: a closure isolated to the store actor checks at
  /// run time that it runs there, which costs more than the copy.
  private nonisolated static func append(_ text: StaticString, to bytes: inout [UInt8]) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }
}
