import ComposableRuntime
@_spi(Hosting) import JSON

/// The timeline as one self-contained HTML page: the page's template (`Page/`, compiled into
/// the binary) with its style, its script and the recording inlined, so that the file opens
/// anywhere, offline, and can be attached to a bug report.
///
/// The recording goes in as JSON in a `<script type="application/json">` element:
///
/// ```json
/// {"title":"run.jsonl","header":{…},"stores":[{"name":"primes","initialState":{…}}],
///  "lines":[{"type":"action",…},{"type":"effect",…}]}
/// ```
/// `lines` are the recording's lines after the header, as written; the page reconstructs each
/// store's state from its `initialState` (null for a store this binary does not host) and the
/// patches.
enum TimelinePage {
  /// The page for what `reader` has still to read: the page is written as the lines are read,
  /// so that what is held is the page and one line, not the file besides.
  static func html(
    reading reader: RecordingReader, title: String, initialStates: [String: JSONValue]
  ) throws(RecordingError) -> [UInt8] {
    var page: [UInt8] = []
    // Grown by doubling, the page would at times be held twice.
    page.reserveCapacity(
      PackageResources.timeline_html.count + PackageResources.timeline_css.count
        + PackageResources.timeline_js.count + reader.byteCount + 4096)
    var rest = PackageResources.timeline_html[...]
    func copyTemplate(upTo marker: String) {
      guard let range = rest.firstRange(of: Array(marker.utf8)) else {
        preconditionFailure("the timeline page's template has no \(marker)")
      }
      page += rest[..<range.lowerBound]
      rest = rest[range.upperBound...]
    }
    copyTemplate(upTo: "/*{{style}}*/")
    page += PackageResources.timeline_css
    copyTemplate(upTo: "{{data}}")
    try writeData(reader, title: title, initialStates: initialStates, into: &page)
    copyTemplate(upTo: "/*{{script}}*/")
    page += PackageResources.timeline_js
    page += rest
    return page
  }

  /// The recording as the page reads it. Every `<` becomes `\u003c`, which JSON reads as the
  /// same character and HTML cannot take for the end of the script element: `<` occurs only
  /// inside JSON strings, so the replacement keeps the JSON valid. Answer lines are left out:
  /// the page draws actions and effects.
  private static func writeData(
    _ reader: RecordingReader, title: String, initialStates: [String: JSONValue],
    into page: inout [UInt8]
  ) throws(RecordingError) {
    var json: [UInt8] = []
    json += #"{"title":"#.utf8
    JSONWriter.writeString(title, into: &json)
    json += #","header":"#.utf8
    reader.header.json.write(into: &json)
    json += #","stores":["#.utf8
    for (index, store) in reader.header.stores.enumerated() {
      if index > 0 { json.append(UInt8(ascii: ",")) }
      json += #"{"name":"#.utf8
      JSONWriter.writeString(store, into: &json)
      json += #","initialState":"#.utf8
      (initialStates[store] ?? .null).write(into: &json)
      json.append(UInt8(ascii: "}"))
    }
    json += #"],"lines":["#.utf8
    appendEscaped(json[...], to: &page)
    var isFirst = true
    while let (entry, text) = try reader.next() {
      switch entry {
      case .answer, .stopped: continue
      case .action, .effect: break
      }
      if !isFirst { page.append(UInt8(ascii: ",")) }
      isFirst = false
      appendEscaped(text, to: &page)
    }
    page += "]}".utf8
  }

  private static func appendEscaped(_ json: ArraySlice<UInt8>, to page: inout [UInt8]) {
    var rest = json
    while let less = rest.firstIndex(of: UInt8(ascii: "<")) {
      page += rest[..<less]
      page += #"\u003c"#.utf8
      rest = rest[(less + 1)...]
    }
    page += rest
  }
}
