import JSON
@_spi(Hosting) import Protocol

/// The timeline as plain text, for a CI log or a terminal: a column of times and seqs, then a
/// lane per store instance (`primes`, `primes "alice"`). Each effect draws a line down its
/// instance's lane from the row where it starts to the row where it ends, like a branch in
/// `git log --graph`:
///
/// ```text
/// t ms  seq  primes
///    0    3  ● counter.nthPrimeButtonTapped
///    0       ┌ effect 2 started: run, cancel id nthPrime, by seq 3
///    0    4  │ ● counter.nthPrimeButtonTapped
///    0       └ effect 2 cancelled: cancelInFlight at seq 4
/// ```
///
/// `●` is an action the host sent, `◆` one an effect sent (`├` on its effect's line). A lane
/// other than the last is cut to its share of `width`; the last one is not.
struct TextTimeline {
  /// How many effects of one lane get a line of their own at once; the events of more are
  /// written without one.
  static let maximumColumns = 8
  /// The longest label written, in characters: an id or an error can be any length.
  static let maximumLabel = 160

  let recording: RecordingFile
  let title: String
  /// The store instances to draw, a lane each, in this order (see `lanes(of:stores:instances:)`).
  let lanes: [InstanceAddress]
  let width: Int

  /// The lanes to draw: per store, in the header's order, its default instance, then its named
  /// instances in the order they first appear. `stores` keeps only those stores (every store
  /// with a line when empty), `instances` only the named instances with those keys.
  static func lanes(of recording: RecordingFile, stores: [String], instances: [String])
    -> [InstanceAddress]
  {
    var firstLine: [InstanceAddress: Int] = [:]
    for (address, line) in recording.actions.map({ ($0.address, $0.line) })
      + recording.effects.map({ ($0.address, $0.line) })
    {
      firstLine[address] = min(firstLine[address] ?? line, line)
    }
    let named = firstLine.keys.filter { $0.instance != nil }.sorted {
      firstLine[$0]! < firstLine[$1]!
    }
    let recordedStores = Set(firstLine.keys.map(\.store))
    return recording.header.stores.filter {
      stores.isEmpty ? recordedStores.contains($0) : stores.contains($0)
    }.flatMap { store in
      let own = named.filter { $0.store == store }
      if !instances.isEmpty {
        return own.filter { $0.instance.map { instances.contains($0.value) } ?? false }
      }
      // A store named by --store keeps its lane when it has no line at all, as before
      // instances; its default instance is drawn otherwise only when it has lines.
      let drawsDefault = firstLine[InstanceAddress(store)] != nil || own.isEmpty
      return (drawsDefault ? [InstanceAddress(store)] : []) + own
    }
  }

  private struct EffectKey: Hashable {
    let address: InstanceAddress
    let number: Int
  }

  private enum Row {
    case action(RecordedAction)
    case effect(RecordedEffect)
    /// An effect with no end in the recording.
    case stillRunning(effect: Int, address: InstanceAddress)
  }

