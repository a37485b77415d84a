import ComposableActor

#if canImport(Glibc)
  import Glibc
#endif

/// Why the saved list could not be read or written, worded for the state's `storageError`.
public struct TodosFileError: Error, CustomStringConvertible, Equatable {
  public let description: String
}

/// The list as a JSON file (`[{"id":1,"title":"Buy milk","done":false}]`), read and written
/// on libuv's thread pool, so a slow disk never holds up the loop.
///
/// Saving is atomic (`FileIO.writeAtomically`): a crash or a full disk leaves the old file or
/// the new one, never half of one. A later save always wins, even when the pool runs two of
/// them out of order. A load that starts while a save is in flight reads the file before or
/// after it, never a mix.
final class TodosFile: @unchecked Sendable {
  let path: String
  private let threadPool: ThreadPool
  private let lock = Lock()
  private var nextTicket = 0
  private var newestWritten = -1

  init(path: String, threadPool: ThreadPool) {
    self.path = path
    self.threadPool = threadPool
  }

  func load() async throws -> [Todo] {
    try await threadPool.run { [self] _ in try read() }
  }

  func save(_ todos: [Todo]) async throws {
    // Taken on the loop, in the order the reducer asked for the saves.
    let ticket = lock.withLock {
      defer { nextTicket += 1 }
      return nextTicket
    }
    try await threadPool.run { [self] _ in try write(todos, ticket: ticket) }
  }

  private func read() throws(TodosFileError) -> [Todo] {
    let bytes: [UInt8]
    do {
      bytes = try FileIO.readAll(path)
    } catch where error.code == ENOENT {
      throw TodosFileError(description: "No todos saved yet at \(path).")
    } catch {
      throw TodosFileError(description: "Cannot read \(path): \(error.reason).")
    }
    let json: JSONValue
    do {
      json = try JSONParser.parse(bytes)
    } catch {
      throw corrupt(error.message)
    }
    do {
      return try JSONValueDecoder().decode([Todo].self, from: json)
    } catch let error as DecodingError {
      throw corrupt(error.reason)
    } catch {
      throw corrupt("\(error)")
    }
  }

  private func corrupt(_ reason: String) -> TodosFileError {
    TodosFileError(
      description: "\(path) does not hold a list of todos (\(reason)); the list was kept.")
  }

  private func write(_ todos: [Todo], ticket: Int) throws {
    var bytes = try JSONValueEncoder().encode(todos).serialized
    bytes.append(UInt8(ascii: "\n"))
    try lock.withLock {
      // A later save already landed: writing this older list would undo it.
      guard ticket > newestWritten else { return }
      do throws(FileIO.Failure) {
        try FileIO.writeAtomically(bytes, to: path)
      } catch {
        throw TodosFileError(description: "Cannot save to \(path): \(error.reason).")
      }
      newestWritten = ticket
    }
  }
}

extension DecodingError {
  /// The decoder's own sentence, which names the JSON Pointer of the value that failed: the
  /// error's `description` buries it in coding-path dumps.
  fileprivate var reason: String {
    switch self {
    case .typeMismatch(_, let context), .valueNotFound(_, let context),
      .keyNotFound(_, let context), .dataCorrupted(let context):
      context.debugDescription
    @unknown default:
      "\(self)"
    }
  }
}
