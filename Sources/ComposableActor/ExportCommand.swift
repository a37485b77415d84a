import ArgumentParser
import ComposableRuntime
import JSON
@_spi(Hosting) import Protocol
import Storage

#if canImport(Glibc)
  import Glibc
#endif

extension ComposableActorCommand {
  /// `export`: a durable instance's stored history as a recording, so that what a session under
  /// `run --state-dir` or `--state-url` did can be replayed, drawn and made a scenario, as a
  /// `--record` log can.
  struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "export",
      abstract:
        "Write a durable instance's stored history (run --state-dir or --state-url) as a "
        + "recording.",
      discussion: """
        The recording is what run --record writes, for replay, replay --to-scenario and \
        timeline. It holds the instance's action lines since its base snapshot (the older of \
        the two kept): at least the last 64 KiB of them, or four times the bytes the state takes \
        if more. The header's initialStates starts the store from that snapshot; its seed is \
        0 and its arguments are empty (storage keeps neither), so a replay builds the store \
        with its default options: for a store whose options change what its reducer does, \
        add them to the header's "arguments" before replaying. Export reads a folder no \
        process has open: it takes the folder's lock, as run does; a database it reads while \
        processes go on using it, and creates nothing in it. Exit codes: 0; 64 for bad \
        arguments or a store this binary does not have; 65 for a history made under --emit \
        ticks (its lines carry no actions), one stored by a binary whose state differs, or a \
        damaged one; 66 when nothing is stored for the instance; 73 when the output cannot \
        be written; 74 when the folder cannot be opened (in use by another process, damaged, \
        written by a newer binary) or read, or the database cannot be reached or read.
        """)

    @Option(
      help: ArgumentHelp(
        "The folder that run --state-dir stored the instance in.", valueName: "folder"))
    var stateDir: String?

    @Option(
      help: ArgumentHelp(
        "The PostgreSQL database that run --state-url stored the instance in (read only: "
          + "processes may keep running on it).", valueName: "url"))
    var stateURL: String?

    @Option(help: "The store of the instance.")
    var store: String

    @Option(help: "The instance's key; without it, the store's default instance.")
    var instance: String?

    @Option(
      name: [.short, .long], help: "The file to write (atomically); standard output if not given.")
    var output: String?

    func validate() throws {
      guard (stateDir == nil) != (stateURL == nil) else {
        throw ValidationError(
          "give one of --state-dir and --state-url: where the instance is stored")
      }
      let names = ComposableActorCommand.catalog.names
      guard names.contains(store) else {
        throw ValidationError("--store \(store): the stores are \(names.joined(separator: ", "))")
      }
      if let instance {
        do {
          _ = try InstanceKey(validating: instance, member: "--instance")
        } catch {
          throw ValidationError(error.message)
        }
      }
    }

    func run() throws {
      let address = StoredAddress(
        store: store, instance: try instance.map { try InstanceKey(validating: $0) })
      // Opening would create the folder and an empty database: not what reading one should do.
      if let stateDir, access(stateDir + "/state.sqlite", F_OK) != 0 {
        throw failure("nothing is stored in \(stateDir): it has no state.sqlite", code: 66)
      }
      let history = try read(address)
      guard let history else {
        let place = stateDir ?? "the database"
        throw failure("nothing is stored for \(address) in \(place)", code: 66)
      }
      let bytes: [UInt8]
      do {
        bytes = try HistoryRecording.bytes(
          of: history, store: store, binary: ComposableActorCommand.identity.version,
          stores: ComposableActorCommand.catalog)
      } catch {
        throw failure("\(address): \(error.message)", code: 65)
      }
      do {
        try FileIO.writeOutput(bytes, to: output)
      } catch {
        throw failure(error.reason, code: 73)
      }
    }

    /// The instance's history, with the folder opened only for as long as reading it takes.
    private func read(_ address: StoredAddress) throws -> StoredHistory? {
      let option = stateDir != nil ? "--state-dir" : "--state-url"
      let storage: any InstanceStorage
      do {
        if let stateDir {
          storage = try SQLiteInstanceStorage(folder: stateDir, fsync: .never)
        } else {
          storage = try PostgreSQLInstanceStorage(url: stateURL ?? "", processID: nil)
        }
      } catch {
        throw failure("\(option): \(error)", code: 74)
      }
      let history: StoredHistory?
      let storedFingerprint: String?
      do {
        history = try storage.history(address)
        storedFingerprint = try storage.stateFingerprint(of: store)
        try storage.close()
      } catch {
        try? storage.close()
        throw failure("\(option): \(error)", code: 74)
      }
      if let storedFingerprint, let refusal = incompatibility(storedFingerprint) {
        throw failure(refusal, code: 65)
      }
      return history
    }

    /// Why the stored lines are not this binary's to export, when the folder's writer had
    /// another state: the header claims this binary's fingerprints, and a replay would blame
    /// the differences on the stores changing since.
    private func incompatibility(_ storedFingerprint: String) -> String? {
      let definition = ComposableActorCommand.catalog.definitions.first { $0.name == store }
      let current = StoreFingerprint.stateDigests(definition?.stateSchema ?? [:])
      let differences = StoreFingerprint.stateDifferences(
        stored: storedFingerprint, current: current)
      guard !differences.isEmpty else { return nil }
      return "\(store): the state-dir holds its instances as a binary whose state differs "
        + "stored them (\(differences.joined(separator: ", "))): export them with that binary"
    }

    private func failure(_ message: String, code: Int32) -> ExitCode {
      ComposableActorCommand.failure(of: "export", message, code: code)
    }
  }
}
