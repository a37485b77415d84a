import ComposableCore
import JSON

/// How `mcp` answers tool calls.
@_spi(Hosting)
public struct MCPConfiguration: Sendable {
  /// The longest a tool call waits for the effects its action started (`--call-wait`).
  public var callWait: Duration = .seconds(5)
  /// A result's state is given whole up to this many bytes of JSON, and summarized past it.
  public var maxStateBytes = 65_536
  /// A result lists at most this many lines, of at most this many bytes together; it counts
  /// the rest.
  public var maxResultLines = 1000
  public var maxResultLineBytes = 262_144
  /// Calls waiting for their effects at once; one more is a tool error until one answers.
  /// With the bounds above, what waiting calls hold stays within 64 MiB.
  public var maxPendingCalls = 256

  public init() {}
}

/// The stores over the Model Context Protocol: JSON-RPC 2.0 lines in, JSON-RPC lines out, and
/// in between the session's own JSON-lines protocol.
///
/// A tool call becomes the action line a host would write (`{"store":…,"action":…,"id":…}`,
/// with an id of the server's own), handed to the session as if read from stdin; what the
/// session writes back comes in through ``takeSessionOutput(_:)`` once per loop iteration and is
/// sorted by that id. So a call is refused with the very message an `error` line gives, and the
/// process around the session (clock, services, storage, back-pressure) is `run`'s.
@StoreActor
@_spi(Hosting)
public final class MCPServer {
  /// The protocol versions the official SDKs negotiate, newest last.
  public nonisolated static let protocolVersions = ["2024-11-05", "2025-03-26", "2025-06-18"]

  /// MCP's log levels, in order of severity.
  public enum LogLevel: String, CaseIterable, Sendable, Comparable {
    case debug, info, notice, warning, error, critical, alert, emergency

    public static func < (lhs: Self, rhs: Self) -> Bool {
      allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
  }

  private struct PendingCall {
    let requestID: JSONValue
    let tool: MCPTools.Tool
    let instance: InstanceKey?
    let action: JSONValue
    let effectsBefore: Int
    let progressToken: JSONValue?
    var lines: [JSONValue] = []
    var omittedLines = 0
    var lineBytes = 0
    /// The `seq`s of the actions the call caused: effects whose cause is one of them are its.
    var sequence = Set<Int>()
    /// Its effects started and not yet ended, by number.
    var running = Set<Int>()

    /// Settled once no effect it started runs. Without action lines (`--emit ticks`) or effect
    /// lines to go by, once the instance runs no more effects than before the call.
    func isSettled(effectsInFlight: @autoclosure () -> Int) -> Bool {
      sequence.isEmpty ? effectsInFlight() <= effectsBefore : running.isEmpty
    }
    var errors: [JSONValue] = []
    var cancelTimer: (() -> Void)?
  }

  private let session: Session
  private let name: String
  private let version: String
  private let configuration: MCPConfiguration
  /// The MCP lines to write, handed to stdout by ``drain(into:)``.
  public private(set) var bytes: [UInt8] = []
  /// Starts a timer of real time (also under the virtual clock): calls the closure after the
  /// duration unless the returned function cancelled it first.
  public var startTimer: (Duration, @escaping @StoreActor () -> Void) -> () -> Void = { _, _ in
    {}
  }
  private var isInitialized = false
  private var logLevel = LogLevel.warning
  private var toolCatalog: MCPTools?
  private var pending: [String: PendingCall] = [:]
  /// The pending calls' ids, in the order they were made: results are checked in that order.
  private var pendingOrder: [String] = []
  private var callCount = 0
  private var subscriptions = Set<String>()
  /// Calls refused at once, whose error lines the next session output still holds: they were
  /// answered, and are not logged.
  private var refusedCalls = Set<String>()

  public init(session: Session, name: String, version: String, configuration: MCPConfiguration) {
    self.session = session
    self.name = name
    self.version = version
    self.configuration = configuration
  }

  /// Hands the lines written so far to `sink` and starts a new batch.
  public func drain(into sink: (UnsafeRawBufferPointer) -> Void) {
    guard !bytes.isEmpty else { return }
    bytes.withUnsafeBytes(sink)
    bytes.removeAll(keepingCapacity: true)
  }