  func render() -> String {
    let laneIndex = Dictionary(uniqueKeysWithValues: lanes.enumerated().map { ($1, $0) })
    var rows: [(line: Int, row: Row)] = []
    for action in recording.actions where laneIndex[action.address] != nil {
      rows.append((action.line, .action(action)))
    }
    for effect in recording.effects where laneIndex[effect.address] != nil {
      rows.append((effect.line, .effect(effect)))
    }
    rows.sort { $0.line < $1.line }

    // Each effect keeps one column of its lane from its first event to its end; a column is
    // free again after.
    var slots = Array(repeating: [Int?](), count: lanes.count)
    // By instance as well as number: numbers are unique in a run, but a file may say
    // otherwise, and an effect's column belongs to its own instance's lane.
    var slotOfEffect: [EffectKey: Int] = [:]
    var columns = Array(repeating: 0, count: lanes.count)
    var endedEffects = Set<EffectKey>()
    var startedEffects: [EffectKey] = []
    for (_, row) in rows {
      guard case .effect(let effect) = row, let lane = laneIndex[effect.address] else { continue }
      let key = EffectKey(address: effect.address, number: effect.effect)
      if slotOfEffect[key] == nil, !endedEffects.contains(key) {
        let slot = slots[lane].firstIndex(of: nil) ?? slots[lane].count
        if slot == slots[lane].count { slots[lane].append(nil) }
        slots[lane][slot] = effect.effect
        slotOfEffect[key] = slot
        columns[lane] = max(columns[lane], slot + 1)
        startedEffects.append(key)
      }
      if Self.ends(effect.event), let slot = slotOfEffect[key] {
        slots[lane][slot] = nil
        endedEffects.insert(key)
      }
    }
    for started in startedEffects where !endedEffects.contains(started) {
      rows.append((Int.max, .stillRunning(effect: started.number, address: started.address)))
    }
    columns = columns.map { min($0, Self.maximumColumns) }

    let maximumTime = recording.actions.map(\.elapsed).max() ?? 0
    let timeWidth = max("t ms".count, String(max(maximumTime, 0)).count)
    let seqWidth = max("seq".count, String(recording.actions.last?.seq ?? 0).count)
    let prefixWidth = timeWidth + 2 + seqWidth + 2
    let graphWidth = columns.reduce(0) { $0 + $1 * 2 }
    let labelWidth = max(
      16, (width - prefixWidth - graphWidth - 2 * (lanes.count - 1)) / max(lanes.count, 1))

    var text = summary(laneIndex) + "\n"
    var heading =
      Self.pad("t ms", to: timeWidth, right: true) + "  "
      + Self.pad("seq", to: seqWidth, right: true) + "  "
    for (lane, address) in lanes.enumerated() {
      let name = address.description
      let width = columns[lane] * 2 + labelWidth
      heading +=
        lane == lanes.count - 1 ? name : Self.pad(Self.cut(name, to: width), to: width) + "  "
    }
    text += Self.trimmingTrailingSpaces(heading) + "\n"

    var running = Array(repeating: Set<Int>(), count: lanes.count)
    var lastTime = 0
    for (_, row) in rows {
      let address: InstanceAddress
      let time: Int
      var seq = ""
      var glyph: Character
      let label: String
      var column: Int?
      switch row {
      case .action(let action):
        address = action.address
        time = action.elapsed
        seq = String(action.seq)
        if action.source == "effect", let effect = action.effectNumber {
          column = slotOfEffect[EffectKey(address: action.address, number: effect)]
          glyph = "├"
        } else {
          glyph = "│"
        }
        label = Self.label(of: action)
      case .effect(let effect):
        address = effect.address
        time = effect.elapsed
        column = slotOfEffect[EffectKey(address: effect.address, number: effect.effect)]
        glyph = effect.event == "started" ? "┌" : Self.ends(effect.event) ? "└" : "│"
        label = Self.label(of: effect)
      case .stillRunning(let effect, let owner):
        address = owner
        time = lastTime
        column = slotOfEffect[EffectKey(address: owner, number: effect)]
        glyph = "┊"
        label = "effect \(effect) still running at the end"
      }
      lastTime = time
      let lane = laneIndex[address]!
      if case .effect(let effect) = row, !Self.ends(effect.event), let column {
        running[lane].insert(column)
      }
      var line =
        Self.pad(String(time), to: timeWidth, right: true) + "  "
        + Self.pad(seq, to: seqWidth, right: true) + "  "
      for other in lanes.indices {
        for slot in 0..<columns[other] {
          if other == lane, slot == column {
            line.append(glyph)
          } else {
            line.append(running[other].contains(slot) ? "│" : " ")
          }
          line.append(" ")
        }
        let isLast = other == lanes.count - 1
        if other == lane {
          line +=
            isLast
            ? Self.cut(label, to: Self.maximumLabel)
            : Self.pad(Self.cut(label, to: labelWidth), to: labelWidth)
        } else if !isLast {
          line += String(repeating: " ", count: labelWidth)
        }
        if !isLast { line += "  " }
      }
      text += Self.trimmingTrailingSpaces(line) + "\n"
      switch row {
      case .effect(let effect) where Self.ends(effect.event):
        if let column { running[lane].remove(column) }
      case .stillRunning:
        if let column { running[lane].remove(column) }
      default: break
      }
    }
    return text
  }

