import ComposableCore
@_spi(Hosting) import JSON

/// Builds output lines straight into bytes, in the field order the schemas document.
///
/// Every line the process prints goes through here; the runtime moves the bytes to stdout once
/// per loop iteration. Lines are written by hand rather than through a `JSONValue` because
/// this is the hottest path of the product.
@StoreActor
@_spi(Hosting)
public final class OutputLines {
  public private(set) var bytes: [UInt8] = []
  /// Gets each `action` line (newline included) as it is written: for `--record`.
  public var didWriteActionLine: ((ArraySlice<UInt8>) -> Void)?
  /// Gets each `stopped` line (newline included) as it is written: for `--record`, whose
  /// replay starts a stopped instance again from its initial state, as the run did.
  public var didWriteStoppedLine: ((ArraySlice<UInt8>) -> Void)?
  /// Gets each `effect` line (newline included) as it is written: for `--record`.
  public var didWriteEffectLine: ((ArraySlice<UInt8>) -> Void)?
  private var actionLineStart: Int?
  /// The named instances that reduced actions in this loop iteration under `--emit ticks`, in
  /// the order they began to: their `state` lines are due. (The default instances' are written
  /// store by store, as they were before instances existed.)
  private var instancesWithStateLines: [any HostedStore] = []

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

  /// `{"type":"action","store":"<store>","seq":`, with `"instance":"<key>"` after the store
  /// for a named instance: how every action line of a store's instance starts.
  static func actionLinePrefix(store: String, instance: InstanceKey?) -> [UInt8] {
    var prefix = Array(#"{"type":"action""#.utf8)
    writeStore(store, instance, into: &prefix)
    prefix.append(contentsOf: #","seq":"#.utf8)
    return prefix
  }

  /// `,"store":"<store>"`, and `,"instance":"<key>"` for a named instance: how every line about
  /// an instance names it.
  private static func writeStore(
    _ store: String, _ instance: InstanceKey?, into bytes: inout [UInt8]
  ) {
    append(#","store":"#, to: &bytes)
    JSONWriter.writeString(store, into: &bytes)
    guard let instance else { return }
    append(#","instance":"#, to: &bytes)
    JSONWriter.writeString(instance.value, into: &bytes)
  }

  /// Marks `store`, a named instance, as having reduced actions in this loop iteration: its
  /// merged `state` line is due at the end of it.
  func stateLineDue(_ store: any HostedStore) {
    instancesWithStateLines.append(store)
  }

  /// The named instances whose `state` lines are due, in order; the list starts afresh.
  func takeInstancesWithStateLines() -> [any HostedStore] {
    guard !instancesWithStateLines.isEmpty else { return [] }
    defer { instancesWithStateLines.removeAll(keepingCapacity: true) }
    return instancesWithStateLines
  }

  /// `,"source":"host","action":<action>,"patch":`: what a host action line carries between
  /// its `seq` (or `id`) and its patch, for an action sent again and again.
  static func hostActionText(_ action: JSONValue) -> [UInt8] {
    var text: [UInt8] = []
    writeSourceAndAction(.host, nil, into: &text) { action.write(into: &$0) }
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
    Self.writeSourceAndAction(source, effect, into: &bytes) { action.write(into: &$0) }
  }

  /// The same, with the action written into the line by `writeAction`.
  func beginActionLine(
    prefix: [UInt8], seq: Int, id: MessageID?, source: ActionSource, effect: UInt64?,
    writingAction writeAction: (inout [UInt8]) -> Void
  ) {
    beginActionLine(prefix: prefix, seq: seq, id: id)
    Self.writeSourceAndAction(source, effect, into: &bytes, writeAction)
  }

  /// The same, with the rest made by ``hostActionText(_:)``.
  func beginActionLine(prefix: [UInt8], seq: Int, id: MessageID?, hostActionText: [UInt8]) {
    beginActionLine(prefix: prefix, seq: seq, id: id)
    bytes.append(contentsOf: hostActionText)
  }

  /// The same, for a host's action whose text, `object`, is written as it came.
  func beginActionLine(
    prefix: [UInt8], seq: Int, id: MessageID?, hostActionObject object: UnsafeRawBufferPointer
  ) {
    beginActionLine(prefix: prefix, seq: seq, id: id)
    Self.append(#","source":"host","action":"#, to: &bytes)
    bytes.append(contentsOf: object)
    Self.append(#","patch":"#, to: &bytes)
  }

  private func beginActionLine(prefix: [UInt8], seq: Int, id: MessageID?) {
    if didWriteActionLine != nil { actionLineStart = bytes.count }
    bytes.append(contentsOf: prefix)
    JSONWriter.writeInt(seq, into: &bytes)
    optionalID(id)
  }

  private static func writeSourceAndAction(
    _ source: ActionSource, _ effect: UInt64?, into bytes: inout [UInt8],
    _ writeAction: (inout [UInt8]) -> Void
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
    writeAction(&bytes)
    append(#","patch":"#, to: &bytes)
  }

  func beginStateLine(
    store: String, instance: InstanceKey?, seq: Int, actions: Int, ids: [MessageID]
  ) {
    raw(#"{"type":"state""#)
    Self.writeStore(store, instance, into: &bytes)
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

  public func snapshot(
    store: String, instance: InstanceKey? = nil, seq: Int, id: MessageID?, state: JSONValue
  ) {
    raw(#"{"type":"snapshot""#)
    Self.writeStore(store, instance, into: &bytes)
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

  /// `line` is the input line number, or nil for errors no input line caused. A line that
  /// named an instance is answered with its store and instance.
  public func error(
    _ error: ProtocolError, line: Int?, id: MessageID?, store: String? = nil,
    instance: InstanceKey? = nil
  ) {
    raw(#"{"type":"error","code":"#)
    JSONWriter.writeString(error.code.rawValue, into: &bytes)
    if let store, let instance { Self.writeStore(store, instance, into: &bytes) }
    if let line {
      raw(#","line":"#)
      JSONWriter.writeInt(line, into: &bytes)
    }
    optionalID(id)
    owner(error.owner)
    raw(#","message":"#)
    JSONWriter.writeString(error.message, into: &bytes)
    raw("}\n")
  }

  private func owner(_ owner: String?) {
    guard let owner else { return }
    raw(#","owner":"#)
    JSONWriter.writeString(owner, into: &bytes)
  }

  /// `{"type":"error","code":…,"store":…,"instance":…,"message":…}`: not a refused line but
  /// something that happened to an instance, such as its changes failing to be stored.
  func instanceError(_ error: ProtocolError, store: String, instance: InstanceKey?) {
    raw(#"{"type":"error","code":"#)
    JSONWriter.writeString(error.code.rawValue, into: &bytes)
    Self.writeStore(store, instance, into: &bytes)
    owner(error.owner)
    raw(#","message":"#)
    JSONWriter.writeString(error.message, into: &bytes)
    raw("}\n")
  }

  /// Takes the lines at `spans` (ordered, not overlapping) out of the pending bytes: the lines
  /// of changes that could not be stored.
  func remove(_ spans: [Range<Int>]) {
    guard !spans.isEmpty else { return }
    var kept: [UInt8] = []
    kept.reserveCapacity(bytes.capacity)
    var start = 0
    for span in spans where span.lowerBound >= start {
      kept.append(contentsOf: bytes[start..<span.lowerBound])
      start = span.upperBound
    }
    kept.append(contentsOf: bytes[start...])
    bytes = kept
  }

  /// Answers `instances`: a page of the keys of the store's named instances in memory, `count`
  /// of them in all, and the `after` of the next page when there is one.
  /// In a durable session, `passivated` lists the page's keys of the instances stored and not
  /// in memory.
  func instances(
    store: String, active: [InstanceKey], passivated: [InstanceKey]?, count: Int,
    next: InstanceKey?, id: MessageID?
  ) {
    raw(#"{"type":"instances""#)
    Self.writeStore(store, nil, into: &bytes)
    optionalID(id)
    raw(#","active":"#)
    keys(active)
    if let passivated {
      raw(#","passivated":"#)
      keys(passivated)
    }
    raw(#","count":"#)
    JSONWriter.writeInt(count, into: &bytes)
    if let next {
      raw(#","next":"#)
      JSONWriter.writeString(next.value, into: &bytes)
    }
    raw("}\n")
  }

  private func keys(_ keys: [InstanceKey]) {
    raw("[")
    for (index, key) in keys.enumerated() {
      if index > 0 { raw(",") }
      JSONWriter.writeString(key.value, into: &bytes)
    }
    raw("]")
  }

  /// Answers `forget`: the instance and its stored state are gone, and this many of its
  /// effects were cancelled.
  func forgotten(store: String, instance: InstanceKey, cancelledEffects: Int, id: MessageID?) {
    instanceLeft(#"{"type":"forgotten""#, store, instance, cancelledEffects, id)
  }

  /// Answers `stop`: the instance left memory, and this many of its effects were cancelled.
  func stopped(store: String, instance: InstanceKey, cancelledEffects: Int, id: MessageID?) {
    let start = bytes.count
    instanceLeft(#"{"type":"stopped""#, store, instance, cancelledEffects, id)
    didWriteStoppedLine?(bytes[start...])
  }

  private func instanceLeft(
    _ start: StaticString, _ store: String, _ instance: InstanceKey, _ cancelledEffects: Int,
    _ id: MessageID?
  ) {
    raw(start)
    Self.writeStore(store, instance, into: &bytes)
    optionalID(id)
    raw(#","cancelledEffects":"#)
    JSONWriter.writeInt(cancelledEffects, into: &bytes)
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

  /// `{"type":"error","code":…,"store":…,"instance":…,"action":…,"id":…,"message":…}`: not a
  /// refused line but something that went wrong with an action the store reduced, such as an
  /// effect of `action` that failed with an error nothing caught (`effect_failed`).
  public func actionError(
    _ code: ErrorCode, store: String, instance: InstanceKey?, action: JSONValue, id: MessageID?,
    message: String, owner: String? = nil
  ) {
    raw(#"{"type":"error","code":"#)
    JSONWriter.writeString(code.rawValue, into: &bytes)
    Self.writeStore(store, instance, into: &bytes)
    raw(#","action":"#)
    action.write(into: &bytes)
    optionalID(id)
    self.owner(owner)
    raw(#","message":"#)
    JSONWriter.writeString(message, into: &bytes)
    raw("}\n")
  }

  /// `{"type":"effect",…}`: a moment in an effect's life, when effects are traced.
  public func effect(store: String, instance: InstanceKey?, _ event: EffectEvent, t: Int) {
    let start = bytes.count
    defer { didWriteEffectLine?(bytes[start...]) }
    raw(#"{"type":"effect""#)
    Self.writeStore(store, instance, into: &bytes)
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
      JSONWriter.writeInt(until.wholeMilliseconds(), into: &bytes)
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
