import JSON

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
  static func html(
    for recording: RecordingFile, title: String, initialStates: [String: JSONValue]
  ) -> [UInt8] {
    var page: [UInt8] = []
    page.reserveCapacity(
      PackageResources.timeline_html.count + PackageResources.timeline_css.count
        + PackageResources.timeline_js.count + recording.lines.reduce(0) { $0 + $1.count + 1 }
        + 4096)
    var rest = PackageResources.timeline_html[...]
    for (marker, content) in [
      ("/*{{style}}*/", PackageResources.timeline_css[...]),
      ("{{data}}", data(recording, title: title, initialStates: initialStates)[...]),
      ("/*{{script}}*/", PackageResources.timeline_js[...]),
    ] {
      guard let range = rest.firstRange(of: Array(marker.utf8)) else {
        preconditionFailure("the timeline page's template has no \(marker)")
      }
      page += rest[..<range.lowerBound]
      page += content
      rest = rest[range.upperBound...]
    }
    page += rest
    return page
  }

  /// The recording as the page reads it. Every `<` becomes `\u003c`, which JSON reads as the
  /// same character and HTML cannot take for the end of the script element: `<` occurs only
  /// inside JSON strings, so the replacement keeps the JSON valid.
  static func data(
    _ recording: RecordingFile, title: String, initialStates: [String: JSONValue]
  ) -> [UInt8] {
    var json: [UInt8] = []
    json += #"{"title":"#.utf8
    JSONWriter.writeString(title, into: &json)
    json += #","header":"#.utf8
    recording.header.json.write(into: &json)
    json += #","stores":["#.utf8
    for (index, store) in recording.header.stores.enumerated() {
      if index > 0 { json.append(UInt8(ascii: ",")) }
      json += #"{"name":"#.utf8
      JSONWriter.writeString(store, into: &json)
      json += #","initialState":"#.utf8
      (initialStates[store] ?? .null).write(into: &json)
      json.append(UInt8(ascii: "}"))
    }
    json += #"],"lines":["#.utf8
    for (index, line) in recording.lines.enumerated() {
      if index > 0 { json.append(UInt8(ascii: ",")) }
      json += line
    }
    json += "]}".utf8
    var escaped: [UInt8] = []
    escaped.reserveCapacity(json.count)
    for byte in json {
      if byte == UInt8(ascii: "<") { escaped += #"\u003c"#.utf8 } else { escaped.append(byte) }
    }
    return escaped
  }
}
