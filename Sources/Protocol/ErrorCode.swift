/// The stable `code` of an `error` line; hosts branch on these, so they never change meaning.
@_spi(Hosting)
public enum ErrorCode: String, Sendable, CaseIterable {
  /// The line is not JSON.
  case invalidJSON = "invalid_json"
  /// The line has bytes that are not UTF-8.
  case invalidUTF8 = "invalid_utf8"
  /// Arrays and objects nest deeper than the limit.
  case tooDeep = "too_deep"
  /// A number does not fit a 64-bit float (or, where an integer is expected, a 64-bit integer).
  case numberOutOfRange = "number_out_of_range"
  /// The line is longer than `--max-line-bytes`; it was skipped.
  case lineTooLong = "line_too_long"
  /// Valid JSON, but not a message: not an object, neither `store` nor `cmd`, a bad `id`, or
  /// an unknown field.
  case invalidMessage = "invalid_message"
  /// `store` names no store.
  case unknownStore = "unknown_store"
  /// The action's `type` names no action of the store.
  case unknownAction = "unknown_action"
  /// The action's payload is wrong: a missing, extra or mistyped field.
  case invalidAction = "invalid_action"
  /// The action is one only the store's effects send (a response, a timer's tick); a host may
  /// send it only under `--allow-effect-actions`.
  case effectAction = "effect_action"
  /// Activating one more instance of the store would pass `--max-instances`; nothing changed.
  case instanceLimit = "instance_limit"
  /// `stop` names an instance that is not in memory.
  case unknownInstance = "unknown_instance"
  /// In a durable session (`--state-dir`): the storage could not read or store an instance (a
  /// full disk, an I/O error, a damaged file). Refusing a line, it changed nothing; not
  /// refusing one, it says that an instance's last changes were taken back (their lines were
  /// not written) and that the instance is back at its last stored state.
  case storageFailed = "storage_failed"
  /// In a durable session: the instance was stored by a binary whose state differs from this
  /// one's, so it is not read back; nothing changed.
  case storedStateIncompatible = "stored_state_incompatible"
  /// With storage shared by several processes (`--state-url`): the instance is active in
  /// another process, whose `--process-id` the line's `owner` gives. Refusing a line, it changed
  /// nothing; not refusing one, it says that the instance was taken over by that process since
  /// this one activated it, and that the action's change was not stored (its line was not
  /// written). Send the line to the owner, or stop the instance there first.
  case instanceElsewhere = "instance_elsewhere"
  /// `cmd` names no command.
  case unknownCommand = "unknown_command"
  /// A command's arguments are wrong.
  case invalidCommand = "invalid_command"
  /// `advance` or `settle` without `--clock virtual`.
  case clockNotVirtual = "clock_not_virtual"
  /// Not a refused line: an `advance` woke sleepers `--max-advance-wakeups` times and stopped
  /// short of its target; the message says the virtual time it reached.
  case advanceLimit = "advance_limit"
  /// Not a refused line: an effect failed with an error nothing caught. The line names the
  /// store and the action whose reduction started the effect, and carries that action's `id`.
  case effectFailed = "effect_failed"
  /// Not a refused line: the action named an element of a collection (`forEach`) by an id the
  /// collection does not hold. It was reduced (its action line came first) and changed nothing
  /// of the elements; the line names the store and the action and carries its `id`.
  case unknownElement = "unknown_element"
}

/// A line the session refused: it changed nothing.
@_spi(Hosting)
public struct ProtocolError: Error, Sendable {
  public let code: ErrorCode
  public let message: String
  /// The `--process-id` of the process that has the instance (`instance_elsewhere`), which the
  /// line's `owner` gives.
  public let owner: String?

  public init(_ code: ErrorCode, _ message: String, owner: String? = nil) {
    self.code = code
    self.message = message
    self.owner = owner
  }
}
