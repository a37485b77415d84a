#if canImport(Glibc)
  import Glibc
#endif

/// The lines of a regular file, read a chunk at a time: a command that handles one line after
/// another holds the longest line, not the file. Or the lines of bytes in memory, handed out
/// the same way.
///
/// The file is refused as ``FileIO/readAll(_:limit:)`` refuses it when it is not a regular
/// file; a line longer than `maximumLineBytes` is refused when it is reached.
package final class FileLines {
  /// What a line ends with: its newline, or the end of the file (the last line cut short, or
  /// a file that does not end in a newline).
  package enum Ending: Sendable {
    /// A newline ended the line, or the file's end did.
    case newline, endOfFile
  }

  /// The longest line handed out; a longer one is refused.
  package let maximumLineBytes: Int
  /// The file's size when it was opened.
  package let fileBytes: Int
  /// -1 for bytes in memory.
  private let fd: Int32
  /// Bytes read and not handed out yet start at `start`.
  private var buffer: [UInt8] = []
  private var start = 0
  /// Where the search for the next newline goes on: the bytes before it have none.
  private var searched = 0
  private var isAtEnd = false
  private static let chunkBytes = 1 << 20

  /// The lines of the file at `path`, each at most `maximumLineBytes`; throws when the file
  /// cannot be opened or is not a regular file.
  package init(path: String, maximumLineBytes: Int) throws(FileIO.Failure) {
    self.maximumLineBytes = maximumLineBytes
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw FileIO.Failure(code: errno) }
    var status = stat()
    guard fstat(fd, &status) == 0 else {
      let code = errno
      close(fd)
      throw FileIO.Failure(code: code)
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw FileIO.Failure(code: EINVAL, "it is not a regular file")
    }
    self.fd = fd
    fileBytes = Int(status.st_size)
  }

  /// The lines of `bytes`.
  package init(bytes: [UInt8], maximumLineBytes: Int) {
    self.maximumLineBytes = maximumLineBytes
    fd = -1
    fileBytes = bytes.count
    buffer = bytes
    isAtEnd = true
  }

  deinit {
    if fd >= 0 { close(fd) }
  }

  /// The next line without its newline, nil at the end of the file. The bytes are valid until
  /// the next call.
  package func next() throws(FileIO.Failure) -> (line: ArraySlice<UInt8>, ending: Ending)? {
    while true {
      let newline = buffer[searched...].firstIndex(of: UInt8(ascii: "\n"))
      let end = newline ?? buffer.count
      guard end - start <= maximumLineBytes else {
        throw FileIO.Failure(
          code: EFBIG, "a line is longer than the limit of \(maximumLineBytes) bytes")
      }
      if newline != nil || (isAtEnd && start < end) {
        let line = buffer[start..<end]
        start = min(end + 1, buffer.count)
        searched = start
        return (line, newline == nil ? .endOfFile : .newline)
      }
      searched = end
      if isAtEnd { return nil }
      try readChunk()
    }
  }

  private func readChunk() throws(FileIO.Failure) {
    // What was handed out goes: the buffer holds at most the line being read and one chunk.
    if start > 0 {
      buffer.removeSubrange(..<start)
      searched -= start
      start = 0
    }
    let kept = buffer.count
    buffer.append(contentsOf: repeatElement(0, count: Self.chunkBytes))
    var count: Int
    repeat {
      count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + kept, Self.chunkBytes) }
    } while count < 0 && errno == EINTR
    guard count >= 0 else {
      let code = errno
      buffer.removeSubrange(kept...)
      throw FileIO.Failure(code: code)
    }
    buffer.removeSubrange((kept + count)...)
    if count == 0 { isAtEnd = true }
  }
}
