import CPostgres
import CPostgresShim
@_spi(Hosting) import Protocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One libpq connection, used by the loop thread only, in non-blocking pipeline mode: a call
/// sends all its statements and one sync, so that they run in one round trip and, without a
/// `BEGIN`, in one implicit transaction (an error in one aborts them all). Every wait is a
/// `poll` bounded by `timeout`: a server that stops answering fails the call instead of holding
/// the loop; the connection is then dropped and the next call opens a new one.
final class PostgresConnection {
  /// A statement and its parameters: `$1`… in the SQL.
  struct Statement {
    let sql: String
    let parameters: [Parameter]
    /// The instance the statement changes, which its failure is blamed on.
    var address: StoredAddress?

    init(_ sql: String, _ parameters: Parameter...) {
      self.sql = sql
      self.parameters = parameters
    }

    init(_ sql: String, parameters: [Parameter], about address: StoredAddress? = nil) {
      self.sql = sql
      self.parameters = parameters
      self.address = address
    }
  }

  /// Text goes as text, bytes as binary (`bytea` without escaping), numbers as their decimal
  /// text: the server casts each to the type its function or column takes.
  enum Parameter {
    case text(String)
    case int(Int)
    case bytes([UInt8])
    case null
  }

  /// A statement's rows, in the binary format: `int8` as 8 bytes big-endian, `text` and `bytea`
  /// as their bytes.
  struct Rows {
    var values: [[[UInt8]?]] = []

    var count: Int { values.count }

    func bytes(_ row: Int, _ column: Int) -> [UInt8]? { values[row][column] }

    func text(_ row: Int, _ column: Int) -> String? {
      values[row][column].map { String(decoding: $0, as: UTF8.self) }
    }

