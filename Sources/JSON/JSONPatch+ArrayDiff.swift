/// How ``JSONPatch/diff(from:to:)`` patches an array: the common prefix and suffix are kept,
/// and the elements between them are matched by identity, or by a shortest edit script, or
/// pairwise, in that order of preference (see the documentation of `diff`).
extension Differ {
  mutating func compareArrays(_ old: [JSONValue], _ new: [JSONValue]) {
    let comparison = ArrayComparison(old, new)
    switch comparison.matching {
    case .pairwise:
      replacePairwise(comparison.oldMiddle, comparison.newMiddle)
    case .identity(let matches):
      replaceByIdentity(comparison.oldMiddle, comparison.newMiddle, matches)
    case .editScript(let script):
      replace(comparison.oldMiddle, comparison.newMiddle, following: script)
    }
  }

  /// Compares `old[i]` with `new[i]` in place and removes or adds the surplus: the fallback, and
  /// exact when one side is empty.
  private mutating func replacePairwise(_ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>)
  {
    let start = old.startIndex
    let paired = min(old.count, new.count)
    for offset in 0..<paired where old[start + offset] != new[start + offset] {
      compareElement(at: start + offset, old[start + offset], new[start + offset])
    }
    // Highest index first, so each remove leaves the indices still to come unchanged.
    for index in (start + paired..<start + old.count).reversed() {
      let path = pointer(appending: .index(index))
      operations.append(.remove(path: path))
    }
    for index in start + paired..<start + new.count {
      let path = pointer(appending: .index(index))
      operations.append(.add(path: path, value: new[index]))
    }
  }

  /// Removes the old elements whose id is gone or that moved, then walks the new elements in
  /// order: an element that stayed is at its new index by then and is diffed there, any other
  /// is added.
  private mutating func replaceByIdentity(
    _ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>, _ matches: IdentityMatches
  ) {
    let start = old.startIndex
    for offset in (0..<old.count).reversed() where !matches.oldStays[offset] {
      let path = pointer(appending: .index(start + offset))
      operations.append(.remove(path: path))
    }
    for offset in 0..<new.count {
      let index = start + offset
      if let oldOffset = matches.stayingOldOffset[offset] {
        let before = old[old.startIndex + oldOffset]
        if before != new[index] { compareElement(at: index, before, new[index]) }
      } else {
        let path = pointer(appending: .index(index))
        operations.append(.add(path: path, value: new[index]))
      }
    }
  }

  /// Follows an edit script; a run of deletions next to a run of insertions is an element
  /// changed in place as often as the two runs pair up, and is diffed there.
  private mutating func replace(
    _ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>, following script: EditScript
  ) {
    var index = old.startIndex
    var oldIndex = old.startIndex
    var newIndex = new.startIndex
    for run in script.runs {
      let paired = min(run.deleted, run.inserted)
      for offset in 0..<paired where old[oldIndex + offset] != new[newIndex + offset] {
        compareElement(at: index + offset, old[oldIndex + offset], new[newIndex + offset])
      }
      for _ in paired..<max(run.deleted, paired) {
        let path = pointer(appending: .index(index + paired))
        operations.append(.remove(path: path))
      }
      for offset in paired..<max(run.inserted, paired) {
        let path = pointer(appending: .index(index + offset))
        operations.append(.add(path: path, value: new[newIndex + offset]))
      }
      index += run.inserted + run.kept
      oldIndex += run.deleted + run.kept
      newIndex += run.inserted + run.kept
    }
  }

  private mutating func compareElement(at index: Int, _ old: JSONValue, _ new: JSONValue) {
    compare(old, new, at: .index(index))
  }
}

/// Two arrays as far as they differ: their common prefix and suffix, the middles between, and
/// how the middles' elements correspond. The patch and the difference report both follow it.
struct ArrayComparison {
  enum Matching {
    /// Element `i` of one middle with element `i` of the other, the surplus removed or added:
    /// exact when a middle is empty, else the fallback.
    case pairwise
    case identity(IdentityMatches)
    case editScript(EditScript)
  }

  let prefix: Int
  let suffix: Int
  let oldMiddle: ArraySlice<JSONValue>
  let newMiddle: ArraySlice<JSONValue>
  let matching: Matching

  init(_ old: [JSONValue], _ new: [JSONValue]) {
    let shorterCount = min(old.count, new.count)
    var prefix = 0
    while prefix < shorterCount, old[prefix] == new[prefix] {
      prefix += 1
    }
    var suffix = 0
    while suffix < shorterCount - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
    {
      suffix += 1
    }
    self.prefix = prefix
    self.suffix = suffix
    oldMiddle = old[prefix..<old.count - suffix]
    newMiddle = new[prefix..<new.count - suffix]
    if oldMiddle.isEmpty || newMiddle.isEmpty {
      matching = .pairwise
    } else if let matches = IdentityMatches(oldMiddle, newMiddle) {
      matching = .identity(matches)
    } else if Self.matchOnlyInPlace(oldMiddle, newMiddle) {
      matching = .pairwise
    } else if let script = EditScript(oldMiddle, newMiddle) {
      matching = .editScript(script)
    } else {
      matching = .pairwise
    }
  }
}