  // MARK: Input

  /// One line from the client. Whatever it holds, the server answers as JSON-RPC says and goes
  /// on.
  public func handleLine(_ line: UnsafeRawBufferPointer, lineNumber: Int) {
    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
    let value: JSONValue
    do {
      value = try JSONParser.parse(line, maxDepth: session.maxDepth)
    } catch {
      return fail(JSONRPC.Failure(.parseError, "line \(lineNumber): \(error.message)"))
    }
    do {
      switch try JSONRPC.message(value) {
      case .request(let id, let method, let params):
        try handle(request: method, params: params, id: id, lineNumber: lineNumber)
      case .notification(let method, let params):
        handle(notification: method, params: params)
      case .response:
        break
      }
    } catch {
      fail(error)
    }
  }

  /// A line past `--max-line-bytes`, skipped unread.
  public func rejectOverlongLine(lineNumber: Int, limit: Int) {
    fail(
      JSONRPC.Failure(
        .invalidRequest,
        "line \(lineNumber) is longer than \(limit) bytes (--max-line-bytes); it was skipped"))
  }

  private func fail(_ failure: JSONRPC.Failure) {
    bytes += JSONRPC.error(failure)
  }

  private func handle(notification method: String, params: JSONObject) {
    switch method {
    case "notifications/cancelled":
      // A cancelled request is answered by nothing; what its action started goes on.
      guard let id = params["requestId"],
        let key = pendingOrder.first(where: { pending[$0]?.requestID == id })
      else { return }
      pending[key]?.cancelTimer?()
      pending[key] = nil
      pendingOrder.removeAll { $0 == key }
    default:
      // `notifications/initialized` and any other: nothing to answer.
      break
    }
  }

  private func handle(
    request method: String, params: JSONObject, id: JSONValue, lineNumber: Int
  ) throws(JSONRPC.Failure) {
    guard isInitialized || method == "initialize" || method == "ping" else {
      throw JSONRPC.Failure(
        .invalidRequest, "\(method): the session is not initialized: send initialize first",
        id: id)
    }
    switch method {
    case "initialize":
      respond(id, initializeResult(params))
      isInitialized = true
    case "ping":
      respond(id, .object([:]))
    case "tools/list":
      respond(id, ["tools": .array(tools.tools.map(\.json))])
    case "tools/call":
      try call(params, id: id, lineNumber: lineNumber)
    case "resources/list":
      respond(id, ["resources": .array(resourceList())])
    case "resources/templates/list":
      respond(
        id,
        [
          "resourceTemplates": .array(
            session.storeNames.map { store in
              [
                "uriTemplate": .string(MCPResource.instanceTemplate(store: store)),
                "name": .string("\(store) instance state"),
                "description": .string(
                  "The state of a named instance of the \(store) store, as JSON."),
                "mimeType": "application/json",
              ]
            })
        ])
    case "resources/read":
      let resource = try resource(in: params, id: id)
      respond(
        id,
        [
          "contents": [
            [
              "uri": .string(resource.uri), "mimeType": "application/json",
              "text": .string(try text(of: resource, id: id)),
            ]
          ]
        ])
    case "resources/subscribe":
      subscriptions.insert(try resource(in: params, id: id).uri)
      respond(id, .object([:]))
    case "resources/unsubscribe":
      subscriptions.remove(try resource(in: params, id: id).uri)
      respond(id, .object([:]))
    case "logging/setLevel":
      guard case .string(let text)? = params["level"], let level = LogLevel(rawValue: text)
      else {
        throw JSONRPC.Failure(
          .invalidParams,
          "logging/setLevel: \"level\" must be one of "
            + LogLevel.allCases.map(\.rawValue).joined(separator: ", "), id: id)
      }
      logLevel = level
      respond(id, .object([:]))
    default:
      throw JSONRPC.Failure(.methodNotFound, "no method named \"\(method)\"", id: id)
    }
  }

  private func respond(_ id: JSONValue, _ result: JSONValue) {
    bytes += JSONRPC.result(result, id: id)
  }