    func int(_ row: Int, _ column: Int) -> Int? {
      guard let bytes = values[row][column], bytes.count == 8 else { return nil }
      return Int(bigEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: Int.self) })
    }
  }

  /// The server as messages name it: the URL without its password.
  let server: String
  private let url: String
  private let timeout: Duration
  /// Nil until the first call, and after a failure that leaves the connection unusable.
  private var handle: OpaquePointer?
  /// The statements with parameters prepared on this connection, by their SQL: each is parsed
  /// and planned once, not at every commit (which halves a commit's time on the server).
  private var prepared: [String: String] = [:]

  /// Connects at once, so that a wrong URL, password or database fails at start. `url` is a
  /// libpq connection URI or key=value string; its own `connect_timeout` wins over ours.
  init(url: String, timeout: Duration) throws(InstanceStorageError) {
    self.url = url
    self.timeout = timeout
    server = Self.redacted(url)
    if let failure = cpq_load() {
      throw InstanceStorageError(.other, "cannot use \(server): \(String(cString: failure))")
    }
    handle = try connect()
  }

  deinit {
    if let handle { cPQfinish(handle) }
  }

  /// `url` with the password, if any, replaced by `***`: messages and logs name the server.
  static func redacted(_ url: String) -> String {
    let characters = Array(url)
    guard
      let scheme = (0..<max(0, characters.count - 2)).first(where: { index in
        characters[index] == ":" && characters[index + 1] == "/" && characters[index + 2] == "/"
      })
    else {
      // A key=value string: its password, if any, is a `password=` pair.
      return url.split(separator: " ").map {
        $0.hasPrefix("password=") ? "password=***" : String($0)
      }.joined(separator: " ")
    }
    let authority = characters[(scheme + 3)...].prefix { $0 != "/" && $0 != "?" }
    guard let at = authority.lastIndex(of: "@"),
      let colon = characters[(scheme + 3)..<at].firstIndex(of: ":")
    else { return url }
    return String(characters[..<(colon + 1)]) + "***" + String(characters[at...])
  }

  private func connect() throws(InstanceStorageError) -> OpaquePointer {
    // Ours first, so that the URL's own parameters (expanded from dbname) replace them.
    let seconds = String(max(1, Int(timeout.components.seconds)))
    let keywords = ["connect_timeout", "application_name", "dbname"]
    let values = [seconds, "composable-actor", url]
    let connection = withCStrings(keywords) { keywords in
      withCStrings(values) { values in cPQconnectdbParams(keywords, values, 1) }
    }
    guard let connection else {
      throw InstanceStorageError(.other, "cannot connect to \(server): out of memory")
    }
    guard cPQstatus(connection) == CONNECTION_OK else {
      let message = Self.message(cPQerrorMessage(connection))
      cPQfinish(connection)
      throw InstanceStorageError(.unavailable, "cannot connect to \(server): \(message)")
    }
    cpq_ignore_notices(connection)
    guard cPQsetnonblocking(connection, 1) == 0, cPQenterPipelineMode(connection) == 1 else {
      let message = Self.message(cPQerrorMessage(connection))
      cPQfinish(connection)
      throw InstanceStorageError(.other, "cannot use \(server): \(message)")
    }
    return connection
  }

  /// Runs `statements` in one round trip and one transaction, answering each one's rows. When
  /// one fails, none of them took effect: the error is the first failure, with its SQLSTATE.
  func run(_ statements: [Statement], _ operation: @autoclosure () -> String)
    throws(InstanceStorageError) -> [Rows]
  {
    let connection: OpaquePointer
    if let handle {
      connection = handle
    } else {
      connection = try connect()
      handle = connection
      prepared = [:]
    }
    let answer: Result<[Rows], InstanceStorageError>
    do throws(InstanceStorageError) {
      answer = try exchange(statements, on: connection, operation)
    } catch {
      cPQfinish(connection)
      handle = nil
      throw error
    }
    return try answer.get()
  }

  /// Throws when the connection failed (it is then out of step with the server); answers the
  /// server's refusal of a statement as a failure, after which the connection is still usable.
  /// What a pipeline sent, in order: each gets its results, then a null one.
  private enum Sent {
    case prepare(sql: String, name: String)
    case statement(Int)
  }

  /// Throws when the connection failed (it is then out of step with the server); answers the
  /// server's refusal of a statement as a failure, after which the connection is still usable.
  private func exchange(
    _ statements: [Statement], on connection: OpaquePointer,
    _ operation: () -> String
  ) throws(InstanceStorageError) -> Result<[Rows], InstanceStorageError> {
    let deadline = ContinuousClock.now + timeout
    var sent: [Sent] = []
    sent.reserveCapacity(statements.count)
    var preparing: [String: String] = [:]
    for (index, statement) in statements.enumerated() {
      var name: String?
      if !statement.parameters.isEmpty {
        name = prepared[statement.sql] ?? preparing[statement.sql]
        if name == nil {
          let fresh = "s\(prepared.count + preparing.count)"
          guard
            cPQsendPrepare(
              connection, fresh, statement.sql, Int32(statement.parameters.count), nil) == 1
          else { throw failure(connection, operation()) }
          preparing[statement.sql] = fresh
          sent.append(.prepare(sql: statement.sql, name: fresh))
          name = fresh
        }
      }
      guard send(statement, as: name, on: connection) else {
        throw failure(connection, operation())
      }
      sent.append(.statement(index))
    }
    guard cPQpipelineSync(connection) == 1 else { throw failure(connection, operation()) }
    try flush(connection, until: deadline, operation)
    var rows: [Rows] = Array(repeating: Rows(), count: statements.count)
    var position = 0
    var firstError: InstanceStorageError?
    while true {
      try waitForResult(connection, until: deadline, operation)
      guard let result = cPQgetResult(connection) else {
        // The end of one sent item's results.
        position += 1
        continue
      }
      defer { cPQclear(result) }
      let status = cPQresultStatus(result)
      if status == PGRES_PIPELINE_SYNC {
        return firstError.map { .failure($0) } ?? .success(rows)
      }
      guard position < sent.count else { continue }
      switch (status, sent[position]) {
      case (PGRES_PIPELINE_ABORTED, _):
        break
      case (PGRES_COMMAND_OK, .prepare(let sql, let name)):
        prepared[sql] = name
      case (PGRES_TUPLES_OK, .statement(let index)), (PGRES_COMMAND_OK, .statement(let index)):
        rows[index] = Self.rows(of: result)
      default:
        if firstError == nil {
          firstError = rejection(result, operation())
          if case .statement(let index) = sent[position] {
            firstError?.address = statements[index].address
          }
        }
      }
    }
  }

  /// Sends the statement, by `name` when it is prepared, else as its SQL.
  private func send(_ statement: Statement, as name: String?, on connection: OpaquePointer)
    -> Bool
  {
    let count = statement.parameters.count
    var pointers: [UnsafePointer<CChar>?] = []
    var lengths: [Int32] = []
    var formats: [Int32] = []
    pointers.reserveCapacity(count)
    var copies: [UnsafeMutablePointer<UInt8>] = []
    defer { for copy in copies { copy.deallocate() } }
    func copied(_ bytes: some Collection<UInt8>) -> UnsafePointer<CChar> {
      let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
      _ = UnsafeMutableBufferPointer(start: copy, count: bytes.count).initialize(from: bytes)
      copies.append(copy)
      return UnsafeRawPointer(copy).assumingMemoryBound(to: CChar.self)
    }
    for parameter in statement.parameters {
      switch parameter {
      case .text(let value): pointers.append(copied(value.utf8 + [0]))
      case .int(let value): pointers.append(copied(String(value).utf8 + [0]))
      case .bytes(let value): pointers.append(copied(value))
      case .null: pointers.append(nil)
      }
      if case .bytes(let value) = parameter {
        lengths.append(Int32(clamping: value.count))
        formats.append(1)
      } else {
        lengths.append(0)
        formats.append(0)
      }
    }
    if let name {
      return cPQsendQueryPrepared(connection, name, Int32(count), pointers, lengths, formats, 1)
        == 1
    }
    return cPQsendQueryParams(
      connection, statement.sql, Int32(count), nil, pointers, lengths, formats, 1) == 1
  }

  /// Sends what libpq buffered, reading meanwhile: a server blocked writing its answers to a
  /// long pipeline would otherwise never read the rest.
  private func flush(
    _ connection: OpaquePointer, until deadline: ContinuousClock.Instant, _ operation: () -> String
  )
    throws(InstanceStorageError)
  {
    while true {
      switch cPQflush(connection) {
      case 0: return
      case 1:
        try wait(connection, for: Int16(POLLIN | POLLOUT), until: deadline, operation)
        guard cPQconsumeInput(connection) == 1 else { throw failure(connection, operation()) }
      default: throw failure(connection, operation())
      }
    }
  }

  private func waitForResult(
    _ connection: OpaquePointer, until deadline: ContinuousClock.Instant, _ operation: () -> String
  ) throws(InstanceStorageError) {
    while cPQisBusy(connection) == 1 {
      try wait(connection, for: Int16(POLLIN), until: deadline, operation)
      guard cPQconsumeInput(connection) == 1 else { throw failure(connection, operation()) }
    }
  }

  private func wait(
    _ connection: OpaquePointer, for events: Int16, until deadline: ContinuousClock.Instant,
    _ operation: () -> String
  ) throws(InstanceStorageError) {
    var descriptor = pollfd(fd: cPQsocket(connection), events: events, revents: 0)
    while true {
      let left = deadline - ContinuousClock.now
      guard left > .zero else {
        throw InstanceStorageError(
          .unavailable,
          "cannot \(operation()): \(server) did not answer within \(timeout.components.seconds) s")
      }
      let milliseconds = Int32(clamping: left.components.seconds * 1000 + 1)
      let ready = poll(&descriptor, 1, milliseconds)
      if ready > 0 { return }
      if ready < 0, errno != EINTR {
        throw InstanceStorageError(
          .other, "cannot \(operation()): poll: \(String(cString: strerror(errno)))")
      }
    }
  }

  private func failure(_ connection: OpaquePointer, _ operation: String) -> InstanceStorageError {
    let message = Self.message(cPQerrorMessage(connection))
    let kind: InstanceStorageError.Kind =
      cPQstatus(connection) == CONNECTION_BAD ? .unavailable : .other
    return InstanceStorageError(kind, "cannot \(operation): \(message)")
  }

  /// A statement the server refused: its SQLSTATE picks the kind; the storage's own functions
  /// raise `CA001` (the instance is another process's, whose id is the message) and `CA002`
  /// (a newer process with this one's id took over).
  private func rejection(_ result: OpaquePointer, _ operation: String) -> InstanceStorageError {
    let state = cPQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
    let primary =
      cPQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? ""
    switch state {
    case "CA001":
      let place =
        primary.isEmpty
        ? "it is no longer active in this process" : "it is active in process \"\(primary)\""
      return InstanceStorageError(.elsewhere(owner: primary), "cannot \(operation): \(place)")
    case "CA002":
      return InstanceStorageError(
        .superseded,
        "cannot \(operation): another process started with this one's --process-id (\(primary)) "
          + "and took over its instances")
    default:
      let kind: InstanceStorageError.Kind
      switch state?.prefix(2) {
      case "53": kind = .full
      case "XX": kind = .corrupt
      case "42", "28": kind = .readOnly
      default: kind = .other
      }
      return InstanceStorageError(
        kind, "cannot \(operation): \(primary) (SQLSTATE \(state ?? "none"))")
    }
  }

  private static func rows(of result: OpaquePointer) -> Rows {
    let count = cPQntuples(result)
    var rows = Rows()
    rows.values.reserveCapacity(Int(count))
    let columns = cPQnfields(result)
    for row in 0..<count {
      var values: [[UInt8]?] = []
      values.reserveCapacity(Int(columns))
      for column in 0..<columns {
        if cPQgetisnull(result, row, column) == 1 {
          values.append(nil)
          continue
        }
        let length = Int(cPQgetlength(result, row, column))
        let start = UnsafeRawPointer(cPQgetvalue(result, row, column)!)
        values.append(Array(UnsafeRawBufferPointer(start: start, count: length)))
      }
      rows.values.append(values)
    }
    return rows
  }

  /// libpq's messages end with a newline, and some hold several lines.
  private static func message(_ text: UnsafeMutablePointer<CChar>?) -> String {
    guard let text else { return "unknown error" }
    return String(cString: text).split(whereSeparator: \.isNewline)
      .map { $0.drop { $0 == " " || $0 == "\t" } }.joined(separator: "; ")
  }
}

private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
  let copies = strings.map { strdup($0) }
  defer { for copy in copies { free(copy) } }
  return body(copies.map { UnsafePointer($0) } + [nil])
}