extension ArrayComparison {
  /// Middles up to this length are checked pair by pair, longer ones through a dictionary.
  static let pairwiseCheckLimit = 32

  /// Whether the middles have the same length and no element of one equals an element of the
  /// other at another offset: then a shortest edit script keeps exactly the elements that
  /// stayed in place and pairs every other one with the element at its offset, which is the
  /// pairwise patch, found without searching. A newer value of a list of records of the same
  /// shape (an order book's levels) is this case: most elements changed where they are.
  ///
  /// Told by fingerprints (equal elements have equal ones), so each element is read once;
  /// fingerprints that match across offsets (or, in a long middle, repeat within one) leave
  /// it to the search, as a real match would.
  static func matchOnlyInPlace(_ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>) -> Bool {
    guard old.count == new.count else { return false }
    let oldPrints = old.map(\.fingerprint)
    let newPrints = new.map(\.fingerprint)
    if old.count <= pairwiseCheckLimit {
      for (oldOffset, oldPrint) in oldPrints.enumerated() {
        for (newOffset, newPrint) in newPrints.enumerated()
        where newPrint == oldPrint && newOffset != oldOffset {
          return false
        }
      }
      return true
    }
    var newOffsetByPrint: [UInt64: Int] = [:]
    newOffsetByPrint.reserveCapacity(newPrints.count)
    for (offset, print) in newPrints.enumerated() {
      guard newOffsetByPrint.updateValue(offset, forKey: print) == nil else { return false }
    }
    for (offset, print) in oldPrints.enumerated() {
      if let newOffset = newOffsetByPrint[print], newOffset != offset { return false }
    }
    return true
  }
}

extension JSONValue {
  /// A 64-bit hash that equal values share (as `==` has it: `.int(1)` and `.number(1.0)`
  /// alike, object members in any order), much cheaper than `Hasher`: a mismatch proves the
  /// values differ, a match proves nothing.
  var fingerprint: UInt64 {
    switch self {
    case .null: 0x6e75_6c6c
    case .bool(let value): value ? 0x7472_7565 : 0x6661_6c73
    case .int(let value): Self.mix(2, UInt64(bitPattern: Int64(value)))
    case .number(let value):
      if let integer = value.exactInt {
        Self.mix(2, UInt64(bitPattern: Int64(integer)))
      } else {
        Self.mix(3, value.bitPattern)
      }
    case .string(let value): Self.fingerprint(utf8: value)
    case .array(let elements):
      elements.reduce(Self.mix(5, UInt64(elements.count))) { Self.mix($0, $1.fingerprint) }
    case .object(let object):
      // A sum, so that the order of the members does not count. A key counts by its length
      // alone: records of one shape share their keys, which tell them apart no better.
      object.entries.reduce(Self.mix(6, UInt64(object.count))) {
        $0 &+ Self.mix(UInt64($1.key.utf8.count), $1.value.fingerprint)
      }
    }
  }

  private static func fingerprint(utf8 string: String) -> UInt64 {
    var string = string
    return string.withUTF8 { bytes in
      bytes.reduce(mix(4, UInt64(bytes.count))) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
  }

  private static func mix(_ hash: UInt64, _ value: UInt64) -> UInt64 {
    var mixed = (hash ^ value) &* 0x9e37_79b9_7f4a_7c15
    mixed ^= mixed >> 29
    return mixed
  }
}

/// Which elements of two arrays are the same element, by their `id` member: found when every
/// element of both is an object with an `id` that is a string or an integer, distinct within
/// each array.
struct IdentityMatches {
  /// For each new element, the offset of the old element with its id, if that one stays in
  /// place (is not moved).
  var stayingOldOffset: [Int?]
  /// For each old element, whether it stays: its id is still there and it did not move.
  var oldStays: [Bool]

  init?(_ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>) {
    guard let oldIDs = Self.ids(old), let newIDs = Self.ids(new) else { return nil }
    var newOffsetByID: [JSONValue: Int] = [:]
    newOffsetByID.reserveCapacity(newIDs.count)
    for (offset, id) in newIDs.enumerated() {
      guard newOffsetByID.updateValue(offset, forKey: id) == nil else { return nil }
    }
    var oldOffsetByID: [JSONValue: Int] = [:]
    oldOffsetByID.reserveCapacity(oldIDs.count)
    for (offset, id) in oldIDs.enumerated() {
      guard oldOffsetByID.updateValue(offset, forKey: id) == nil else { return nil }
    }
    // The old elements still there, in old order, by their new offset: those that stay are a
    // longest increasing run of new offsets, the others moved.
    let kept = oldIDs.indices.compactMap { offset in
      newOffsetByID[oldIDs[offset]].map { (old: offset, new: $0) }
    }
    oldStays = Array(repeating: false, count: old.count)
    stayingOldOffset = Array(repeating: nil, count: new.count)
    for position in longestIncreasingSubsequence(kept.map(\.new)) {
      oldStays[kept[position].old] = true
      stayingOldOffset[kept[position].new] = kept[position].old
    }
  }

