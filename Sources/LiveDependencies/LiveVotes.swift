import VotesFeature

extension VotesDependencies {
  /// The votes API at `baseURL` (served by `Tests/servers/fixture_server.py`; see
  /// `schemas/votes-api.md`).
  public static func live(http: HTTPJSON, baseURL: String, clock: any Clock<Duration>) -> Self {
    Self(
      fetchCategories: {
        try await http.get(Categories.self, from: "\(baseURL)/votes/categories").categories
      },
      fetchPopular: { try await http.get(Items.self, from: "\(baseURL)/votes/popular").items },
      fetchVotes: { page, size, category in
        var url = "\(baseURL)/votes?page=\(page)&size=\(size)"
        if let category { url += "&category=\(percentEncoded(category))" }
        return try await http.get(VotePage.self, from: url)
      },
      clock: clock)
  }

  private struct Categories: Decodable { var categories: [VoteCategory] }
  private struct Items: Decodable { var items: [Vote] }
}

/// Encodes everything but RFC 3986's unreserved characters, for a query value.
func percentEncoded(_ text: String) -> String {
  var encoded = ""
  for byte in text.utf8 {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "_"), UInt8(ascii: "~"):
      encoded.unicodeScalars.append(Unicode.Scalar(byte))
    default:
      let hex = Array("0123456789ABCDEF".utf8)
      encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
    }
  }
  return encoded
}
