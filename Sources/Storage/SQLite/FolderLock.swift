@_spi(Hosting) import Protocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The state folder, created if missing, held for a storage's life through an exclusive flock
/// on `FOLDER/lock`: SQLite's own locks would let two processes interleave their commits, and
/// each process numbers its lines from `lastSequence`. The holder's PID is written in the file,
/// for the message of the next opener, who is refused.
///
/// The lock belongs to the open file description, so a second storage in the same process is
/// refused too, and the lock goes when the descriptor is closed, or the process dies.
final class FolderLock {
  private let descriptor: Int32

  init(folder: String) throws(InstanceStorageError) {
    try Self.create(folder)
    let path = folder + "/lock"
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw Self.failure("open \(path) for writing") }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      let number = errno
      defer { close(descriptor) }
      guard number == EWOULDBLOCK else { throw Self.failure("lock \(path)", errno: number) }
      let holder = Self.holder(descriptor).map { "process \($0)" } ?? "another process"
      throw InstanceStorageError(.busy, "\(folder) is in use by \(holder)")
    }
    // Written over the old PID, then cut to length, so that a full disk does not refuse it the
    // block the old one had.
    let pid = Array("\(getpid())\n".utf8)
    guard pwrite(descriptor, pid, pid.count, 0) == pid.count,
      ftruncate(descriptor, off_t(pid.count)) == 0
    else {
      let failure = Self.failure("write \(path)")
      close(descriptor)
      throw failure
    }
    self.descriptor = descriptor
  }

  deinit {
    close(descriptor)
  }

  /// Creates the folder's last component; a missing parent is not created, being more likely a
  /// mistyped path than one to make.
  private static func create(_ folder: String) throws(InstanceStorageError) {
    guard mkdir(folder, 0o755) != 0 else { return }
    let number = errno
    var status = stat()
    if number == EEXIST, stat(folder, &status) == 0 {
      guard status.st_mode & S_IFMT == S_IFDIR else {
        throw InstanceStorageError(
          .other, "cannot use \(folder) as the state folder: it is not a folder")
      }
      return
    }
    if number == ENOENT {
      throw InstanceStorageError(
        .other, "cannot create \(folder): its parent folder \(parent(of: folder)) does not exist")
    }
    throw failure("create \(folder)", errno: number)
  }

  private static func parent(of path: String) -> String {
    var path = Substring(path)
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// The PID the holder wrote, when it has (it writes it just after taking the lock).
  private static func holder(_ descriptor: Int32) -> Int32? {
    var bytes = [UInt8](repeating: 0, count: 32)
    let count = pread(descriptor, &bytes, bytes.count, 0)
    guard count > 0 else { return nil }
    return Int32(String(decoding: bytes[..<count], as: UTF8.self).prefix { $0 != "\n" })
  }

  private static func failure(_ operation: String, errno number: Int32 = errno)
    -> InstanceStorageError
  {
    InstanceStorageError(
      errorKind(errno: number), "cannot \(operation): \(String(cString: strerror(number)))")
  }
}
