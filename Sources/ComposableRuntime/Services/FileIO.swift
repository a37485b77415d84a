import EventLoop

#if canImport(Glibc)
  import Glibc
#endif

/// Blocking POSIX file operations, for thread-pool work (and the commands that read a whole
/// file before the loop runs).
package enum FileIO {
  /// Why a file operation failed: an `errno`, and a message for people.
  package struct Failure: Error, CustomStringConvertible {
    /// The `errno` of the call that failed, or the closest one for a refusal of ours.
    package let code: Int32
    private let message: String?
    /// What failed, for people: the message given, or the system's text for the code.
    package var reason: String { message ?? String(cString: strerror(code)) }
    package var description: String { reason }

    /// The failure `errno` `code` names.
    package init(code: Int32) {
      self.code = code
      message = nil
    }

    init(code: Int32, _ message: String) {
      self.code = code
      self.message = message
    }
  }

  /// The bytes of the regular file at `path`, at most `limit` of them: a FIFO would block the
  /// reading thread until a writer came, and a device or a huge file would fill the memory, so
  /// both are refused with a clear reason.
  package static func readAll(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
    // Non-blocking, so that opening a FIFO does not wait for a writer before it is refused.
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw Failure(code: errno) }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0 else { throw Failure(code: errno) }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw Failure(code: EINVAL, "it is not a regular file")
    }
    guard status.st_size <= limit else { throw tooLarge(limit) }
    return try readRemaining(fd, limit: limit, expected: Int(status.st_size))
  }

  /// Everything standard input holds until its end, at most `limit` bytes: a scenario file
  /// given as `-`.
  package static func readStandardInput(limit: Int) throws(Failure) -> [UInt8] {
    try readRemaining(0, limit: limit, expected: 0)
  }

  private static func tooLarge(_ limit: Int) -> Failure {
    Failure(code: EFBIG, "it is larger than the limit of \(limit) bytes")
  }

  private static func readRemaining(_ fd: Int32, limit: Int, expected: Int) throws(Failure)
    -> [UInt8]
  {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(expected)
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure(code: errno)
      }
      if count == 0 { return bytes }
      // A file may have grown since fstat.
      guard bytes.count + count <= limit else { throw tooLarge(limit) }
      bytes.append(contentsOf: chunk[0..<count])
    }
  }

  /// Replaces `path` with `bytes` so that readers, and the disk after a crash, see either the
  /// old content or the new one: temp file, fsync, rename, fsync of the directory.
  ///
  /// The temporary file is `<path>.tmp-<pid>-<random>`. A process killed while writing leaves
  /// one behind; each write removes those of `path` whose process is gone.
  package static func writeAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
    let directory = parentDirectory(of: path)
    try makeDirectories(directory)
    removeStaleTemporaries(of: path, in: directory)
    let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw Failure(code: errno) }
    do throws(Failure) {
      try writeAll(bytes, to: fd)
      guard fsync(fd) == 0 else { throw Failure(code: errno) }
      guard close(fd) == 0 else {
        throw Failure(code: errno)
      }
    } catch {
      close(fd)
      unlink(temporary)
      throw error
    }
    guard rename(temporary, path) == 0 else {
      let failure = Failure(code: errno)
      unlink(temporary)
      throw failure
    }
    // Makes the rename itself durable.
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryFD >= 0 {
      fsync(directoryFD)
      close(directoryFD)
    }
  }

  /// Replaces the regular file `path` names with `bytes`, atomically
  /// (``writeAtomically(_:to:)``), following symbolic links so that a link stays a link and
  /// its target is what changes; a path that does not exist yet (or a link to nothing) is
  /// created. Returns false, writing nothing, when `path` names anything else (a device such as
  /// `/dev/null`, a FIFO, `/dev/stdout`, a folder): renaming over it would replace the node
  /// itself, and a process running as root would swap `/dev/full` for a plain file.
  package static func replaceFile(named path: String, with bytes: [UInt8]) throws(Failure) -> Bool {
    var status = stat()
    guard stat(path, &status) == 0 else {
      guard errno == ENOENT else { throw Failure(code: errno) }
      try writeAtomically(bytes, to: try endOfLinks(from: path))
      return true
    }
    guard status.st_mode & S_IFMT == S_IFREG else { return false }
    guard let resolved = realpath(path, nil) else { throw Failure(code: errno) }
    defer { free(resolved) }
    try writeAtomically(bytes, to: String(cString: resolved))
    return true
  }

  /// Writes a command's output: to standard output when `path` is nil, else to what `path`
  /// names, keeping what it is: a regular file (or a link to one) is replaced
  /// (``replaceFile(named:with:)``), anything else written in place. The failure's reason
  /// names where the bytes could not go.
  package static func writeOutput(_ bytes: [UInt8], to path: String?) throws(Failure) {
    do throws(Failure) {
      guard let path else { return try writeAll(bytes, to: STDOUT_FILENO) }
      if try !replaceFile(named: path, with: bytes) { try writeInPlace(bytes, to: path) }
    } catch {
      throw Failure(code: error.code, "cannot write \(path ?? "standard output"): \(error.reason)")
    }
  }

  /// Where a path that does not exist yet leads: itself, or, for a link to nothing (or a chain
  /// of them), the missing file the last link names.
  private static func endOfLinks(from path: String) throws(Failure) -> String {
    var current = path
    // Linux's own limit on links followed in one path resolution.
    for _ in 0..<40 {
      var status = stat()
      guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else {
        return current
      }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
      let count = readlink(current, &buffer, buffer.count)
      guard count >= 0 else { throw Failure(code: errno) }
      let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current = target.hasPrefix("/") ? target : "\(parentDirectory(of: current))/\(target)"
    }
    throw Failure(code: ELOOP)
  }

  private static func writeInPlace(_ bytes: [UInt8], to path: String) throws(Failure) {
    let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { throw Failure(code: errno) }
    do throws(Failure) {
      try writeAll(bytes, to: fd)
    } catch {
      close(fd)
      throw error
    }
    guard close(fd) == 0 else { throw Failure(code: errno) }
  }

  /// Removes the temporary files of `path` left by processes that no longer run. Those of
  /// this process (a save still in flight) and of running ones (another process saving the
  /// same file) stay; a file that merely looks alike but does not parse stays too.
  static func removeStaleTemporaries(of path: String, in directory: String) {
    let prefix =
      "\(path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...]).tmp-"
    for entry in (try? entries(of: directory)) ?? [] where entry.name.hasPrefix(prefix) {
      let parts = entry.name.dropFirst(prefix.count).split(
        separator: "-", omittingEmptySubsequences: false)
      guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0, UInt32(parts[1]) != nil,
        pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
      else { continue }
      unlink("\(directory)/\(entry.name)")
    }
  }

  /// The names in a folder but `.` and `..`, each with whether it is a folder itself (a link to
  /// one is not), in no particular order.
  package static func entries(of directory: String) throws(Failure) -> [(
    name: String, isDirectory: Bool
  )] {
    guard let stream = opendir(directory) else { throw Failure(code: errno) }
    defer { closedir(stream) }
    var entries: [(name: String, isDirectory: Bool)] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) {
        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard name != "." && name != ".." else { continue }
      var status = stat()
      let isDirectory =
        lstat("\(directory)/\(name)", &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
      entries.append((name, isDirectory))
    }
    return entries
  }

  /// Writes all of `bytes` to `fd` (`writeFully`: a descriptor another process made
  /// non-blocking, as libuv does to a pipe it is handed, is waited for, not failed).
  package static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(Failure) {
    let failure = bytes.withUnsafeBytes { buffer -> LoopError? in
      do throws(LoopError) {
        try writeFully(fd, buffer)
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw Failure(code: -failure.code) }
  }

  /// The folder `path` is in: `.` for a bare name.
  package static func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  static func makeDirectories(_ path: String) throws(Failure) {
    if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
    guard errno == ENOENT else { throw Failure(code: errno) }
    try makeDirectories(parentDirectory(of: path))
    if mkdir(path, 0o755) != 0 && errno != EEXIST { throw Failure(code: errno) }
  }
}
