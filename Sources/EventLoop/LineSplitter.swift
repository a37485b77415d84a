import Glibc

/// Cuts a byte stream into lines, handing out slices of the caller's buffer where it can.
///
/// Only a line that spans two chunks is copied (into `carry`), and only up to the length limit:
/// beyond it the line is counted, not kept, so memory stays bounded whatever the input.
/// A reference type on purpose: the callbacks it invokes may call back into the reader that
/// holds it, which a mutating struct method would forbid (exclusive access).
final class LineSplitter {
  /// What the splitter found; slices are valid only during the callback.
  enum Piece {
    /// A non-empty line without its line ending.
    case line(UnsafeRawBufferPointer, number: Int)
    /// A line longer than the limit; `bytes` counts it without the final LF.
    case overlong(number: Int, bytes: Int)
  }

  let maxLineBytes: Int
  /// Physical lines completed so far (each LF ends one, empty or not).
  private var completedLines = 0
  /// The start of a line that did not end in the previous chunk.
  private var carry: [UInt8] = []
  /// Bytes of the current line seen so far once it is known to be too long; nil otherwise.
  private var overlongBytes: Int?

  init(maxLineBytes: Int) {
    self.maxLineBytes = maxLineBytes
  }

  /// Splits `chunk`, calling `emit` for each line ended in it, and returns how many of its bytes
  /// it took. When `emit` returns false (the reader was paused or closed from a callback) it
  /// stops right after that line's LF: splitting the rest later goes on as if it had not.
  func split(_ chunk: UnsafeRawBufferPointer, _ emit: (Piece) -> Bool) -> Int {
    guard let start = chunk.baseAddress else { return 0 }
    let end = start + chunk.count
    var position = start
    while position < end {
      guard let newline = memchr(position, 0x0A, end - position) else {
        keepPartial(UnsafeRawBufferPointer(start: position, count: end - position))
        break
      }
      let newlineAddress = UnsafeRawPointer(newline)
      let segment = UnsafeRawBufferPointer(start: position, count: newlineAddress - position)
      position = newlineAddress + 1
      completedLines += 1
      if !endLine(with: segment, number: completedLines, emit) { return position - start }
    }
    return chunk.count
  }

  /// Delivers a last line that has no LF; call at end of input. Calling it again delivers
  /// nothing.
  func finish(_ emit: (Piece) -> Bool) {
    _ = endLine(
      with: UnsafeRawBufferPointer(start: nil, count: 0), number: completedLines + 1, emit)
  }

  /// Ends the current line with `segment` as its last bytes and emits it unless it is empty.
  private func endLine(
    with segment: UnsafeRawBufferPointer, number: Int, _ emit: (Piece) -> Bool
  ) -> Bool {
    if let seen = overlongBytes {
      overlongBytes = nil
      return emit(.overlong(number: number, bytes: seen + segment.count))
    }
    if carry.isEmpty {
      let line = strippingCarriageReturn(segment)
      if line.count > maxLineBytes { return emit(.overlong(number: number, bytes: segment.count)) }
      return line.isEmpty || emit(.line(line, number: number))
    }
    carry.append(contentsOf: segment)
    defer { resetCarry() }
    let total = carry.count
    let length = carry.last == 0x0D ? total - 1 : total
    if length > maxLineBytes { return emit(.overlong(number: number, bytes: total)) }
    if length == 0 { return true }
    return carry.withUnsafeBytes { bytes in
      emit(.line(UnsafeRawBufferPointer(rebasing: bytes[..<length]), number: number))
    }
  }

  private func keepPartial(_ bytes: UnsafeRawBufferPointer) {
    if let seen = overlongBytes {
      overlongBytes = seen + bytes.count
    } else if carry.count + bytes.count > maxLineBytes + 1 {
      // One byte of slack: a CR that the LF in the next chunk turns into a line ending.
      overlongBytes = carry.count + bytes.count
      carry = []
    } else {
      carry.append(contentsOf: bytes)
    }
  }

  private func resetCarry() {
    carry.removeAll(keepingCapacity: carry.capacity <= 64 * 1024)
  }

  private func strippingCarriageReturn(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    guard let last = line.last, last == 0x0D else { return line }
    return UnsafeRawBufferPointer(rebasing: line.dropLast())
  }
}
