import XCTest

@testable import EventLoop

/// Lines split across chunks, CRLFs, empty lines, an overlong line and a last line without LF.
private let input = Array("a\r\nbb\n\n\r\nccc\r\n0123456789X\ndd\nlast\r".utf8)
private let expected = ["1:a", "2:bb", "5:ccc", "6:overlong 11", "7:dd", "8:last"]

private func describe(_ piece: LineSplitter.Piece) -> String {
  switch piece {
  case .line(let bytes, let number): "\(number):\(text(bytes))"
  case .overlong(let number, let bytes): "\(number):overlong \(bytes)"
  }
}

final class LineSplitterTests: XCTestCase {
  /// Splits `input` into three chunks at every pair of positions: the same pieces every time.
  func testEveryChunkBoundaryGivesTheSameLines() {
    for first in 0...input.count {
      for second in first...input.count {
        let splitter = LineSplitter(maxLineBytes: 10)
        var pieces: [String] = []
        let record: (LineSplitter.Piece) -> Bool = { piece in
          pieces.append(describe(piece))
          return true
        }
        input.withUnsafeBytes { bytes in
          for range in [0..<first, first..<second, second..<input.count] {
            _ = splitter.split(UnsafeRawBufferPointer(rebasing: bytes[range]), record)
          }
        }
        splitter.finish(record)
        XCTAssertEqual(pieces, expected, "split at \(first), \(second)")
      }
    }
  }

  /// Stops at every piece in turn, then splits the rest of that chunk: the same pieces, with the
  /// same numbers, whatever the chunks.
  func testStoppingAtAnyPieceAndSplittingTheRestGivesTheSameLines() {
    for boundary in 0...input.count {
      for stop in expected.indices {
        let splitter = LineSplitter(maxLineBytes: 10)
        var pieces: [String] = []
        let record: (LineSplitter.Piece) -> Bool = { piece in
          pieces.append(describe(piece))
          return pieces.count != stop + 1
        }
        input.withUnsafeBytes { bytes in
          for range in [0..<boundary, boundary..<input.count] {
            var rest = UnsafeRawBufferPointer(rebasing: bytes[range])
            // Each round but the last ends a line: fewer rounds than pieces.
            for _ in expected.indices where !rest.isEmpty {
              rest = UnsafeRawBufferPointer(rebasing: rest[splitter.split(rest, record)...])
            }
          }
        }
        splitter.finish(record)
        // A second finish, as a reader paused by the last line makes, finds nothing.
        splitter.finish(record)
        XCTAssertEqual(pieces, expected, "chunks split at \(boundary), stopped at \(stop)")
      }
    }
  }
}
