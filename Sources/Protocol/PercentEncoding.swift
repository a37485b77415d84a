/// Encodes everything but RFC 3986's unreserved characters, for a query value or
/// a segment of a URI.
public func percentEncoded(_ text: String) -> String {
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
