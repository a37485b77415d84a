import ComposableDependencies

extension OrderBookCoding {
  /// Upbit's order-book JSON, read and written with the product's JSON parser.
  public static let upbit = Self(
    decode: { bytes in
      guard let book = try? JSONBytesDecoder().decode(UpbitOrderBook.self, from: bytes),
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
