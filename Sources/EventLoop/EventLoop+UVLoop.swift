import CLibUV

extension EventLoop {
  /// The libuv loop itself, for C libraries driven by handles of their own on it (libcurl's
  /// multi-socket API, libwebsockets' foreign loops). Loop thread only, until `shutdown()`.
  ///
  /// Such handles are not tracked by this module: their owners must close them (and free them
  /// in their close callbacks) before `shutdown()`, which closes leftovers without a callback.
  package var uvLoop: UnsafeMutablePointer<uv_loop_t> { raw }
}