  private static func ids(_ elements: ArraySlice<JSONValue>) -> [JSONValue]? {
    var ids: [JSONValue] = []
    ids.reserveCapacity(elements.count)
    for element in elements {
      guard case .object(let object) = element, let id = object["id"] else { return nil }
      switch id {
      case .string, .int: ids.append(id)
      default: return nil
      }
    }
    return ids
  }
}

/// The positions of a longest strictly increasing subsequence of `values`, in order (patience
/// sorting, O(n log n)).
func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
  // tails[k]: the position of the smallest last value of an increasing run of length k + 1.
  var tails: [Int] = []
  var previous = Array(repeating: -1, count: values.count)
  for position in values.indices {
    var low = 0
    var high = tails.count
    while low < high {
      let middle = (low + high) / 2
      if values[tails[middle]] < values[position] { low = middle + 1 } else { high = middle }
    }
    if low > 0 { previous[position] = tails[low - 1] }
    if low == tails.count { tails.append(position) } else { tails[low] = position }
  }
  var result: [Int] = []
  result.reserveCapacity(tails.count)
  var position = tails.last ?? -1
  while position >= 0 {
    result.append(position)
    position = previous[position]
  }
  return result.reversed()
}

/// A shortest edit script between two arrays (Myers' O((N+M)D) algorithm), or nil when finding
/// one would take more than a few comparisons per element: the script is for the common case of
/// a few inserts and deletes in a long array.
struct EditScript {
  /// Deletions, then insertions, then kept elements, from the start of both arrays.
  struct Run {
    var deleted = 0
    var inserted = 0
    var kept = 0
  }

  var runs: [Run] = []

  /// Comparisons allowed per element of the two arrays.
  static let comparisonsPerElement = 8
  /// Edits beyond which the script is not searched: its table grows as their square.
  static let maxEdits = 64

  init?(_ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>) {
    let n = old.count
    let m = new.count
    let maxEdits = min(n + m, Self.maxEdits)
    var budget = Self.comparisonsPerElement * (n + m) + 64
    let offset = maxEdits + 1
    // frontier[k + offset]: the furthest x reached on diagonal k = x - y.
    var frontier = Array(repeating: 0, count: 2 * maxEdits + 3)
    var trace: [[Int]] = []
    var edits = -1
    search: for d in 0...maxEdits {
      trace.append(frontier)
      for k in stride(from: -d, through: d, by: 2) {
        var x: Int
        if k == -d || (k != d && frontier[k - 1 + offset] < frontier[k + 1 + offset]) {
          x = frontier[k + 1 + offset]
        } else {
          x = frontier[k - 1 + offset] + 1
        }
        var y = x - k
        while x < n, y < m, old[old.startIndex + x] == new[new.startIndex + y] {
          x += 1
          y += 1
          budget -= 1
        }
        budget -= 1
        if budget < 0 { return nil }
        frontier[k + offset] = x
        if x >= n, y >= m {
          edits = d
          break search
        }
      }
    }
    guard edits >= 0 else { return nil }
    runs = Self.runs(trace: trace, edits: edits, n: n, m: m, offset: offset)
  }

  /// Walks the trace back from the end, collecting the edits, then groups them into runs.
  private static func runs(trace: [[Int]], edits: Int, n: Int, m: Int, offset: Int) -> [Run] {
    enum Step { case delete, insert, keep }
    var steps: [Step] = []
    var x = n
    var y = m
    for d in stride(from: edits, to: 0, by: -1) {
      let frontier = trace[d]
      let k = x - y
      let previousK =
        (k == -d || (k != d && frontier[k - 1 + offset] < frontier[k + 1 + offset]))
        ? k + 1 : k - 1
      let previousX = frontier[previousK + offset]
      let previousY = previousX - previousK
      while x > previousX, y > previousY {
        steps.append(.keep)
        x -= 1
        y -= 1
      }
      steps.append(previousK == k + 1 ? .insert : .delete)
      (x, y) = (previousX, previousY)
    }
    steps.append(contentsOf: repeatElement(.keep, count: x))
    var runs: [Run] = []
    var run = Run()
    for step in steps.reversed() {
      if step == .keep {
        run.kept += 1
        continue
      }
      if run.kept > 0 {
        runs.append(run)
        run = Run()
      }
      if step == .delete { run.deleted += 1 } else { run.inserted += 1 }
    }
    runs.append(run)
    return runs
  }
}
