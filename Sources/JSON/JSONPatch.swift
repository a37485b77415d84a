/// RFC 6902 JSON Patch: computing a patch between two documents, and applying one.
@_spi(Hosting)
public enum JSONPatch {
  /// Appends a patch as a JSON array of operation objects.
  public static func write(_ patch: [JSONPatchOperation], into buffer: inout [UInt8]) {
    buffer.append(UInt8(ascii: "["))
    for (position, operation) in patch.enumerated() {
      if position > 0 {
        buffer.append(UInt8(ascii: ","))
      }
      operation.write(into: &buffer)
    }
    buffer.append(UInt8(ascii: "]"))
  }
}
