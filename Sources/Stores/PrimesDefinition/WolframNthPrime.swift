import ComposableRuntime
import PrimesFeature

#if canImport(Glibc)
  import Glibc
#endif

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
      guard let answer = try await http.get(WolframAnswer.self, from: url).primaryNumber else {
        return nil
      }
      // A server's word is not taken for a prime: what cannot be the nth prime fails the
      // request, as an answer that does not parse does.
      guard Primality.isPrime(answer), NthPrimeBounds.admit(answer, n: n) else {
        throw RequestFailure(
          kind: .decoding, url: url,
          message: "the answer \(answer) cannot be the \(Ordinal.text(n)) prime")
      }
      return answer
    }
  }
}

/// Where the nth prime lies: the first five exactly, and past them between
/// n(ln n + ln ln n − 1) and n(ln n + ln ln n) (Rosser's theorem and its refinement by Dusart),
/// so that an answer off by more than a rounding is refused without computing the prime.
enum NthPrimeBounds {
  private static let first = [2, 3, 5, 7, 11]

  static func admit(_ prime: Int, n: Int) -> Bool {
    guard n >= 1 else { return false }
    if n <= first.count { return prime == first[n - 1] }
    let x = Double(n)
    let logarithms = log(x) + log(log(x))
    return Double(prime) > x * (logarithms - 1) && Double(prime) < x * logarithms
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
