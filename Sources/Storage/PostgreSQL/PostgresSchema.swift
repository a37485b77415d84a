/// The tables and functions of `--state-url` storage, in the database's `composable_actor`
/// schema, so that they keep out of an application's own tables.
///
/// The instance tables are SQLite's (see `Database`), keyed by (store, instance), '' for the
/// default instance, in the "C" collation (byte order, as `InstanceKey` sorts), plus:
/// - `processes`: one row per `--process-id`, with its incarnation (one more at each start),
///   its lease and when it last renewed it, and the last `seq` it wrote.
/// - `owners`: which process (and incarnation) has each active instance. A process claims an
///   instance before it reads it back: the claim succeeds when nobody has it, when its own id
///   had it (an earlier incarnation, killed and restarted), or when its holder's lease ran out;
///   otherwise the holder's id is the answer. Every change is stored by a function that first
///   locks the instance's row of `owners` (FOR SHARE) and checks the caller still holds it, so a
///   takeover (which updates that row) and a commit by the old holder are ordered by the
///   database, and the old holder's commit fails, taking its lines back. A commit also checks
///   that the process row still has the caller's incarnation.
///
/// Changes run as functions so that a commit is one pipeline of calls, one round trip, and
/// each check raises an error that aborts the whole commit: `CA001` (the instance is another
/// process's; the message is its id, empty when none has it) and `CA002` (a newer incarnation
/// of the process took over).
enum PostgresSchema {
  /// The layout of the tables and functions; a database with a higher one was written by a
  /// newer version, and is refused untouched.
  static let format = 1

  /// Run first, in one transaction under an advisory lock (processes starting at once wait for
  /// each other): makes the meta table if missing, before anything else is created or
  /// replaced; the storage then reads the stored format and `definitions`. Each string is one statement: the pipeline sends
  /// them one by one, in one transaction.
  static let prepare: [String] = [
    """
    SELECT pg_advisory_xact_lock(\(advisoryLock))
    """,
    """
    CREATE SCHEMA IF NOT EXISTS composable_actor
    """,
    """
    CREATE TABLE IF NOT EXISTS composable_actor.meta (
      key text COLLATE "C" PRIMARY KEY, value text NOT NULL)
    """,
    """
    INSERT INTO composable_actor.meta (key, value) VALUES ('format', '\(format)')
      ON CONFLICT (key) DO NOTHING
    """,
  ]

  /// A digest of `create` (64-bit FNV-1a, in hex), stored under the meta key `definitions` once
  /// it ran: a process finding its own digest there has nothing to create or replace.
  static let definitionsDigest: String = {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in create.joined(separator: ";").utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return String(hash, radix: 16)
  }()

  /// 'comp' in ASCII: the advisory lock every process takes while it makes the tables.
  static let advisoryLock = 0x636F_6D70

