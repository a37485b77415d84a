import ComposableRuntime
import JSON
import Locks

#if canImport(Glibc)
  import Glibc
#endif

extension FavoritePrimesStorage {
  /// Favourite primes in a JSON file (`[2,3,5]`), read and written on libuv's thread pool.
  ///
  /// Saving is atomic: the list goes to a new temporary file in the same directory, which is
  /// flushed to disk and then renamed over the old one, so a crash or a full disk leaves either
  /// the old file or the new one, never half of one. Saves started later always win, even if
  /// the thread pool runs two of them out of order.
  public static func file(path: String, threadPool: ThreadPool) -> Self {
    let file = FavoritePrimesFile(path: path)
    return Self(
      load: { try await threadPool.run { _ in try file.read() } },
      save: { primes in
        let ticket = file.takeTicket()
        try await threadPool.run { _ in try file.write(primes, ticket: ticket) }
      })
  }
}

/// A failed load or save, worded for the alert that shows it.
public struct FavoritePrimesFileError: Error, CustomStringConvertible, Equatable {
  public let description: String
}

final class FavoritePrimesFile: @unchecked Sendable {
  let path: String
  private let lock = Lock()
  private var nextTicket = 0
  private var newestWritten = -1

  init(path: String) {
    self.path = path
  }

  func takeTicket() -> Int {
    lock.withLock {
      defer { nextTicket += 1 }
      return nextTicket
    }
  }

  func read() throws -> [Int] {
    let bytes: [UInt8]
    do {
      bytes = try FileIO.readAll(path)
    } catch  where error.code == ENOENT {
      throw FavoritePrimesFileError(description: "No favourite primes saved yet at \(path).")
    } catch {
      throw FavoritePrimesFileError(description: "Cannot read \(path): \(error.reason).")
    }
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes)
    } catch {
      throw FavoritePrimesFileError(
        description: "\(path) is not valid JSON (\(error.message)); the favourites were kept.")
    }
    guard case .array(let elements) = value else {
      throw corrupt("it is not a JSON array")
    }
    var primes: [Int] = []
    for element in elements {
      guard case .int(let number) = element else {
        throw corrupt("\(element.jsonString) is not an integer")
      }
      guard Primality.isPrime(number) else { throw corrupt("\(number) is not a prime") }
      primes.append(number)
    }
    return primes
  }

  func write(_ primes: [Int], ticket: Int) throws {
    var bytes = JSONValue.array(primes.map(JSONValue.int)).serialized
    bytes.append(UInt8(ascii: "\n"))
    try lock.withLock {
      // A later save already landed: writing this older list would undo it.
      guard ticket > newestWritten else { return }
      do throws(FileIO.Failure) {
        try FileIO.writeAtomically(bytes, to: path)
      } catch {
        throw FavoritePrimesFileError(description: "Cannot save to \(path): \(error.reason).")
      }
      newestWritten = ticket
    }
  }

  private func corrupt(_ reason: String) -> FavoritePrimesFileError {
    FavoritePrimesFileError(
      description: "\(path) does not hold a list of primes (\(reason)); the favourites were kept.")
  }
}
