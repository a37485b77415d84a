/// Number literals.
extension Parser {
  /// Parses `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
  ///
  /// An integer literal that fits `Int` becomes `.int`; anything else becomes `.number`. The
  /// digits are accumulated while scanning, so most doubles are computed exactly from the
  /// mantissa and a power of ten; only long mantissas or large exponents go through the
  /// standard library's correctly rounded conversion of the text.
  mutating func parseNumber() throws(JSONParseError) -> JSONValue {
    let numberStart = position
    let isNegative = bytes[position] == UInt8(ascii: "-")
    if isNegative {
      position += 1
    }
    var mantissa: UInt64 = 0
    var digitCount = 0
    var decimalExponent = 0
    var isIntegerLiteral = true

    guard let first = current, isDigit(first) else {
      throw unexpected("expected a digit")
    }
    if first == UInt8(ascii: "0") {
      position += 1
      if let next = current, isDigit(next) {
        throw JSONParseError(.invalidJSON, "leading zeros are not allowed", at: numberStart)
      }
    } else {
      accumulateDigits(into: &mantissa, count: &digitCount)
    }

    if current == UInt8(ascii: ".") {
      isIntegerLiteral = false
      position += 1
      guard let digit = current, isDigit(digit) else {
        throw unexpected("expected a digit after the decimal point")
      }
      let fractionStart = position
      accumulateDigits(into: &mantissa, count: &digitCount)
      decimalExponent -= position - fractionStart
    }

    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      isIntegerLiteral = false
      position += 1
      var exponentIsNegative = false
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") {
        exponentIsNegative = current == UInt8(ascii: "-")
        position += 1
      }
      guard let digit = current, isDigit(digit) else {
        throw unexpected("expected a digit in the exponent")
      }
      var exponent = 0
      while let digit = current, isDigit(digit) {
        // Past this the exact value no longer matters: the slow path reads the text.
        if exponent < 100_000 {
          exponent = exponent * 10 + Int(digit - UInt8(ascii: "0"))
        }
        position += 1
      }
      decimalExponent += exponentIsNegative ? -exponent : exponent
    }

    let fitsMantissa = digitCount <= Self.maxExactDigits
    // "-0" is left to the double path: `.number(-0.0)` keeps the sign that `.int` would lose.
    if isIntegerLiteral, fitsMantissa, !(isNegative && mantissa == 0) {
      if isNegative, mantissa <= UInt64(Int.max) + 1 {
        return .int(Int(truncatingIfNeeded: 0 &- mantissa))
      }
      if !isNegative, mantissa <= UInt64(Int.max) {
        return .int(Int(mantissa))
      }
    }
    if fitsMantissa, mantissa <= 1 << 53, abs(decimalExponent) < Self.exactPowersOfTen.count {
      // Both operands are exact doubles, so IEEE rounding of one operation gives the correctly
      // rounded result (Clinger's fast path).
      let magnitude =
        decimalExponent < 0
        ? Double(mantissa) / Self.exactPowersOfTen[-decimalExponent]
        : Double(mantissa) * Self.exactPowersOfTen[decimalExponent]
      return .number(isNegative ? -magnitude : magnitude)
    }
    let text = String(
      decoding: UnsafeBufferPointer(start: bytes + numberStart, count: position - numberStart),
      as: UTF8.self)
    guard let value = Double(text), value.isFinite else {
      throw JSONParseError(
        .numberOutOfRange, "number \(text) does not fit a double", at: numberStart)
    }
    // A literal with a digit other than 0 that reads as zero lies below the smallest double:
    // taken as 0, `1e-400` would pass for an integer.
    if value == 0, hasNonzeroDigit(from: numberStart) {
      throw JSONParseError(
        .numberOutOfRange, "number \(text) is too small for a double (it would read as 0)",
        at: numberStart)
    }
    return .number(value)
  }

  /// Consumes a run of digits, adding them to `mantissa` as long as they fit; `count` keeps
  /// growing past that so the caller knows the mantissa was cut short.
  private mutating func accumulateDigits(into mantissa: inout UInt64, count digitCount: inout Int) {
    while let digit = current, isDigit(digit) {
      if digitCount < Self.maxExactDigits {
        mantissa = mantissa &* 10 &+ UInt64(digit - UInt8(ascii: "0"))
      }
      digitCount += 1
      position += 1
    }
  }

  /// Whether the mantissa of the literal from `start` to here has a digit other than 0.
  private func hasNonzeroDigit(from start: Int) -> Bool {
    for index in start..<position {
      switch bytes[index] {
      case UInt8(ascii: "e"), UInt8(ascii: "E"): return false
      case UInt8(ascii: "1")...UInt8(ascii: "9"): return true
      default: continue
      }
    }
    return false
  }

  private func isDigit(_ byte: UInt8) -> Bool {
    byte &- UInt8(ascii: "0") < 10
  }

  /// Any 19 decimal digits fit a UInt64.
  private static let maxExactDigits = 19

  /// 10^0 ... 10^22: the powers of ten a `Double` holds exactly.
  private static let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]
}
