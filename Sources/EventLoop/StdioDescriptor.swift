import CLibUV
import Glibc

/// How this module drives a standard-stream descriptor, decided by `uv_guess_handle`.
enum StdioKind {
  /// A pipe or a socket: a `uv_pipe_t` on a private descriptor.
  case pipe
  /// A terminal: a `uv_tty_t` (libuv reopens the terminal itself).
  case tty
  /// A regular file or a character device such as `/dev/null`: epoll cannot watch these, and
  /// `uv_pipe_open` on a regular file makes libuv abort, so they get plain reads and writes.
  case file

  init(fd: Int32, operation: String) throws(LoopError) {
    switch uv_guess_handle(fd) {
    case UV_NAMED_PIPE, UV_TCP: self = .pipe
    case UV_TTY: self = .tty
    case UV_FILE: self = .file
    default: throw LoopError(code: UV_EINVAL.rawValue, operation: operation)
    }
  }
}

extension EventLoop {
  /// Opens the pipe or socket behind `fd` as a `uv_pipe_t` on a private descriptor (see
  /// `openPrivateDescriptor`), closed through `owner`.
  func openStdioPipe(
    _ fd: Int32, flags: Int32, owner: some LoopHandleOwner, operation: String
  ) throws(LoopError) -> UnsafeMutablePointer<uv_stream_t> {
    let descriptor = try openPrivateDescriptor(fd, flags: flags, operation: operation)
    let pipe: UnsafeMutablePointer<uv_pipe_t>
    do {
      pipe = try openHandle(uv_pipe_t.self, owner: owner, operation: "uv_pipe_init") {
        uv_pipe_init(raw, $0, 0)
      }
    } catch {
      Glibc.close(descriptor)
      throw error
    }
    let rc = uv_pipe_open(pipe, descriptor)
    if rc < 0 {
      Glibc.close(descriptor)
      closeHandle(pipe)
      throw LoopError(code: rc, operation: "uv_pipe_open")
    }
    return uvStream(pipe)
  }

  /// Opens the terminal behind `fd` as a `uv_tty_t`; libuv reopens it itself, so its
  /// non-blocking mode stays private.
  func openStdioTTY(_ fd: Int32, readable: Bool, owner: some LoopHandleOwner) throws(LoopError)
    -> UnsafeMutablePointer<uv_stream_t>
  {
    let tty = try openHandle(uv_tty_t.self, owner: owner, operation: "uv_tty_init") {
      uv_tty_init(raw, $0, fd, readable ? 1 : 0)
    }
    return uvStream(tty)
  }
}

/// Opens a private descriptor for the pipe or socket behind `fd`.
///
/// `uv_pipe_open` makes its descriptor non-blocking, and `O_NONBLOCK` lives on the open file
/// description, which a pipe's other users (the shell, a sibling process) share: they would
/// start failing with `EAGAIN`. Reopening `/proc/self/fd/N` creates a new description.
///
/// Only anonymous pipes are reopened. A socket cannot be, and a named FIFO reopened after its
/// writers left would never report end of input (Linux suppresses EPOLLHUP until a writer comes
/// back); both fall back to `dup`, which does share the flag.
func openPrivateDescriptor(_ fd: Int32, flags: Int32, operation: String) throws(LoopError) -> Int32
{
  let path = "/proc/self/fd/\(fd)"
  if isAnonymousPipe(path) {
    var reopened: Int32 = -1
    repeat {
      reopened = open(path, flags | O_CLOEXEC)
    } while reopened < 0 && errno == EINTR
    if reopened >= 0 { return reopened }
  }
  let duplicate = fcntl(fd, F_DUPFD_CLOEXEC, 0)
  if duplicate < 0 { throw LoopError(code: -errno, operation: operation) }
  return duplicate
}

/// Whether the /proc link names an anonymous pipe (`pipe:[inode]`), not a FIFO or a socket.
private func isAnonymousPipe(_ path: String) -> Bool {
  var target = [CChar](repeating: 0, count: 64)
  let length = readlink(path, &target, target.count)
  guard length > 0 else { return false }
  return target[..<length].starts(with: Array("pipe:".utf8CString.dropLast()))
}
