/// Integer conversions of doubles that do not need libm.
///
/// `Int(exactly: Double)` and `rounded(.towardZero)` compile to calls to C's `trunc`, and a
/// program that links this module without Foundation has no libm to resolve it. A truncating
/// conversion is a single instruction; comparing its result back to the input tells whether it
/// was exact.
extension Double {
  /// The value as an `Int` when it is integral and in range.
  var exactInt: Int? {
    guard self >= -0x1p63, self < 0x1p63 else { return nil }
    let truncated = Int(self)
    return Double(truncated) == self ? truncated : nil
  }

  /// Whether the value is finite and has no fractional part.
  var isIntegral: Bool {
    if exactInt != nil {
      return true
    }
    // Beyond 2^52 every finite double is an integer.
    return isFinite && magnitude >= 0x1p52
  }

  /// The value as a `T` when it is integral and in range.
  func exactInteger<T: FixedWidthInteger>(as type: T.Type) -> T? {
    if let integer = exactInt {
      return T(exactly: integer)
    }
    // Only unsigned types reach past Int.max; all doubles there are integers.
    guard self >= 0x1p63, self < 0x1p64 else { return nil }
    return T(exactly: UInt64(self))
  }
}
