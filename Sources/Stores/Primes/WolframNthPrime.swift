import ComposableRuntime

extension NthPrimeClient {
  /// PrimeTime's original: asks Wolfram|Alpha's full results API for "prime n" and reads the
  /// primary pod's plain text. A failed request or an answer without a number is `nil`, which
  /// the screen shows as an alert.
  public static func wolfram(http: HTTPService, baseURL: String, appID: String) -> Self {
    Self(largestN: nil) { n in
      guard n >= 1 else { return nil }
      let url =
        "\(baseURL)/v2/query?input=\(percentEncoded("prime \(n)"))&format=plaintext&output=JSON"
        + "&appid=\(percentEncoded(appID))"
      return try await http.get(WolframAnswer.self, from: url).primaryNumber
    }
  }
}

/// The part of a Wolfram|Alpha answer PrimeTime reads.
struct WolframAnswer: Decodable {
  struct QueryResult: Decodable {
    var pods: [Pod]?
  }

  struct Pod: Decodable {
    var primary: Bool?
    var subpods: [Subpod]
  }

  struct Subpod: Decodable {
    var plaintext: String?
  }

  var queryresult: QueryResult

  /// The integer in the primary pod's first plain text, if there is one.
  var primaryNumber: Int? {
    let primary = queryresult.pods?.first { $0.primary == true }
    return primary?.subpods.first?.plaintext.flatMap { Int($0) }
  }
}