  private func initializeResult(_ params: JSONObject) -> JSONValue {
    let asked = params["protocolVersion"]?.stringValue
    let version =
      asked.flatMap { Self.protocolVersions.contains($0) ? $0 : nil }
      ?? Self.protocolVersions.last!
    return [
      "protocolVersion": .string(version),
      "capabilities": [
        "tools": ["listChanged": false],
        "resources": ["subscribe": true, "listChanged": false],
        "logging": .object([:]),
      ],
      "serverInfo": ["name": .string(name), "version": .string(self.version)],
      "instructions": .string(
        "Each tool sends one action to a store (the tool's name is store__action) and returns "
          + "the action lines it caused, each with its JSON Patch, and the store's state once "
          + "the effects it started settled. Each store's state is the resource "
          + "composable-actor://STORE/state; composable-actor://describe describes every "
          + "store."),
    ]
  }

  private var tools: MCPTools {
    if let toolCatalog { return toolCatalog }
    let made = MCPTools(stores: session.descriptors)
    toolCatalog = made
    return made
  }

  // MARK: Tool calls

  private func call(_ params: JSONObject, id: JSONValue, lineNumber: Int) throws(JSONRPC.Failure) {
    guard case .string(let toolName)? = params["name"] else {
      throw JSONRPC.Failure(.invalidParams, "tools/call: \"name\" (a string) is required", id: id)
    }
    guard let tool = tools.named[toolName] else {
      throw JSONRPC.Failure(.invalidParams, "tools/call: no tool named \"\(toolName)\"", id: id)
    }
    var arguments = JSONObject()
    switch params["arguments"] {
    case nil, .null?: break
    case .object(let given)?: arguments = given
    case let other?:
      throw JSONRPC.Failure(
        .invalidParams,
        "tools/call: \"arguments\" must be an object, got \(other.briefDescription)",
        id: id)
    }
    guard pending.count < configuration.maxPendingCalls else {
      return toolError(
        id,
        "\(configuration.maxPendingCalls) calls are waiting for their effects: wait for one "
          + "to answer")
    }
    var line: JSONObject = ["store": .string(tool.store)]
    var instance: InstanceKey?
    var isValidInstance = true
    if tool.takesInstance, let given = arguments.removeValue(forKey: MCPTools.instanceArgument) {
      line["instance"] = given
      instance = (try? InputMessage.instance(given)) ?? nil
      isValidInstance = instance != nil
    }
    if arguments["type"] != nil {
      return toolError(
        id, "\(tool.store): \(tool.action): \"type\" is not an argument of this tool")
    }
    var action: JSONObject = ["type": .string(tool.action)]
    for (key, value) in arguments { action[key] = value }
    callCount += 1
    let callID = "mcp-\(callCount)"
    line["action"] = .object(action)
    line["id"] = .string(callID)
    // A key the session will refuse activates nothing here either.
    let effectsBefore =
      isValidInstance
      ? session.store(named: tool.store, instance: instance)?.effectsInFlight ?? 0 : 0
    let start = session.output.bytes.count
    JSONValue.object(line).serialized.withUnsafeBytes {
      session.handleLine($0, lineNumber: lineNumber)
    }
    // A refused line writes its error at once and no action line: the call fails with that
    // error's message, as a host's line would. Every line starts with its type, so only an
    // error line is parsed here (the rest are, with the iteration's output).
    let written = session.output.bytes[start...].split(separator: UInt8(ascii: "\n"))
    let refusal =
      written.contains { $0.starts(with: Self.actionLineStart) }
      ? nil
      : written.lazy.filter { $0.starts(with: Self.errorLineStart) }
        .compactMap { try? JSONParser.parse(Array($0), maxDepth: 10_000) }
        .first { $0["id"] == nil || $0["id"] == .string(callID) }
    if let refusal {
      refusedCalls.insert(callID)
      return toolError(id, refusal["message"]?.stringValue ?? "refused", line: refusal)
    }
    var call = PendingCall(
      requestID: id, tool: tool, instance: instance, action: .object(action),
      effectsBefore: effectsBefore,
      progressToken: params["_meta"]?["progressToken"])
    call.cancelTimer = startTimer(configuration.callWait) { [weak self] in
      self?.finish(callID, settled: false)
    }
    pending[callID] = call
    pendingOrder.append(callID)
  }

