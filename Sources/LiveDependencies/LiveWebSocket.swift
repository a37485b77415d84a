import JSON
import Networking
import WebSocketFeature

extension WebSocketFeature.WebSocketClient {
  /// The feature's socket interface over the product's WebSocket client on the loop.
  public static func live(_ client: Networking.WebSocketClient) -> Self {
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
        relay(await client.receive(id: id)) { result in
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

/// `stream`'s elements, transformed, pulled by whoever iterates the result: no task of its own,
/// so cancelling the iterating task ends `stream` too, which is what closes a socket when its
/// effect is cancelled.
private func relay<Element: Sendable, Relayed: Sendable>(
  _ stream: AsyncStream<Element>, _ transform: @escaping @Sendable (Element) -> Relayed
) -> AsyncStream<Relayed> {
  let iterator = IteratorBox(stream.makeAsyncIterator())
  return AsyncStream { await iterator.next().map(transform) }
}

/// Holds an iterator for `AsyncStream(unfolding:)`, which only one task calls at a time.
private final class IteratorBox<Element: Sendable>: @unchecked Sendable {
  private var iterator: AsyncStream<Element>.Iterator

  init(_ iterator: AsyncStream<Element>.Iterator) { self.iterator = iterator }

  func next() async -> Element? { await iterator.next() }
}

extension OrderBookCoding {
  /// Upbit's order-book JSON, read and written with the product's JSON parser.
  public static let upbit = Self(
    decode: { bytes in
      guard let json = try? JSONParser.parse(bytes),
        let book = try? JSONValueDecoder().decode(UpbitOrderBook.self, from: json),
        book.type == "orderbook"
      else { return nil }
      return OrderBook(
        code: book.code, timestamp: book.timestamp, totalAskSize: book.totalAskSize,
        totalBidSize: book.totalBidSize,
        asks: book.units.map { .init(price: $0.askPrice, size: $0.askSize) },
        bids: book.units.map { .init(price: $0.bidPrice, size: $0.bidSize) })
    },
    subscription: { ticket, codes in
      let request: JSONValue = [
        ["ticket": .string(ticket)],
        ["type": "orderbook", "codes": .array(codes.map(JSONValue.string))],
      ]
      return String(decoding: request.serialized, as: UTF8.self)
    })
}

/// One frame of Upbit's `orderbook` stream.
private struct UpbitOrderBook: Decodable {
  struct Unit: Decodable {
    var askPrice: Double
    var bidPrice: Double
    var askSize: Double
    var bidSize: Double

    enum CodingKeys: String, CodingKey {
      case askPrice = "ask_price"
      case bidPrice = "bid_price"
      case askSize = "ask_size"
      case bidSize = "bid_size"
    }
  }

  var type: String
  var code: String
  var timestamp: Int
  var totalAskSize: Double
  var totalBidSize: Double
  var units: [Unit]

  enum CodingKeys: String, CodingKey {
    case type, code, timestamp
    case totalAskSize = "total_ask_size"
    case totalBidSize = "total_bid_size"
    case units = "orderbook_units"
  }
}
