/// Arithmetic that stops at the type's bounds instead of trapping.
extension FixedWidthInteger {
  /// `self + other`, or the bound it went past: for counts and times that a file or a host can
  /// push to the ends of their range, where a trap would end the whole process.
  @inlinable public func addingSaturating(_ other: Self) -> Self {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? (other < 0 ? .min : .max) : sum
  }

  /// `self - other`, or the bound it went past.
  @inlinable public func subtractingSaturating(_ other: Self) -> Self {
    let (difference, overflow) = subtractingReportingOverflow(other)
    return overflow ? (other < 0 ? .max : .min) : difference
  }
}