  /// Run second, when the format is this version's: the tables if missing and the functions.
  static let create: [String] = [
    """
    SELECT pg_advisory_xact_lock(\(advisoryLock))
    """,
    """
    CREATE TABLE IF NOT EXISTS composable_actor.processes (
      id text COLLATE "C" PRIMARY KEY, incarnation int8 NOT NULL, lease_ms int8 NOT NULL,
      renewed_at timestamptz NOT NULL, last_sequence int8 NOT NULL)
    """,
    """
    CREATE TABLE IF NOT EXISTS composable_actor.owners (
      store text COLLATE "C", instance text COLLATE "C", process text COLLATE "C" NOT NULL,
      incarnation int8 NOT NULL, PRIMARY KEY (store, instance))
    """,
    """
    CREATE INDEX IF NOT EXISTS owners_by_process ON composable_actor.owners (process)
    """,
    """
    CREATE TABLE IF NOT EXISTS composable_actor.instances (
      store text COLLATE "C", instance text COLLATE "C", PRIMARY KEY (store, instance))
    """,
    """
    CREATE TABLE IF NOT EXISTS composable_actor.snapshots (
      store text COLLATE "C", instance text COLLATE "C", batch int8, state bytea NOT NULL,
      PRIMARY KEY (store, instance, batch))
    """,
    """
    CREATE TABLE IF NOT EXISTS composable_actor.batches (
      store text COLLATE "C", instance text COLLATE "C", number int8, time int8 NOT NULL,
      lines bytea NOT NULL, process text COLLATE "C" NOT NULL, incarnation int8 NOT NULL,
      PRIMARY KEY (store, instance, number))
    """,
    """
    CREATE OR REPLACE FUNCTION composable_actor.start_process(p_id text, p_lease_ms int8)
    RETURNS TABLE (incarnation int8, last_sequence int8) LANGUAGE sql AS $$
      INSERT INTO composable_actor.processes AS p
        (id, incarnation, lease_ms, renewed_at, last_sequence)
      VALUES (p_id, 1, p_lease_ms, clock_timestamp(), 0)
      ON CONFLICT (id) DO UPDATE SET incarnation = p.incarnation + 1,
        lease_ms = EXCLUDED.lease_ms, renewed_at = EXCLUDED.renewed_at
      RETURNING p.incarnation, p.last_sequence
    $$
    """,
    """
    CREATE OR REPLACE FUNCTION composable_actor.check_process(p_id text, p_incarnation int8)
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE current int8;
    BEGIN
      SELECT incarnation INTO current FROM composable_actor.processes WHERE id = p_id FOR SHARE;
      IF current IS DISTINCT FROM p_incarnation THEN
        RAISE EXCEPTION USING ERRCODE = 'CA002', MESSAGE = p_id;
      END IF;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION composable_actor.renew(p_id text, p_incarnation int8)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE composable_actor.processes SET renewed_at = clock_timestamp()
        WHERE id = p_id AND incarnation = p_incarnation;
      IF NOT FOUND THEN RAISE EXCEPTION USING ERRCODE = 'CA002', MESSAGE = p_id; END IF;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION composable_actor.finish_commit(
      p_id text, p_incarnation int8, p_last_sequence int8)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE composable_actor.processes
        SET last_sequence = p_last_sequence, renewed_at = clock_timestamp()
        WHERE id = p_id AND incarnation = p_incarnation;
      IF NOT FOUND THEN RAISE EXCEPTION USING ERRCODE = 'CA002', MESSAGE = p_id; END IF;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION composable_actor.claim(
      p_store text, p_instance text, p_id text, p_incarnation int8)
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE holder text;
    BEGIN
      PERFORM composable_actor.check_process(p_id, p_incarnation);
      INSERT INTO composable_actor.owners AS o (store, instance, process, incarnation)
      VALUES (p_store, p_instance, p_id, p_incarnation)
      ON CONFLICT (store, instance) DO UPDATE
        SET process = EXCLUDED.process, incarnation = EXCLUDED.incarnation
        WHERE (o.process = EXCLUDED.process AND o.incarnation <= EXCLUDED.incarnation)
          OR NOT EXISTS (
            SELECT 1 FROM composable_actor.processes p
            WHERE p.id = o.process AND p.incarnation = o.incarnation
              AND p.renewed_at > clock_timestamp() - p.lease_ms * interval '1 millisecond')
      RETURNING o.process INTO holder;
      IF holder IS NULL THEN
        SELECT o.process INTO holder FROM composable_actor.owners o
          WHERE o.store = p_store AND o.instance = p_instance;
        RAISE EXCEPTION USING ERRCODE = 'CA001', MESSAGE = coalesce(holder, '');
      END IF;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION composable_actor.check_owner(
      p_store text, p_instance text, p_id text, p_incarnation int8)
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE holder text; holder_incarnation int8;
    BEGIN
      SELECT process, incarnation INTO holder, holder_incarnation FROM composable_actor.owners
        WHERE store = p_store AND instance = p_instance FOR SHARE;
      IF holder IS DISTINCT FROM p_id OR holder_incarnation IS DISTINCT FROM p_incarnation THEN
        RAISE EXCEPTION USING ERRCODE = 'CA001', MESSAGE = coalesce(holder, '');
      END IF;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION composable_actor.append(
      p_store text, p_instance text, p_number int8, p_time int8, p_lines bytea,
      p_id text, p_incarnation int8)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM composable_actor.check_owner(p_store, p_instance, p_id, p_incarnation);
      IF p_number = 0 THEN
        INSERT INTO composable_actor.instances (store, instance) VALUES (p_store, p_instance)
          ON CONFLICT DO NOTHING;
      END IF;
      INSERT INTO composable_actor.batches
        (store, instance, number, time, lines, process, incarnation)
      VALUES (p_store, p_instance, p_number, p_time, p_lines, p_id, p_incarnation);
    END $$
    """,
    // The latest snapshot becomes the history's base, p_state the latest (see Database.snapshot).
    """
    CREATE OR REPLACE FUNCTION composable_actor.snapshot(
      p_store text, p_instance text, p_state bytea, p_next_batch int8,
      p_id text, p_incarnation int8)
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE latest int8;
    BEGIN
      PERFORM composable_actor.check_owner(p_store, p_instance, p_id, p_incarnation);
      INSERT INTO composable_actor.instances (store, instance) VALUES (p_store, p_instance)
        ON CONFLICT DO NOTHING;
      SELECT max(batch) INTO latest FROM composable_actor.snapshots
        WHERE store = p_store AND instance = p_instance;
      IF latest > p_next_batch THEN
        RAISE EXCEPTION 'the latest snapshot of % % is as of batch %, a later one',
          p_store, p_instance, latest;
      END IF;
      INSERT INTO composable_actor.snapshots (store, instance, batch, state)
        VALUES (p_store, p_instance, p_next_batch, p_state)
        ON CONFLICT (store, instance, batch) DO UPDATE SET state = EXCLUDED.state;
      IF latest IS NOT NULL THEN
        DELETE FROM composable_actor.snapshots
          WHERE store = p_store AND instance = p_instance AND batch < latest;
        DELETE FROM composable_actor.batches
          WHERE store = p_store AND instance = p_instance AND number < latest;
      END IF;
    END $$
    """,
    // Forgetting an instance another live process has is refused, as a claim is.
    """
    CREATE OR REPLACE FUNCTION composable_actor.forget(
      p_store text, p_instance text, p_id text, p_incarnation int8)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM composable_actor.claim(p_store, p_instance, p_id, p_incarnation);
      DELETE FROM composable_actor.owners WHERE store = p_store AND instance = p_instance;
      DELETE FROM composable_actor.instances WHERE store = p_store AND instance = p_instance;
      DELETE FROM composable_actor.snapshots WHERE store = p_store AND instance = p_instance;
      DELETE FROM composable_actor.batches WHERE store = p_store AND instance = p_instance;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION composable_actor.release(
      p_store text, p_instance text, p_id text, p_incarnation int8)
    RETURNS void LANGUAGE sql AS $$
      DELETE FROM composable_actor.owners
        WHERE store = p_store AND instance = p_instance AND process = p_id
          AND incarnation = p_incarnation
    $$
    """,
  ]
}
