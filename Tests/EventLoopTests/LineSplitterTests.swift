import XCTest

@testable import EventLoop

final class LineSplitterTests: XCTestCase {
  /// Splits `input` into two chunks at every position and checks that the pieces are the same.
  func testEveryChunkBoundaryGivesTheSameLines() {
    let input = Array("a\r\nbb\n\n\r\nccc\r\n0123456789X\ndd\nlast\r".utf8)
    var reference: [String]?
    for first in 0...input.count {
      for second in first...input.count {
        let splitter = LineSplitter(maxLineBytes: 10)
        var pieces: [String] = []
        let record: (LineSplitter.Piece) -> Bool = { piece in
          switch piece {
          case .line(let bytes, let number): pieces.append("\(number):\(text(bytes))")
          case .overlong(let number, let bytes): pieces.append("\(number):overlong \(bytes)")
          }
          return true
        }
        input.withUnsafeBytes { bytes in
          for range in [0..<first, first..<second, second..<input.count] {
            _ = splitter.split(UnsafeRawBufferPointer(rebasing: bytes[range]), record)
          }
        }
        splitter.finish(record)
        if let reference {
          XCTAssertEqual(pieces, reference, "split at \(first), \(second)")
        } else {
          XCTAssertEqual(
            pieces, ["1:a", "2:bb", "5:ccc", "6:overlong 11", "7:dd", "8:last"])
          reference = pieces
        }
      }
    }
  }

  func testStoppingEarly() {
    let splitter = LineSplitter(maxLineBytes: 100)
    var seen: [String] = []
    let stopped = Array("x\ny\nz\n".utf8).withUnsafeBytes { bytes in
      !splitter.split(bytes) { piece in
        if case .line(let line, _) = piece { seen.append(text(line)) }
        return seen.count < 2
      }
    }
    XCTAssertTrue(stopped)
    XCTAssertEqual(seen, ["x", "y"])
  }
}