  private static let actionLineStart = Array(#"{"type":"action""#.utf8)
  private static let errorLineStart = Array(#"{"type":"error""#.utf8)

  private func toolError(_ id: JSONValue, _ message: String, line: JSONValue? = nil) {
    var result: JSONObject = [
      "content": [["type": "text", "text": .string(message)]], "isError": true,
    ]
    if let line { result["structuredContent"] = ["error": line] }
    respond(id, .object(result))
  }

  /// Ends a call: answers it with its lines and the state it left.
  private func finish(_ callID: String, settled: Bool) {
    guard let call = pending.removeValue(forKey: callID) else { return }
    pendingOrder.removeAll { $0 == callID }
    call.cancelTimer?()
    var result: JSONObject = [
      "store": .string(call.tool.store),
      "instance": call.instance.map { .string($0.value) } ?? .null,
      "action": call.action,
      "settled": .bool(settled),
      "lines": .array(call.lines),
    ]
    if call.omittedLines > 0 { result["omittedLines"] = .int(call.omittedLines) }
    if !call.errors.isEmpty { result["errors"] = .array(call.errors) }
    let uri = MCPResource.state(store: call.tool.store, instance: call.instance).uri
    if let store = session.store(named: call.tool.store, instance: call.instance) {
      result["effectsInFlight"] = .int(store.effectsInFlight)
      let state = store.snapshot()
      let size = state.serialized.count
      if size <= configuration.maxStateBytes {
        result["state"] = state
      } else {
        result["stateSummary"] = [
          "bytes": .int(size), "uri": .string(uri),
          "members": .array((state.objectValue?.keys ?? []).map { .string($0) }),
        ]
      }
    }
    let structured = JSONValue.object(result)
    respond(
      call.requestID,
      [
        "content": [["type": "text", "text": .string(structured.jsonString)]],
        "structuredContent": structured,
        "isError": false,
      ])
  }

  // MARK: Session output

  /// The session's lines of one loop iteration: each goes to the call it answers, to the
  /// subscribers of the state it changed, or to the log; then the calls whose effects settled
  /// are answered.
  public func takeSessionOutput(_ output: UnsafeRawBufferPointer) {
    var changed: [String] = []
    let lines = sessionLines(output)
    // An effect's `started` line may come before the line of the action that returned it.
    for (line, _) in lines where line["type"] == "action" {
      if let id = line["id"]?.stringValue, pending[id] != nil, let seq = line["seq"]?.intValue {
        pending[id]!.sequence.insert(seq)
      }
    }
    for (line, size) in lines {
      route(line, size: size, changed: &changed)
    }
    for uri in changed {
      bytes += JSONRPC.notification("notifications/resources/updated", ["uri": .string(uri)])
    }
    for callID in pendingOrder {
      guard let call = pending[callID] else { continue }
      let isSettled = call.isSettled(
        effectsInFlight: session.store(named: call.tool.store, instance: call.instance)?
          .effectsInFlight ?? 0)
      if isSettled { finish(callID, settled: true) }
    }
  }

  /// Answers every waiting call with what happened so far: the process is ending.
  public func answerWaitingCalls() {
    for callID in pendingOrder { finish(callID, settled: false) }
  }

  /// Follows an effect's life to the call that caused it.
  private func track(effect line: JSONValue) {
    guard let cause = line["cause"]?.intValue, let effect = line["effect"]?.intValue,
      let callID = pendingOrder.first(where: { pending[$0]?.sequence.contains(cause) == true })
    else { return }
    switch line["event"]?.stringValue {
    case "started": pending[callID]!.running.insert(effect)
    case "finished", "failed", "cancelled": pending[callID]!.running.remove(effect)
    default: break  // sleeping: still its
    }
  }

  private func route(_ line: JSONValue, size: Int, changed: inout [String]) {
    let type = line["type"]?.stringValue
    if type == "action" || type == "state", let store = line["store"]?.stringValue {
      let instance = line["instance"]?.stringValue.flatMap { try? InstanceKey(validating: $0) }
      let uri = MCPResource.state(store: store, instance: instance).uri
      let patch = line["patch"]?.arrayValue
      if subscriptions.contains(uri), patch?.isEmpty == false || type == "state",
        !changed.contains(uri)
      {
        changed.append(uri)
      }
    }
    if type == "effect" { return track(effect: line) }
    let ids = (line["ids"]?.arrayValue ?? []) + (line["id"].map { [$0] } ?? [])
    let callID = ids.lazy.compactMap { $0.stringValue }.first { self.pending[$0] != nil }
    guard let callID else {
      if let id = line["id"]?.stringValue, refusedCalls.remove(id) != nil { return }
      switch type {
      case "error": log(.error, line)
      case "action", "state": log(.debug, line)
      default: break  // ready, exit: the JSON-lines protocol's framing
      }
      return
    }
    if type == "error" {
      pending[callID]!.errors.append(line)
      return
    }
    guard type == "action" || type == "state" else { return }
    if pending[callID]!.lines.count < configuration.maxResultLines,
      pending[callID]!.lineBytes + size <= configuration.maxResultLineBytes
    {
      pending[callID]!.lines.append(line)
      pending[callID]!.lineBytes += size
    } else {
      pending[callID]!.omittedLines += 1
    }
    if let token = pending[callID]!.progressToken {
      let count = pending[callID]!.lines.count + pending[callID]!.omittedLines
      var params: JSONObject = ["progressToken": token, "progress": .int(count)]
      if let action = line["action"]?["type"]?.stringValue { params["message"] = .string(action) }
      bytes += JSONRPC.notification("notifications/progress", .object(params))
    }
  }

  private func log(_ level: LogLevel, _ data: JSONValue) {
    guard level >= logLevel else { return }
    bytes += JSONRPC.notification(
      "notifications/message",
      ["level": .string(level.rawValue), "logger": .string(name), "data": data])
  }

  /// Each line the session wrote, parsed, with its length in bytes.
  private func sessionLines(_ output: some Collection<UInt8>) -> [(value: JSONValue, size: Int)] {
    output.split(separator: UInt8(ascii: "\n")).compactMap { line in
      // The session's own lines: they parse, as its tests check, whatever their depth.
      (try? JSONParser.parse(Array(line), maxDepth: 10_000)).map { ($0, line.count) }
    }
  }

  // MARK: Resources

  private func resourceList() -> [JSONValue] {
    var list: [JSONValue] = [
      [
        "uri": .string(MCPResource.describeURI), "name": "describe",
        "description": "Every store's actions (who sends each, payload schema) and state schema.",
        "mimeType": "application/json",
      ]
    ]
    for store in session.storeNames {
      let keys =
        [nil]
        + session.instanceKeys(of: store, limit: Self.listedInstances).map {
          Optional($0)
        }
      for key in keys {
        list.append([
          "uri": .string(MCPResource.state(store: store, instance: key).uri),
          "name": .string(key.map { "\(store) instance \($0) state" } ?? "\(store) state"),
          "mimeType": "application/json",
        ])
      }
    }
    return list
  }

  /// The named instances `resources/list` lists per store; the template reaches the others.
  static let listedInstances = 1000

  private func resource(in params: JSONObject, id: JSONValue) throws(JSONRPC.Failure)
    -> MCPResource
  {
    guard case .string(let uri)? = params["uri"] else {
      throw JSONRPC.Failure(.invalidParams, "\"uri\" (a string) is required", id: id)
    }
    guard let resource = MCPResource(uri: uri) else {
      throw JSONRPC.Failure(.resourceNotFound, "no resource \(uri)", id: id)
    }
    if case .state(let store, _) = resource, !session.storeNames.contains(store) {
      throw JSONRPC.Failure(
        .resourceNotFound,
        "no resource \(uri): no store named \"\(store)\"; the stores are "
          + session.storeNames.joined(separator: ", "), id: id)
    }
    return resource
  }

  private func text(of resource: MCPResource, id: JSONValue) throws(JSONRPC.Failure) -> String {
    switch resource {
    case .describe:
      let describe: JSONValue = [
        "type": "describe", "protocol": 1,
        "stores": .array(session.descriptors.map(\.json)),
      ]
      return describe.jsonString
    case .state(let store, let instance):
      guard let hosted = session.store(named: store, instance: instance) else {
        throw JSONRPC.Failure(
          .resourceNotFound, "\(resource.uri): the instance cannot be activated", id: id)
      }
      return hosted.snapshot().jsonString
    }
  }
}
