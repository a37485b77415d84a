import ComposableRuntime
import VotesFeature

extension VotesDependencies {
  /// The votes API at `baseURL` (served by `Tests/servers/fixture_server.py`; see
  /// `schemas/votes-api.md`).
  public static func live(http: HTTPService, baseURL: String, clock: any Clock<Duration>) -> Self {
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
