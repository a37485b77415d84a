import Logging
@_spi(Hosting) import Protocol

extension Services {
  /// The services as one instance of a store sees them: the same loop, clock, transports and
  /// randomness, with the instance's own files and sockets. A named instance keeps its files in
  /// `<data directory>/instances/<key as a file name>/`, so that two sessions of a store never
  /// write each other's files, and its socket ids are its own, so that two instances opening the
  /// socket "main" open two sockets. The default instance sees the services as they are.
  package func about(_ instance: InstanceKey?) -> Services {
    guard let instance else { return self }
    var services = self
    services.dataDirectory = "\(dataDirectory)/instances/\(instance.fileName)"
    services.webSocket = webSocket.scoped(to: instance)
    // A metadata provider, not metadata: the stream handler formats its metadata whenever it
    // is set, which cost most of an instance's services; a provider is asked when a line is
    // logged, which a store rarely does.
    let key = instance.value
    let instanceMetadata = Logger.MetadataProvider { ["instance": .string(key)] }
    var handler = services.log.handler
    handler.metadataProvider =
      handler.metadataProvider.flatMap { .multiplex([$0, instanceMetadata]) } ?? instanceMetadata
    services.log.handler = handler
    return services
  }
}

extension WebSocketService {
  /// The same sockets, under ids no other instance can name: the key's length first, so that
  /// no pair of key and id reads as another pair.
  fileprivate func scoped(to instance: InstanceKey) -> WebSocketService {
    // The four functions share one object, which each captures alone and so holds without a
    // context of its own; the prefix is written per call, as sockets are used far less often
    // than instances are activated.
    let scope = SocketScope(service: self, key: instance.value)
    return WebSocketService(
      open: { id, url, protocols in await scope.service.open(scope.id(id), url, protocols) },
      receive: { id in await scope.service.receive(scope.id(id)) },
      send: { id, message in try await scope.service.send(scope.id(id), message) },
      sendPing: { id in try await scope.service.sendPing(scope.id(id)) })
  }
}

private final class SocketScope: Sendable {
  let service: WebSocketService
  let key: String

  init(service: WebSocketService, key: String) {
    self.service = service
    self.key = key
  }

  func id(_ id: String) -> String { "\(key.utf8.count):\(key)/\(id)" }
}

/// An instance's key as the data folder names it.
extension InstanceKey {
  /// The key as one file name, the same in every process: bytes other than ASCII letters,
  /// digits, `-` and `_` are written `%XX`, and a name that would pass 200 bytes is cut and
  /// ends with `~` and a 64-bit FNV-1a hash of the whole key, as a file name may not pass 255.
  public var fileName: String {
    // Read in place, as one buffer: an activation asks this of every key.
    let isItsOwnName =
      value.utf8.withContiguousStorageIfAvailable {
        $0.count <= 200 && $0.allSatisfy(Self.isKeptInFileNames)
      } ?? (value.utf8.count <= 200 && value.utf8.allSatisfy(Self.isKeptInFileNames))
    if isItsOwnName { return value }
    var name = ""
    for byte in value.utf8 {
      if Self.isKeptInFileNames(byte) {
        name.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        name += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    guard name.utf8.count > 200 else { return name }
    var cut = name.utf8.prefix(180)
    // Not in the middle of a `%XX`.
    if let percent = cut.suffix(2).lastIndex(of: UInt8(ascii: "%")) { cut = cut[..<percent] }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in value.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    return String(decoding: cut, as: UTF8.self) + "~"
      + String(hash, radix: 16).leftPadded(to: 16)
  }
}

extension InstanceKey {
  fileprivate static func isKeptInFileNames(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
      true
    default:
      false
    }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
