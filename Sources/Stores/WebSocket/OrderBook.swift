/// An order book of one market, as the screen shows it: asks and bids sorted by price, highest
/// first (Upbit's `orderbook` stream, the second original).
public struct OrderBook: Equatable, Codable, Sendable {
  public struct Level: Equatable, Codable, Sendable {
    public var price: Double
    public var size: Double

    public init(price: Double, size: Double) {
      self.price = price
      self.size = size
    }
  }

  public var code: String
  /// Milliseconds since the Unix epoch, from the server.
  public var timestamp: Int
  public var totalAskSize: Double
  public var totalBidSize: Double
  public var asks: [Level]
  public var bids: [Level]

  /// Sorts the levels, whatever order the server sent them in.
  public init(
    code: String, timestamp: Int, totalAskSize: Double, totalBidSize: Double, asks: [Level],
    bids: [Level]
  ) {
    self.code = code
    self.timestamp = timestamp
    self.totalAskSize = totalAskSize
    self.totalBidSize = totalBidSize
    self.asks = asks.sorted { $0.price > $1.price }
    self.bids = bids.sorted { $0.price > $1.price }
  }
}
