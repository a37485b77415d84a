import JSON

/// JSON-RPC 2.0 as MCP frames it: one message per line, no batches.
@_spi(Hosting)
public enum JSONRPC {
  /// The error codes JSON-RPC 2.0 and MCP give.
  public enum ErrorCode: Int, Sendable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    /// MCP's "resource not found".
    case resourceNotFound = -32002
  }

  public struct Failure: Error, Equatable, Sendable {
    public let code: ErrorCode
    public let message: String
    /// The request's id when it could be read: the error answers it.
    public let id: JSONValue

    public init(_ code: ErrorCode, _ message: String, id: JSONValue = .null) {
      self.code = code
      self.message = message
      self.id = id
    }
  }

  /// One message read from a line.
  public enum Message: Equatable, Sendable {
    /// Expects a response with the same `id` (a string or a number).
    case request(id: JSONValue, method: String, params: JSONObject)
    /// Expects nothing.
    case notification(method: String, params: JSONObject)
    /// Answers a request of ours (the server sends none, so these are dropped).
    case response
  }

  /// Reads one parsed line as a message; the failure says which error answers it.
  public static func message(_ value: JSONValue) throws(Failure) -> Message {
    guard case .object(let object) = value else {
      if case .array = value {
        throw Failure(.invalidRequest, "batches are not supported: send one message per line")
      }
      throw Failure(
        .invalidRequest, "a message must be a JSON object, got \(value.briefDescription)")
    }
    var id: JSONValue?
    switch object["id"] {
    case nil: id = nil
    case .string?, .int?, .number?: id = object["id"]
    case let other?:
      throw Failure(
        .invalidRequest, "\"id\" must be a string or a number, got \(other.briefDescription)")
    }
    guard object["jsonrpc"] == .string("2.0") else {
      throw Failure(.invalidRequest, "\"jsonrpc\" must be \"2.0\"", id: id ?? .null)
    }
    guard let methodValue = object["method"] else {
      if id != nil, object["result"] != nil || object["error"] != nil { return .response }
      throw Failure(.invalidRequest, "\"method\" (a string) is required", id: id ?? .null)
    }
    guard case .string(let method) = methodValue else {
      throw Failure(.invalidRequest, "\"method\" must be a string", id: id ?? .null)
    }
    let params: JSONObject
    switch object["params"] {
    case nil: params = JSONObject()
    case .object(let given)?: params = given
    case let other?:
      throw Failure(
        .invalidParams, "\"params\" must be an object, got \(other.briefDescription)",
        id: id ?? .null)
    }
    guard let id else { return .notification(method: method, params: params) }
    return .request(id: id, method: method, params: params)
  }

  /// `{"jsonrpc":"2.0","id":…,"result":…}` and its newline.
  public static func result(_ result: JSONValue, id: JSONValue) -> [UInt8] {
    line(["jsonrpc": "2.0", "id": id, "result": result])
  }

  /// `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…}}` and its newline.
  public static func error(_ failure: Failure) -> [UInt8] {
    line([
      "jsonrpc": "2.0", "id": failure.id,
      "error": ["code": .int(failure.code.rawValue), "message": .string(failure.message)],
    ])
  }

  /// `{"jsonrpc":"2.0","method":…,"params":…}` and its newline.
  public static func notification(_ method: String, _ params: JSONValue) -> [UInt8] {
    line(["jsonrpc": "2.0", "method": .string(method), "params": params])
  }

  private static func line(_ object: JSONObject) -> [UInt8] {
    var bytes: [UInt8] = []
    JSONValue.object(object).write(into: &bytes)
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }
}
