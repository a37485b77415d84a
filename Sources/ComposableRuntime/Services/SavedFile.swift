import JSON
import Locks

#if canImport(Glibc)
  import Glibc
#endif

/// A JSON file a store keeps in the data directory, read and written on libuv's thread pool so
/// that a slow disk never holds up the loop.
///
/// Saving is atomic (a new file renamed over the old one): a crash or a full disk leaves the old
/// file or the new one, never half of one, and a symbolic link there stays one: its target is
/// saved to. A save started later always wins, even when the pool
/// runs two of them out of order: each save takes a ticket when it starts, and an older one that
/// finishes after a newer one writes nothing.
///
/// ```swift
/// let file = services.savedFile("todos.json")
/// try await file.save(try JSONValueEncoder().encode(todos))
/// let todos = try JSONValueDecoder().decode([Todo].self, from: try await file.load())
/// ```
public final class SavedFile: @unchecked Sendable {
  /// Why the file could not be read or written.
  public enum Failure: Error, Equatable, CustomStringConvertible {
    /// Nothing was saved there yet.
    case missing(path: String)
    /// The file exists but could not be read: `reason` says why.
    case unreadable(path: String, reason: String)
    /// The file holds something that is not JSON: `message` says where.
    case notJSON(path: String, message: String)
    /// The file could not be written: `reason` says why; the old file, if any, is kept.
    case unwritable(path: String, reason: String)

    public var description: String {
      switch self {
      case .missing(let path): "nothing saved yet at \(path)"
      case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
      case .notJSON(let path, let message): "\(path) is not valid JSON (\(message))"
      case .unwritable(let path, let reason): "cannot save to \(path): \(reason)"
      }
    }
  }

  /// The largest file read: a larger one (or one that is not a regular file) is unreadable.
  public static let maximumBytes = 64 << 20

  /// Where the file is.
  public let path: String
  private let threadPool: ThreadPool
  private let lock = Lock()
  private var nextTicket = 0
  private var newestWritten = -1
  private let writeFault: (@Sendable () -> Int32?)?
  /// The saves that fail, by ticket, with the `errno` each fails with.
  private var failingTickets: [Int: Int32] = [:]

  /// The file at `path`, read and written on `threadPool`; ``Services/savedFile(_:)``
  /// makes one in the data directory.
  public convenience init(path: String, threadPool: ThreadPool) {
    self.init(path: path, threadPool: threadPool, writeFault: nil)
  }

  init(path: String, threadPool: ThreadPool, writeFault: (@Sendable () -> Int32?)?) {
    self.path = path
    self.threadPool = threadPool
    self.writeFault = writeFault
  }

  /// The file's JSON, read on the thread pool; throws ``Failure``.
  public func load() async throws -> JSONValue {
    try await threadPool.run { [self] _ in try read() }
  }

  /// Replaces the file with `json`, on the thread pool; throws ``Failure``.
  public func save(_ json: JSONValue) async throws {
    // Taken where the save is asked for, in the order the reducer asked.
    let ticket = takeTicket()
    try await threadPool.run { [self] _ in try write(json, ticket: ticket) }
  }

  /// The next save's place in line.
  public func takeTicket() -> Int {
    lock.withLock {
      defer { nextTicket += 1 }
      if let code = writeFault?() { failingTickets[nextTicket] = code }
      return nextTicket
    }
  }

  /// Reads the file now, on the calling thread.
  public func read() throws(Failure) -> JSONValue {
    let bytes: [UInt8]
    do {
      bytes = try FileIO.readAll(path, limit: Self.maximumBytes)
    } catch  where error.code == ENOENT {
      throw .missing(path: path)
    } catch {
      throw .unreadable(path: path, reason: error.reason)
    }
    do {
      return try JSONParser.parse(bytes)
    } catch {
      throw .notJSON(path: path, message: error.message)
    }
  }

  /// Writes `json` now, on the calling thread, unless a save with a later ticket already did.
  public func write(_ json: JSONValue, ticket: Int) throws(Failure) {
    var bytes = json.serialized
    bytes.append(UInt8(ascii: "\n"))
    let written: Result<Void, Failure> = lock.withLock {
      if let code = failingTickets.removeValue(forKey: ticket) {
        return .failure(.unwritable(path: path, reason: FileIO.Failure(code: code).reason))
      }
      guard ticket > newestWritten else { return .success(()) }
      do throws(FileIO.Failure) {
        // Like reading, for a regular file only: what else the path names (a FIFO, a device)
        // would block the pool's thread or lose the favourites.
        guard try FileIO.replaceFile(named: path, with: bytes) else {
          throw FileIO.Failure(code: EINVAL, "it is not a regular file")
        }
      } catch {
        return .failure(.unwritable(path: path, reason: error.reason))
      }
      newestWritten = ticket
      return .success(())
    }
    try written.get()
  }
}

extension Services {
  /// The file `name` in the data directory.
  public func savedFile(_ name: String) -> SavedFile {
    SavedFile(path: "\(dataDirectory)/\(name)", threadPool: threadPool, writeFault: writeFault)
  }
}
