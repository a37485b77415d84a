import EventLoop
import Networking

extension WebSocketService {
  /// The service over the product's WebSocket client on the loop. Each message waits for
  /// `output` to be open before it is taken from the socket, which stops reading once enough
  /// wait: a host that does not read stdout slows the server down instead of filling memory.
  package static func live(_ client: Networking.WebSocketClient, output: OutputGate) -> Self {
    Self(
      open: { id, url, protocols in
        let events = await client.open(id: id, url: url, protocols: protocols)
        return relay(events) { event in
          switch event {
          case .didOpen(let chosen): .didOpen(protocol: chosen)
          case .didClose(let code, let reason): .didClose(code: code, reason: reason)
          }
        }
      },
      receive: { id in
        relay(await client.receive(id: id), waitingFor: output) { result in
          switch result {
          case .success(.text(let text)): .success(.text(text))
          case .success(.binary(let bytes)): .success(.binary(bytes))
          case .failure(let error): .failure(error.description)
          }
        }
      },
      send: { id, message in
        switch message {
        case .text(let text): try await client.send(id: id, message: .text(text))
        case .binary(let bytes): try await client.send(id: id, message: .binary(bytes))
        }
      },
      sendPing: { id in try await client.sendPing(id: id) })
  }
}

/// `stream`'s elements, transformed, pulled by whoever iterates the result, each once `gate`
/// is open: no task of its own, so cancelling the iterating task ends `stream` too, which is
/// what closes a socket when its effect is cancelled.
func relay<Element: Sendable, Relayed: Sendable>(
  _ stream: AsyncStream<Element>, waitingFor gate: OutputGate? = nil,
  _ transform: @escaping @Sendable (Element) async -> Relayed
) -> AsyncStream<Relayed> {
  let iterator = AsyncIteratorBox(stream.makeAsyncIterator())
  return AsyncStream {
    await gate?.waitUntilOpen()
    guard let element = await iterator.next() else { return nil }
    return await transform(element)
  }
}