  /// One line: the file, what it holds, and whether effects were traced.
  private func summary(_ laneIndex: [InstanceAddress: Int]) -> String {
    let actions = recording.actions.filter { laneIndex[$0.address] != nil }
    let effects = recording.effects.filter { laneIndex[$0.address] != nil }
    let started = Set(effects.map { EffectKey(address: $0.address, number: $0.effect) })
    var ended = Set<EffectKey>()
    var outcomes: [String: Int] = [:]
    for effect in effects where Self.ends(effect.event) {
      outcomes[effect.event, default: 0] += 1
      ended.insert(EffectKey(address: effect.address, number: effect.effect))
    }
    let stores = Set(lanes.map(\.store)).count
    // A recording without named instances is summed up as it was before they existed.
    let instances =
      lanes.contains { $0.instance != nil }
      ? "\(lanes.count) instance\(lanes.count == 1 ? "" : "s") of " : ""
    var text =
      "\(title): \(actions.count) action\(actions.count == 1 ? "" : "s") in \(instances)"
      + "\(stores) store\(stores == 1 ? "" : "s") (\(recording.header.clock.rawValue) clock)"
    if recording.effects.isEmpty {
      text += "; effects were not traced (record with run --trace effects to see them)"
    } else {
      let running = started.subtracting(ended).count
      text +=
        "; \(started.count) effect\(started.count == 1 ? "" : "s"): "
        + ["finished", "cancelled", "failed"].map { "\(outcomes[$0] ?? 0) \($0)" }
        .joined(separator: ", ") + ", \(running) still running"
    }
    return text
  }

  private static func ends(_ event: String) -> Bool {
    event == "finished" || event == "cancelled" || event == "failed"
  }

  private static func label(of action: RecordedAction) -> String {
    var label =
      (action.source == "effect" ? "◆ " : "● ")
      + (action.action["type"]?.stringValue ?? "?")
    if let id = action.id { label += "  id \(id)" }
    if let effect = action.effectNumber { label += "  (effect \(effect))" }
    return label
  }

  private static func label(of effect: RecordedEffect) -> String {
    let name = "effect \(effect.effect)"
    switch effect.event {
    case "started":
      return "\(name) started: \(effect.operatorName)"
        + (effect.cancelID.map { ", cancel id \($0)" } ?? "") + ", by seq \(effect.cause)"
    case "sleeping":
      return "\(name) sleeping" + (effect.until.map { " until \($0) ms" } ?? "")
    case "cancelled":
      let by = effect.cancelledBy
      return "\(name) cancelled: \(by?.reason ?? "?")" + (by?.seq.map { " at seq \($0)" } ?? "")
    case "failed":
      return "\(name) failed: \(effect.error ?? "?")"
    default:
      return "\(name) \(effect.event)"
    }
  }

  /// `text` in at most `width` characters; a control character would break the lanes.
  private static func cut(_ text: String, to width: Int) -> String {
    let printable = String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    return printable.count <= width ? printable : String(printable.prefix(width - 1)) + "…"
  }

  private static func pad(_ text: String, to width: Int, right: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return right ? padding + text : text + padding
  }

  private static func trimmingTrailingSpaces(_ line: String) -> String {
    var line = line
    while line.last == " " { line.removeLast() }
    return line
  }
}
