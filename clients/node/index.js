// Drive composable-actor from Node: spawn it, send actions, follow every output line.
//
// Ids are the input line numbers (every line the client writes takes the next one), so an error
// the process could not attach an id to (`line_too_long`) still finds its call through `line`.
//
// Which lines carry which id: a line the process writes carries the id of the input line that
// caused it, and the lines of a long-running effect carry the id of the action that STARTED the
// effect. A WebSocket's received messages echo the id of `connectButtonTapped`, a timer's ticks
// that of `viewDidAppear`, never the id of a later action. So `waitFor` matches any line,
// whatever its id; a send's `until` matches the lines carrying its own id unless `anyId` asks for
// any (concurrent sends must not take each other's lines).
//
// Instances: a store runs a default instance and any number of named ones (`"instance":"KEY"` on
// a line). A store and an `instance` option (absent: the default) name one everywhere: `send`,
// `waitFor`, `state`, `snapshot`, `events`. Every line about a named instance carries its key,
// so each instance's mirror follows its own patches.

import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyPatch } from './patch.js';

export { applyPatch, jsonEqual, JsonPatchError } from './patch.js';

export const ENV_BINARY = 'COMPOSABLE_ACTOR_BIN';
const BINARY_NAME = 'composable-actor';
const BUILD_BINARY = fileURLToPath(new URL('../../.build/release/composable-actor', import.meta.url));

/** @typedef {Record<string, any>} Line  one parsed output line */
/** @typedef {string | ((line: Line) => boolean)} Until  an action type, or a predicate on lines */
/**
 * @typedef {object} Options
 * @property {string} [binary]  path of the binary; else $COMPOSABLE_ACTOR_BIN, else
 *   `composable-actor` on PATH, else the repository's release build
 * @property {string[]} [args]  command-line arguments, e.g. ['--clock', 'virtual']
 * @property {number} [timeout]  default milliseconds a call waits for its answer (10,000;
 *   Infinity waits for ever)
 * @property {Record<string, string>} [env]  added to this process's environment
 * @property {number} [backlog]  output lines kept for `waitFor` and `events` (10,000); the
 *   oldest are dropped first
 */
/**
 * @typedef {object} SendOptions
 * @property {string} [instance]  the key of one of the store's instances (absent: its default
 *   instance); a new key activates one
 * @property {Until} [until]  also wait for the first line after the action that matches, whatever
 *   its id (an action type matches `action` lines of the same store and instance)
 * @property {boolean} [settle]  also wait until the process is idle (`--clock virtual` only)
 * @property {boolean} [anyId]  `until` matches a line whatever its id (an effect an earlier action
 *   started, such as a WebSocket's messages), not only the lines this action caused (its id)
 * @property {number} [timeout]  milliseconds (the client's `timeout`)
 */
/**
 * @typedef {object} WaitOptions
 * @property {string} [store]  an action type matches lines of this store only
 * @property {string} [instance]  with `store`: of this instance of it only (absent: its default
 *   instance)
 * @property {number} [timeout]  milliseconds (the client's `timeout`)
 */
/**
 * @typedef {object} InstanceOptions
 * @property {string} [instance]  the key of one of the store's instances (absent: its default
 *   instance)
 * @property {number} [timeout]  milliseconds (the client's `timeout`)
 */
/**
 * @typedef {object} PageOptions
 * @property {number} [page]  keys asked at a time (1,000)
 * @property {number} [timeout]  milliseconds for each page (the client's `timeout`)
 */
/**
 * @typedef {object} Call  one written line still waiting; `lines` collects every line echoing its id
 * @property {number} id
 * @property {(line: Line) => boolean} done  whether a line echoing the id answers the call
 * @property {((line: Line) => boolean) | null} until  a matcher on later lines: those carrying its id
 *   (`ownUntil`), else every line whatever its id
 * @property {boolean} ownUntil  `until` is offered only the lines carrying its id
 * @property {string | null} type  the action type `until` waits for (null: a predicate)
 * @property {boolean} own  its own line (the action's) has come
 * @property {Line | null} matched  the line `until` matched
 * @property {Line[]} lines
 * @property {unknown} error
 * @property {boolean} finished
 * @property {(() => void) | null} wake
 * @property {boolean} internal  asked by the client itself: its answer stays out of the backlog
 * @property {string | null} seeds  a snapshot asked to seed that instance's mirror (its mirrorKey)
 */
/**
 * @typedef {object} Wait  a `waitFor` still waiting
 * @property {(line: Line) => boolean} match
 * @property {string | null} type  the action type it waits for (null: a predicate)
 * @property {(line: Line, index: number) => void} found
 * @property {(error: unknown) => void} fail
 */

/** The process refused a line the client wrote (an `error` line). */
export class ComposableActorError extends Error {
  name = 'ComposableActorError';
  /** @param {Line} line */
  constructor(line) {
    super(line.message);
    /** @type {string} */ this.code = line.code;
    /** @type {number | undefined} */ this.line = line.line;
    /** @type {string | number | undefined} */ this.id = line.id;
    // The refused line's store and instance, when it named an instance (the process says so).
    /** @type {string | undefined} */ this.store = line.store;
    /** @type {string | undefined} */ this.instance = line.instance;
  }
}

/**
 * The process ended (an `exit` line, or its stdout closed) before the call was answered. Without an
 * exit line (a crash, a signal, bad arguments) it says how the process ended: `exitCode`, `signal`
 * (such as `'SIGKILL'`) and `stderr`, the last lines it wrote there.
 */
export class ProcessExitedError extends Error {
  name = 'ProcessExitedError';
  /**
   * @param {Line | null} exitLine
   * @param {{exitCode?: number | null, signal?: string | null, stderr?: string[]}} [how]
   */
  constructor(exitLine, how = {}) {
    const { exitCode = null, signal = null, stderr = [] } = how;
    let text = exitLine ? `with reason ${JSON.stringify(exitLine.reason)}` : 'without an exit line';
    if (!exitLine && signal) text += `, killed by ${signal}`;
    else if (!exitLine && exitCode !== null) text += `, exit status ${exitCode}`;
    const said = stderr.map((line) => `\n  ${line}`).join('');
    super(`composable-actor exited ${text}${said ? `; the end of its stderr:${said}` : ''}`);
    this.exitLine = exitLine;
    /** @type {string | undefined} */ this.reason = exitLine?.reason;
    /** @type {number | null} its exit status, when it exited without an exit line */ this.exitCode = exitCode;
    /** @type {string | null} the signal that killed it */ this.signal = signal;
    /** @type {string[]} the last lines of its stderr */ this.stderr = stderr;
  }
}

/**
 * An `events()` iterator fell so far behind that `missed` lines it had not read yet were dropped
 * from the backlog (which keeps `backlog` lines). The iterator is not ended: its next `next()` goes
 * on with the oldest line still kept. A reader that keeps its own copy of a state resyncs from a
 * snapshot: `snapshot(store)` writes a `snapshot` line the iterator yields in its place among the
 * lines (the client's own `state()` never misses a line).
 */
export class MissedLinesError extends Error {
  name = 'MissedLinesError';
  /** @param {number} missed @param {string | undefined} store @param {string | undefined} instance */
  constructor(missed, store, instance) {
    super(`events() fell behind: ${missed} lines were dropped from the backlog before it read them (iterate on for the oldest line still kept; snapshot to resync)`);
    this.missed = missed;
    this.store = store;
    this.instance = instance;
  }
}

/** No answer in time; the message says what was awaited and shows the last lines seen. */
export class TimeoutError extends Error {
  name = 'TimeoutError';
  /** @param {string} message @param {Line[]} [lastLines]  the last lines received, oldest first */
  constructor(message, lastLines = []) {
    super(message);
    this.lastLines = lastLines;
  }
}

/** A store name the process does not have (checked by the client before anything is sent). */
export class UnknownStoreError extends Error {
  name = 'UnknownStoreError';
  /** @param {string} store @param {string[]} stores */
  constructor(store, stores) {
    super(`no store named ${JSON.stringify(store)}${didYouMean(store, stores)}; the stores are ${stores.join(', ')}`);
    this.store = store;
    this.stores = stores;
  }
}

/**
 * `state` of a named instance the client has seen no line about: the process never activated it,
 * or it was stopped or forgotten.
 */
export class UnknownInstanceError extends Error {
  name = 'UnknownInstanceError';
  /** @param {string} store @param {string} instance */
  constructor(store, instance) {
    super(`no instance ${JSON.stringify(instance)} of store ${JSON.stringify(store)} is active: send it an action or snapshot it first (a stopped or forgotten instance is gone)`);
    this.store = store;
    this.instance = instance;
  }
}

/** An action type, given to `until` or `waitFor`, that the store does not have (per `describe`). */
export class UnknownActionError extends Error {
  name = 'UnknownActionError';
  /** @param {string} type @param {string | undefined} store @param {string} message */
  constructor(type, store, message) {
    super(message);
    this.type = type;
    this.store = store;
  }
}

/**
 * The Levenshtein distance between two strings.
 * @param {string} a @param {string} b @returns {number}
 */
export function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length];
}

/**
 * `; did you mean "x"?` for the nearest candidate, if one is near enough to be a typo.
 * @param {string} word @param {Iterable<string>} candidates
 */
function didYouMean(word, candidates) {
  let best = '';
  let distance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < distance) [best, distance] = [candidate, d];
  }
  return distance <= Math.max(2, Math.floor(word.length / 3)) ? `; did you mean ${JSON.stringify(best)}?` : '';
}

/**
 * Where the binary is: the `binary` argument, else $COMPOSABLE_ACTOR_BIN (either must exist when
 * given), else the first executable `composable-actor` on PATH, else the repository's release
 * build (`../../.build/release/composable-actor` from this module). The error lists every place
 * it looked.
 * @param {string} [binary]
 * @returns {string}
 */
export function findBinary(binary) {
  if (binary !== undefined && typeof binary !== 'string') throw new TypeError(`binary must be a path (a string), not ${describeValue(binary)}`);
  if (binary) {
    if (isExecutable(binary)) return binary;
    throw new Error(`no composable-actor binary at ${binary} (the binary option): not an executable file`);
  }
  const fromEnv = process.env[ENV_BINARY];
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new Error(`no composable-actor binary at ${fromEnv} ($${ENV_BINARY}): not an executable file`);
  }
  const looked = [`$${ENV_BINARY} (not set)`];
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    if (!folder) continue;
    const path = join(folder, BINARY_NAME);
    if (isExecutable(path)) return path;
    looked.push(path);
  }
  if (isExecutable(BUILD_BINARY)) return BUILD_BINARY;
  looked.push(`${BUILD_BINARY} (the build folder)`);
  throw new Error(`no composable-actor binary found: pass its path as the binary option, set ${ENV_BINARY}, put it on PATH or build it; looked in:\n  ${looked.join('\n  ')}`);
}

/**
 * An executable regular file (symbolic links followed).
 * @param {string} path
 */
function isExecutable(path) {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// Children still running when this process exits get SIGTERM: they cancel their effects, write
// their exit line and end, rather than outlive their host. 'exit' is emitted both on
// process.exit() and when the event loop runs empty (a script that forgot close()).
/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/** The default of options and payloads: nothing to check. */
const NONE = Object.freeze({});
/** Node's longest timer (a longer one fires at once). */
const MAX_TIMER = 2 ** 31 - 1;
const ANSWERS = { snapshot: 'snapshot', describe: 'describe', advance: 'advanced', settle: 'settled', instances: 'instances', stop: 'stopped', forget: 'forgotten' };
const never = () => false;
/** The lines of the process's stderr kept to say why it ended. */
const STDERR_LINES = 10;
/** How long an ended process (its stdout closed) is given to exit, and its stderr to end, before the error says what is known. */
const REAP_MS = 2000;
// Each flow of control's waitFor cursor, by client: a flow (an async function and what it awaits)
// moves its own, and one it starts begins with its cursor, as asyncio's tasks do with contextvars.
/** @type {AsyncLocalStorage<Map<number, {at: number}>>} */
const cursors = new AsyncLocalStorage();
let clients = 0;
/** @param {string[]} args  whether the process has durable storage (it reads instances back) */
const storesState = (args) => args.some((arg) => arg === '--state-dir' || arg === '--state-url' || arg.startsWith('--state-dir=') || arg.startsWith('--state-url='));
/** @param {Line} line  the host's own line: `action`, or under --emit ticks the `state` line naming it */
const isOwnLine = (line) => line.type === 'action' || line.type === 'state';

/** @param {unknown} value */
function describeValue(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : `${typeof value} ${String(value)}`;
}

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isPlainObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a payload is an object without fields (an action type alone, then).
 * @param {unknown} payload
 */
function isEmpty(payload) {
  if (!isPlainObject(payload)) return false;
  for (const name in payload) if (Object.hasOwn(/** @type {object} */ (payload), name)) return false;
  return true;
}

/**
 * Whether send's `options` are an action type to wait for, and nothing else.
 * @param {SendOptions} options @returns {options is {until: string}}
 */
function onlyUntil(options) {
  if (typeof options !== 'object' || options === null || typeof options.until !== 'string') return false;
  for (const name in options) if (name !== 'until') return false;
  return true;
}

/**
 * Throws a TypeError for options that are not an object, or have names not in `known`.
 * @param {unknown} options @param {string[]} known @param {string} where
 */
function checkOptions(options, known, where) {
  if (options === NONE) return;
  if (!isPlainObject(options)) throw new TypeError(`${where}: options must be an object, not ${describeValue(options)}`);
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) {
      throw new TypeError(`${where}: unknown option ${JSON.stringify(name)}${didYouMean(name, known)}; the options are ${known.join(', ')}`);
    }
  }
  if ('timeout' in options && options.timeout !== undefined && !(typeof options.timeout === 'number' && options.timeout >= 0)) {
    throw new TypeError(`${where}: timeout must be a number of milliseconds, not ${describeValue(options.timeout)}`);
  }
}

/**
 * Throws a TypeError for an instance that is not a string. The key's content (non-empty, at most
 * 256 bytes, no control characters) is the process's to check: it refuses such a line with
 * `invalid_message` and the reason.
 * @param {unknown} instance @param {string} where
 */
function checkInstance(instance, where) {
  if (instance !== undefined && typeof instance !== 'string') {
    throw new TypeError(`${where}: instance must be a key (a string), or absent for the default instance, not ${describeValue(instance)}`);
  }
}

/**
 * The mirror's key of a store's instance: the store's name for its default instance. Keys have no
 * control characters, so the NUL cannot be part of one.
 * @param {string} store @param {string | undefined} instance
 */
const mirrorKey = (store, instance) => (instance === undefined ? store : `${store}\0${instance}`);

/**
 * A UTF-16 unit's place in the order of UTF-8's bytes, which is the code points' order: the
 * surrogates (halves of a code point past U+FFFF) come after the units from U+E000 to U+FFFF.
 * @param {number} unit
 */
const utf8Rank = (unit) => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);

/**
 * Orders keys as the process does, by the bytes of their UTF-8 (strings compare by UTF-16 units,
 * which differs for keys with characters past U+FFFF).
 * @param {string} a @param {string} b
 */
function byteOrder(a, b) {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return utf8Rank(x) - utf8Rank(y);
  }
  return a.length - b.length;
}

/** @param {string} store @param {string | undefined} instance */
const where = (store, instance) => `store ${JSON.stringify(store)}${instance === undefined ? '' : ` instance ${JSON.stringify(instance)}`}`;

/** @param {string} text @returns {Line} */
function parseReady(text) {
  try {
    const line = JSON.parse(text);
    if (line.type === 'ready') return line;
  } catch {}
  throw new Error(`expected a ready line first, got ${text.slice(0, 200)}`);
}

/**
 * Waits for lines whatever their id, found by what they wait for: a line is offered to the waits
 * for its action type (an `action` line) and to those on a predicate, never to the rest, so a
 * line costs the same however many sends wait for other types.
 * @template {{type: string | null}} T
 */
class WaitIndex {
  /** @type {Map<string, Set<T>>} */ #typed = new Map();
  /** @type {Set<T>} */ #predicates = new Set();
  size = 0;

  /** @param {T} wait */
  add(wait) {
    const set = wait.type === null ? this.#predicates : this.#typed.get(wait.type) ?? new Set();
    if (wait.type !== null && set.size === 0) this.#typed.set(wait.type, set);
    if (!set.has(wait)) this.size++;
    set.add(wait);
  }

  /** @param {T} wait */
  delete(wait) {
    const set = wait.type === null ? this.#predicates : this.#typed.get(wait.type);
    if (!set?.delete(wait)) return;
    this.size--;
    if (wait.type !== null && set.size === 0) this.#typed.delete(wait.type);
  }

  /**
   * The waits `line` may end (a copy: they are deleted as they end).
   * @param {Line} line @returns {T[]}
   */
  candidates(line) {
    const typed = line.type === 'action' && this.#typed.size > 0 ? this.#typed.get(line.action.type) : undefined;
    if (!typed) return [...this.#predicates];
    return this.#predicates.size === 0 ? [...typed] : [...typed, ...this.#predicates];
  }

  /** Every wait, removed. @returns {T[]} */
  clear() {
    const all = [...this.#predicates, ...[...this.#typed.values()].flatMap((set) => [...set])];
    this.#predicates.clear();
    this.#typed.clear();
    this.size = 0;
    return all;
  }
}

/** @param {Line} line @returns {unknown[]} */
function idsOf(line) {
  if ('id' in line) return [line.id];
  if ('ids' in line) return line.ids;
  if (line.type === 'error' && 'line' in line) return [line.line];
  return [];
}

/**
 * One composable-actor process. `await Client.start()`, then `await close()` (in `finally`).
 *
 * Every output line after `ready` is kept, in order, in a bounded backlog (`backlog` lines, 10,000
 * by default; the oldest are dropped first): `waitFor` finds lines that came before it was called,
 * and `events()` starts at the backlog's start. Lines read back from the backlog are parsed
 * afresh: equal to, not the same objects as, those `send` resolved to. Emits `line` for every
 * output line after `ready`, and `end` once the output ends.
 *
 * Ids: every line carries the id of the input line that caused it, and the lines of a
 * long-running effect (a socket's messages, a timer's ticks) carry the id of the action that
 * STARTED the effect. `waitFor` therefore matches lines whatever their id, and so does `until`
 * with `anyId`.
 *
 * A client nobody closes does not keep Node running: the child and its pipes are unreferenced
 * while no call waits, and the child gets SIGTERM when Node exits.
 */
export class Client extends EventEmitter {
  /** @type {import('node:child_process').ChildProcessWithoutNullStreams} */ #child;
  /** @type {Promise<number | null>} */ #exited;
  /** @type {Map<number, Call>} */ #calls = new Map();
  /** @type {WaitIndex<Call>} sends with `anyId` whose `until` has not matched yet */ #watching = new WaitIndex();
  /** @type {WaitIndex<Wait>} */ #waits = new WaitIndex();
  /** @type {Map<string, Map<string, string>>} the text of a plain action line up to its id, by store and type (no key built per send) */ #plain = new Map();
  #plainKept = 0;
  /** @type {Map<string | undefined, Map<string | undefined, Map<string, (line: Line) => boolean>>>} action-type matchers checked already, by store, instance and type (#matcher) */ #matchers = new Map();
  /** how many #matchers holds (bounded) */ #matchersKept = 0;
  /** @type {Set<() => void>} events() iterators waiting for a line */ #readers = new Set();
  /** @type {Map<string, unknown>} each instance's state, by mirrorKey */ #mirror = new Map();
  // Each store's initial state (the first snapshot of its default instance, taken at start before
  // anything was sent): a named instance is activated from it, so its first patch applies to a
  // copy of it.
  /** @type {Map<string, unknown>} */ #initial = new Map();
  // The backlog keeps each line's text, parsed again when read: thousands of parsed lines kept
  // alive would outlive the young generation and make every collection dearer. So would a
  // string per line, or the chunks read from stdout: the text is copied, as UTF-8, into one
  // buffer outside the heap, and where each line is in it is kept in a ring (line `number` in
  // slot `number % size`) that grows up to the limit.
  #bytes = Buffer.alloc(0);
  /** where the next line's bytes go in #bytes */ #head = 0;
  #starts = new Int32Array(0);
  #ends = new Int32Array(0);
  /** the number (counting every line since ready from 0) of the oldest line kept */ #first = 0;
  /** the number of lines received since ready */ #received = 0;
  /** @type {number} */ #limit;
  /** this client's key among each flow's waitFor cursors */ #token = ++clients;
  /** the process has durable storage: mirrors are seeded from snapshots only */ #durable = false;
  /** @type {Set<string>} mirrorKeys a seeding snapshot was written for, not answered yet */ #seeding = new Set();
  /** @type {string[]} the last lines of the process's stderr */ #stderr = [];
  /** @type {Promise<void>} */ #stderrEnded = Promise.resolve();
  /** @type {Promise<Map<string, Set<string>>> | null} each store's action types, from describe */ #loading = null;
  /** @type {Map<string, Set<string>> | null} the same once known */ #types = null;
  /** @type {Promise<void> | null} writes wait for it while describe is fetched for a send */ #gate = null;
  #holds = 0;
  /** @type {Set<{at: number, late: () => void}>} what the timer is for */ #deadlines = new Set();
  /** @type {NodeJS.Timeout | null} */ #timer = null;
  /** when #timer fires (performance.now() time) */ #timerAt = Infinity;
  #ticks = false;
  #lastId = 0;
  // The lines written while the calls one chunk of output finished run, not yet handed to stdin
  // (null: lines go to it at once), and how many calls the chunk being read finished (#output).
  /** @type {string | null} */ #outbox = null;
  #woken = 0;
  /** @type {Error | null} */ #failure = null;
  /** @type {Line | null} */ #exitLine = null;
  /** @type {number} */ timeout;
  /** @type {Line} */ ready = {};
  /** @type {Set<unknown>} the store names, from ready */ #stores = new Set();

  /** @param {Options} [options] */
  static async start(options = {}) {
    const client = new Client(options);
    try {
      await client.#start();
    } catch (error) {
      // A process that did not start right is of no use: no quit, no grace period.
      client.#child.kill('SIGKILL');
      client.#hold();
      await client.#exited;
      client.#release();
      throw error;
    }
    return client;
  }

  /** @param {Options} options  use `Client.start` */
  constructor(options = {}) {
    super();
    checkOptions(options, ['binary', 'args', 'timeout', 'env', 'backlog'], 'Client');
    const { binary, args = [], timeout = 10_000, env, backlog = 10_000 } = options;
    if (typeof args === 'string') {
      throw new TypeError(`args must be an array of strings, e.g. ${JSON.stringify(String(args).split(/\s+/).filter(Boolean))}, not a string`);
    }
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) throw new TypeError('args must be an array of strings');
    if (!(Number.isInteger(backlog) && backlog > 0)) throw new TypeError(`backlog must be a positive whole number of lines, not ${describeValue(backlog)}`);
    if (env !== undefined && !isPlainObject(env)) throw new TypeError('env must be an object of variables');
    this.timeout = timeout;
    this.#limit = backlog;
    this.#ticks = args.some((arg, i) => arg === '--emit=ticks' || (arg === '--emit' && args[i + 1] === 'ticks'));
    this.#durable = storesState(args);
    this.#child = spawn(findBinary(binary), args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: env && { ...process.env, ...env },
    });
    running.add(this.#child);
    // Nothing of the child holds the event loop unless a call waits (#hold).
    this.#child.unref();
    this.#child.stdin.unref?.();
    this.#child.stdout.unref?.();
    // Stderr goes on to this process's, as if inherited, and its last lines are kept to say why
    // the process ended.
    const stderr = this.#child.stderr;
    /** @type {any} */ (stderr).unref?.();
    let partial = '';
    stderr.setEncoding('utf8');
    stderr.on('data', (/** @type {string} */ chunk) => {
      process.stderr.write(chunk);
      const lines = (partial + chunk).split('\n');
      partial = /** @type {string} */ (lines.pop()).slice(-4096);
      for (const line of lines.slice(-STDERR_LINES)) if (line.trim()) this.#stderr.push(line.replace(/\r$/, ''));
      if (this.#stderr.length > STDERR_LINES) this.#stderr.splice(0, this.#stderr.length - STDERR_LINES);
    });
    this.#stderrEnded = new Promise((resolve) => {
      stderr.once('close', () => {
        if (partial.trim()) this.#stderr.push(partial);
        if (this.#stderr.length > STDERR_LINES) this.#stderr.splice(0, this.#stderr.length - STDERR_LINES);
        resolve();
      });
    });
    this.#exited = new Promise((resolve) => {
      /** @param {number | null} code */
      const exited = (code) => {
        running.delete(this.#child);
        resolve(code);
      };
      // 'exit', not 'close': a grandchild holding stdout open must not keep close() waiting.
      this.#child.once('exit', exited);
      // A process that failed to spawn never exits; start() rejects with the error.
      this.#child.on('error', () => this.#child.pid === undefined && exited(null));
    });
    // A write after the process died fails with EPIPE; the calls learn of the end from stdout.
    this.#child.stdin.on('error', () => {});
  }

  async #start() {
    // Lines split here, not by node:readline: its event per line cost more than the rest of a send.
    const stdout = this.#child.stdout;
    stdout.setEncoding('utf8');
    let partial = '';
    // A line is handed on as where it is: the chunk read and its bounds in it (a line that
    // spans chunks, as a string of its own), so that the backlog keeps chunks, not a string
    // per line.
    /** @type {(text: string, start: number, end: number) => void} */
    let deliver = () => {};
    stdout.on('data', (/** @type {string} */ chunk) => {
      this.#woken = 0;
      let start = 0;
      for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
        let text = chunk;
        let from = start;
        let to = end;
        if (partial) {
          text = partial + chunk.slice(start, end);
          from = 0;
          to = text.length;
          partial = '';
        }
        if (to > from && text.charCodeAt(to - 1) === 13) to--; // a \r before the \n
        start = end + 1;
        deliver(text, from, to);
      }
      partial += chunk.slice(start);
      if (this.#woken > 1 && this.#outbox === null) {
        // The callers woken run (microtasks) before the loop's next phase, which writes theirs.
        this.#outbox = '';
        setImmediate(() => this.#flush());
      }
    });
    /** @type {Promise<void>} */
    const closed = new Promise((resolve) => {
      stdout.once('close', () => {
        if (partial) deliver(partial, 0, partial.length);
        partial = '';
        resolve();
      });
    });
    /** @type {() => void} */
    let cancel = () => {};
    try {
      const first = await new Promise((resolve, reject) => {
        // Follows on from inside the first line's handler, so no later line can slip past.
        deliver = (text, from, to) => {
          deliver = (chunk, start, end) => this.#receive(chunk, start, end);
          resolve(text.slice(from, to));
        };
        closed.then(() => this.#exitError().then(reject));
        this.#child.once('error', reject);
        cancel = this.#deadline(this.timeout, () => reject(new TimeoutError(`no ready line in ${this.timeout} ms`)));
      });
      closed.then(() => {
        if (!this.#failure) this.#exitError().then((error) => this.#end(this.#exitLine ? null : error));
      });
      this.ready = parseReady(first);
      this.#stores = new Set(this.stores);
    } finally {
      cancel();
    }
    for (const store of this.stores) await this.snapshot(store);
  }

  /** @returns {string[]} */
  get stores() {
    return this.ready.stores ?? [];
  }

  /** @returns {number | undefined} */
  get pid() {
    return this.#child.pid;
  }

  /** @returns {number | null}  the exit status once the process has ended */
  get exitCode() {
    return this.#child.exitCode;
  }

  /**
   * Sends an action to the store (its `instance`, when given) and resolves to the lines that echo
   * its id, its own line first.
   *
   * Without `until` or `settle` that is its own line only. `until` (an action type of this store,
   * checked against `describe` before anything is sent, or a predicate on lines) also waits for the
   * first line written after the action that matches (an action type: a line of the same
   * instance) and that this action caused (it carries its id). With `anyId`, WHATEVER ITS ID: the
   * lines of a long-running effect carry the id of the action that started it (a socket's echo
   * carries `connectButtonTapped`'s id). The result then ends with the matching line, if it
   * carries another id. `settle` waits until the process is idle under the
   * virtual clock. Many sends may be in flight at once. A predicate that throws rejects this call
   * only.
   *
   * @param {string} store
   * @param {string | {type: string, [field: string]: unknown}} action  a type, or a whole action
   * @param {Record<string, unknown>} [payload]  fields beside `type`, e.g. `{ value: 7 }`
   * @param {SendOptions} [options]
   * @returns {Promise<Line[]>}
   */
  send(store, action, payload = NONE, options = NONE) {
    // The plain case on a path of its own, small enough to be optimized after a few calls (and
    // not an async function: that would wrap #wait's promise in one more).
    if ((payload === NONE || isEmpty(payload)) && typeof action === 'string' && action && !this.#gate && this.#stores.has(store) && (!this.#durable || this.#mirror.has(store))) {
      // With `until` an action type (of a store whose types are known), its own lines only.
      const until = options === NONE ? null : this.#types !== null && onlyUntil(options) ? options.until : undefined;
      if (until !== undefined) {
        if (this.#failure) return Promise.reject(this.#failure);
        return this.#plainSend(store, action, until);
      }
    }
    return this.#send(store, action, payload, options);
  }

  /**
   * `send` with its arguments checked, payload, options.
   * @param {string} store @param {string | {type: string, [field: string]: unknown}} action
   * @param {Record<string, unknown>} payload @param {SendOptions} options @returns {Promise<Line[]>}
   */
  async #send(store, action, payload, options) {
    this.#checkStore(store);
    if (typeof action === 'string') {
      if (!action) throw new TypeError('the action type is empty');
    } else if (!isPlainObject(action) || typeof action.type !== 'string') {
      throw new TypeError(`action must be an action type (a string) or an object with a string type, not ${describeValue(action)}`);
    }
    if (payload !== NONE && !isPlainObject(payload)) {
      throw new TypeError(`payload must be an object of the action's fields, e.g. { value: ${JSON.stringify(payload)} }, not ${describeValue(payload)}`);
    }
    checkOptions(options, ['instance', 'until', 'settle', 'anyId', 'timeout'], 'send');
    const { instance, until, settle = false, anyId = false, timeout } = options;
    checkInstance(instance, 'send');
    if (until !== undefined && settle) throw new TypeError('pass until or settle, not both');
    // The first action type to check waits for describe, and every write behind it, in order.
    if (typeof until === 'string' && !this.#types && !this.#gate) this.#gate = this.#actionTypes().then(() => {}, () => {});
    if (this.#gate) {
      const gate = this.#gate;
      await gate;
      if (this.#gate === gate) this.#gate = null;
    }
    const types = typeof until === 'string' ? this.#types ?? (await this.#actionTypes()) : null;
    const match = until === undefined ? null : this.#matcher(until, store, instance, () => `send(${JSON.stringify(store)}, …)`, types);
    const fields = payload !== NONE && Object.keys(payload).length > 0;
    const message = typeof action === 'string' ? (fields ? { type: action, ...payload } : action) : { ...action, ...payload };
    this.#seed(store, instance);
    const call = this.#request({ store, instance, action: message }, match ? never : settle ? never : isOwnLine, match, !anyId);
    const what = () => `send(${JSON.stringify(store)}, ${JSON.stringify(typeof action === 'string' ? action : action.type)}${instance === undefined ? '' : `, instance ${JSON.stringify(instance)}`})`;
    if (!settle) {
      return this.#wait(call, call, timeout, () => `${what()}${match ? ` waiting for ${this.#describeUntil(/** @type {Until} */ (until))} after it` : ''}`);
    }
    const settled = this.#request({ cmd: 'settle' }, (line) => line.type === 'settled');
    return this.#wait(settled, call, timeout, () => `${what()} waiting for settled`);
  }

  /**
   * Resolves to the first kept line that matches `until`, whatever its id, looking from a cursor:
   * lines an earlier `waitFor` matched or passed are not seen again, but lines that came before
   * this call and are still in the backlog are (a welcome message received before the call is
   * found). `until` is an action type (it matches `action` lines of that type; under
   * `--emit ticks` no line names an action, so pass a predicate) or a predicate on lines.
   * `store` limits an action type to one store's `instance` (absent: its default instance). An
   * unknown action type or store rejects at once,
   * a predicate that throws rejects this call with its error, a timeout with `TimeoutError`.
   *
   * @param {Until} until
   * @param {WaitOptions} [options]
   * @returns {Promise<Line>}
   */
  async waitFor(until, options = NONE) {
    checkOptions(options, ['store', 'instance', 'timeout'], 'waitFor');
    const { store, instance, timeout = this.timeout } = options;
    this.#checkScope(store, instance, 'waitFor');
    // This flow's cursor, taken (and installed as its own) before anything is awaited, so that the
    // caller's code after the await sees where this call left it.
    const inherited = cursors.getStore();
    const cursor = { at: inherited?.get(this.#token)?.at ?? 0 };
    cursors.enterWith(new Map(inherited).set(this.#token, cursor));
    const types = typeof until === 'string' ? this.#types ?? (await this.#actionTypes()) : null;
    const match = this.#matcher(until, store, instance, 'waitFor', types);
    for (let number = Math.max(cursor.at, this.#first); number < this.#received; number++) {
      const line = this.#line(number);
      if (match(line)) {
        cursor.at = number + 1;
        return line;
      }
    }
    if (this.#failure) throw this.#failure;
    /** @type {() => void} */
    let cancel = () => {};
    try {
      return await new Promise((resolve, reject) => {
        /** @type {Wait} */
        const wait = {
          match,
          type: /** @type {{actionType?: string}} */ (match).actionType ?? null,
          found: (line, number) => {
            cursor.at = Math.max(cursor.at, number + 1);
            resolve(line);
          },
          fail: reject,
        };
        this.#waits.add(wait);
        const what = `waitFor ${this.#describeUntil(until)}${store === undefined ? '' : ` in ${where(store, instance)}`}`;
        cancel = this.#deadline(timeout, () => {
          this.#waits.delete(wait);
          reject(this.#timeoutError(what, timeout));
        });
      });
    } finally {
      cancel();
    }
  }

  /**
   * The local mirror of the state of the store's instance (a copy), current with every line read.
   * A named instance no line was read about throws `UnknownInstanceError`.
   * @param {string} store @param {{instance?: string}} [options]
   * @returns {any}  the state (JSON); its type is the store's (schemas/stores/), not checked here
   */
  state(store, options = NONE) {
    this.#checkStore(store);
    checkOptions(options, ['instance'], 'state');
    const { instance } = options;
    checkInstance(instance, 'state');
    const key = mirrorKey(store, instance);
    if (!this.#mirror.has(key)) {
      if (instance !== undefined) throw new UnknownInstanceError(store, instance);
      throw new Error(`no state for store ${JSON.stringify(store)} yet`);
    }
    return structuredClone(this.#mirror.get(key));
  }

  /**
   * The state of the store's instance as the process has it now (a new key activates it).
   * @param {string} store @param {InstanceOptions} [options]
   */
  async snapshot(store, options = NONE) {
    this.#checkStore(store);
    checkOptions(options, ['instance', 'timeout'], 'snapshot');
    const { instance, timeout } = options;
    checkInstance(instance, 'snapshot');
    return (await this.#command('snapshot', { store, instance }, timeout)).at(-1)?.state;
  }

  /**
   * The keys of the store's named instances in memory or, under --state-dir, stored (the two
   * together, in the byte order of their UTF-8), asked `page` at a time. Keys activated, stopped
   * or forgotten while it pages may be missed or listed.
   * @param {string} store @param {PageOptions} [options] @returns {Promise<string[]>}
   */
  async instances(store, options = NONE) {
    this.#checkStore(store);
    checkOptions(options, ['page', 'timeout'], 'instances');
    const { page = 1000, timeout } = options;
    if (!(Number.isInteger(page) && page > 0)) throw new TypeError(`instances: page must be a positive whole number of keys, not ${describeValue(page)}`);
    /** @type {string[]} */
    const keys = [];
    /** @type {string | undefined} */
    let after;
    do {
      const answer = /** @type {Line} */ ((await this.#command('instances', { store, limit: page, after }, timeout)).at(-1));
      // The process pages the two kinds together, so each page is one range of that order.
      const passivated = answer.passivated ?? [];
      keys.push(...(passivated.length === 0 ? answer.active : [...answer.active, ...passivated].sort(byteOrder)));
      after = answer.next;
    } while (after !== undefined);
    return keys;
  }

  /**
   * Cancels the instance's effects and frees it (its mirror goes too); resolves to the number of
   * effects cancelled. A key not in memory rejects with `ComposableActorError` (`unknown_instance`).
   * @param {string} store @param {string} instance @param {{timeout?: number}} [options]
   * @returns {Promise<number>}
   */
  async stop(store, instance, options = NONE) {
    this.#checkStore(store);
    if (typeof instance !== 'string') throw new TypeError(`stop: instance must be a key (a string), not ${describeValue(instance)}`);
    checkOptions(options, ['timeout'], 'stop');
    return /** @type {Line} */ ((await this.#command('stop', { store, instance }, options.timeout)).at(-1)).cancelledEffects;
  }

  /**
   * Under --state-dir: cancels the instance's effects, frees it and deletes its stored state (its
   * mirror goes too), so that its key starts afresh; resolves to the number of effects cancelled.
   * `stop` leaves a stored instance stored. A key neither in memory nor stored rejects with
   * `ComposableActorError` (`unknown_instance`); without --state-dir nothing is stored, and
   * `invalid_command` says to `stop` instead.
   * @param {string} store @param {string} instance @param {{timeout?: number}} [options]
   * @returns {Promise<number>}
   */
  async forget(store, instance, options = NONE) {
    this.#checkStore(store);
    if (typeof instance !== 'string') throw new TypeError(`forget: instance must be a key (a string), not ${describeValue(instance)}`);
    checkOptions(options, ['timeout'], 'forget');
    return /** @type {Line} */ ((await this.#command('forget', { store, instance }, options.timeout)).at(-1)).cancelledEffects;
  }

  /** @param {{timeout?: number}} [options] @returns {Promise<Line>} */
  async describe(options = NONE) {
    checkOptions(options, ['timeout'], 'describe');
    return this.#learn(/** @type {Line} */ ((await this.#command('describe', {}, options.timeout)).at(-1)));
  }

  /**
   * Keeps the action types of a `describe` answer, to check the action types given to until and
   * waitFor.
   * @param {Line} description @returns {Line}
   */
  #learn(description) {
    // Kept to check the action types given to until and waitFor.
    /** @type {Map<string, Set<string>>} */
    const types = new Map();
    for (const store of description.stores) types.set(store.name, new Set(store.actions.map((/** @type {{type: string}} */ action) => action.type)));
    this.#types = types;
    return description;
  }

  /**
   * Under durable storage, asks for a snapshot of an instance without a mirror just before the
   * first action to it: nobody waits for it, its line seeds the mirror before the action's patch
   * comes (the process reads the instance back from storage, not from the initial state).
   * @param {string} store @param {string | undefined} instance
   */
  #seed(store, instance) {
    const key = mirrorKey(store, instance);
    if (!this.#durable || this.#mirror.has(key) || this.#seeding.has(key)) return;
    const call = this.#request({ cmd: 'snapshot', store, instance }, (line) => line.type === 'snapshot');
    call.seeds = key;
    this.#seeding.add(key);
  }

  /**
   * Moves virtual time by `ms`; resolves to the lines echoing this command, `advanced` last.
   * @param {number} ms @param {{timeout?: number}} [options]
   */
  async advance(ms, options = NONE) {
    if (typeof ms !== 'number') throw new TypeError(`ms must be a number of milliseconds, not ${describeValue(ms)}`);
    checkOptions(options, ['timeout'], 'advance');
    return this.#command('advance', { ms }, options.timeout);
  }

  /**
   * Waits until no effect can progress without time or I/O; resolves to lines ending with `settled`.
   * @param {{timeout?: number}} [options]
   */
  async settle(options = NONE) {
    checkOptions(options, ['timeout'], 'settle');
    return this.#command('settle', {}, options.timeout);
  }

  /**
   * Every output line from the backlog's start (as it is at the first `next()`), then the live
   * ones, the exit line last. Each iterator has its own position; none moves `waitFor`'s. With
   * `store`, only the lines about that store's `instance` (absent: its default).
   *
   * An iterator holds no line of its own: it reads the client's backlog, so one never iterated
   * costs nothing. One that falls more than `backlog` lines behind rejects its next `next()` with
   * `MissedLinesError` (`missed`: how many it lost), once, then goes on with the oldest line kept
   * (iterate it again). A process that ends without an exit line (killed, crashed) rejects it
   * with the `ProcessExitedError` that says how.
   * @param {{store?: string, instance?: string}} [options] @returns {AsyncGenerator<Line>}
   */
  events(options = NONE) {
    checkOptions(options, ['store', 'instance'], 'events');
    const { store, instance } = options;
    this.#checkScope(store, instance, 'events');
    const client = this;
    let number = -1;
    let done = false;
    /** @returns {Promise<IteratorResult<Line, undefined>>} */
    const next = async () => {
      if (done) return { value: undefined, done: true };
      if (number < 0) number = client.#first;
      for (;;) {
        if (number < client.#first) {
          const missed = client.#first - number;
          number = client.#first;
          throw new MissedLinesError(missed, store, instance);
        }
        if (number < client.#received) {
          const line = client.#line(number++);
          if (store === undefined || (line.store === store && line.instance === instance)) return { value: line, done: false };
        } else if (client.#failure) {
          done = true;
          if (client.#exitLine) return { value: undefined, done: true };
          throw client.#failure;
        } else {
          client.#hold();
          /** @type {() => void} */
          let wake = () => {};
          try {
            await new Promise((resolve) => {
              wake = () => resolve(undefined);
              client.#readers.add(wake);
            });
          } finally {
            client.#readers.delete(wake);
            client.#release();
          }
        }
      }
    };
    /** @type {AsyncGenerator<Line, undefined, unknown>} */
    const iterator = {
      next,
      async return() {
        done = true;
        return { value: undefined, done: true };
      },
      /** @param {unknown} error */
      async throw(error) {
        done = true;
        throw error;
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  /**
   * The error of a process whose stdout closed without an exit line: its exit status or signal
   * (once it exited) and the last lines of its stderr, each awaited at most REAP_MS.
   * @returns {Promise<ProcessExitedError>}
   */
  async #exitError() {
    /** @param {Promise<unknown>} promise */
    const within = async (promise) => {
      /** @type {NodeJS.Timeout | undefined} */
      let timer;
      const late = new Promise((resolve) => (timer = setTimeout(resolve, REAP_MS, undefined).unref()));
      try {
        await Promise.race([promise, late]);
      } finally {
        clearTimeout(timer);
      }
    };
    await within(this.#exited);
    await within(this.#stderrEnded);
    return new ProcessExitedError(null, { exitCode: this.#child.exitCode, signal: this.#child.signalCode, stderr: [...this.#stderr] });
  }

  /**
   * Asks the process to quit, then terminates or kills it if it lingers; resolves to its exit status.
   * @param {{timeout?: number}} [options]
   */
  async close(options = NONE) {
    checkOptions(options, ['timeout'], 'close');
    const { timeout = 2000 } = options;
    this.#hold();
    try {
      if (this.#child.exitCode === null && this.#child.signalCode === null) {
        if (!this.#failure) this.#write({ cmd: 'quit' });
        this.#flush();
        this.#child.stdin.end();
        // Stdout is still being read, so the process cannot block on it while it quits.
        if (!(await this.#exits(timeout))) {
          this.#child.kill('SIGTERM');
          if (!(await this.#exits(1000))) this.#child.kill('SIGKILL');
        }
      }
      return await this.#exited;
    } finally {
      this.#release();
    }
  }

  /**
   * Whether the process ends within `ms`.
   * @param {number} ms @returns {Promise<boolean>}
   */
  #exits(ms) {
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, ms, false)));
    return Promise.race([this.#exited.then(() => true), late]).finally(() => clearTimeout(timer));
  }

  /**
   * Calls `late` after `ms` unless cancelled first. Until then the event loop (and so the script)
   * is held open: by the client's timer, or for a timeout too long for a timer (Infinity), by the
   * child's stdout. Nothing else of the client holds it.
   *
   * One timer per client serves every deadline, set for the earliest: a timer per call, cleared
   * a few microseconds later, made Node build and drop its timer list every time (about 15 µs a
   * send in bench/client_latency.py).
   * @param {number} ms @param {() => void} late @returns {() => void} the cancel
   */
  #deadline(ms, late) {
    if (!(ms <= MAX_TIMER)) {
      this.#hold();
      let held = true;
      return () => {
        if (held) this.#release();
        held = false;
      };
    }
    const deadline = { at: performance.now() + ms, late };
    this.#deadlines.add(deadline);
    if (deadline.at < this.#timerAt) this.#arm(deadline.at);
    else if (this.#deadlines.size === 1) this.#timer?.ref();
    return () => {
      if (this.#deadlines.delete(deadline) && this.#deadlines.size === 0) this.#timer?.unref();
    };
  }

  /**
   * Sets the client's timer for `at` (performance.now() time).
   * @param {number} at
   */
  #arm(at) {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, Math.ceil(at - performance.now())));
  }

  /** The timer fired: calls the deadlines that passed, sets it for the next one. */
  #expire() {
    this.#timer = null;
    this.#timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const deadline of this.#deadlines) {
      if (deadline.at <= now) {
        this.#deadlines.delete(deadline);
        deadline.late();
      } else if (deadline.at < next) next = deadline.at;
    }
    if (next < Infinity && this.#deadlines.size > 0) this.#arm(next);
  }

  #hold() {
    if (this.#holds++ === 0) {
      this.#child.ref();
      this.#child.stdout.ref?.();
    }
  }

  #release() {
    if (--this.#holds === 0) {
      this.#child.unref();
      this.#child.stdout.unref?.();
    }
  }

  /** @param {unknown} store */
  #checkStore(store) {
    if (typeof store !== 'string') throw new TypeError(`store must be a store name (a string), not ${describeValue(store)}`);
    if (!this.#stores.has(store)) throw new UnknownStoreError(store, this.stores);
  }

  /**
   * Checks the store and instance a call is limited to, if any: an instance is of a store.
   * @param {unknown} store @param {unknown} instance @param {string} where
   */
  #checkScope(store, instance, where) {
    if (store !== undefined) this.#checkStore(store);
    checkInstance(instance, where);
    if (instance !== undefined && store === undefined) throw new TypeError(`${where}: instance ${JSON.stringify(instance)} needs its store: pass store too`);
  }

  /** Each store's action types, from `describe` (asked once, when first needed). */
  #actionTypes() {
    if (!this.#loading) {
      // The client's own question: its answer is not one of the user's lines.
      this.#loading = this.#command('describe', {}, undefined, true).then((lines) => {
        this.#learn(/** @type {Line} */ (lines.at(-1)));
        return /** @type {Map<string, Set<string>>} */ (this.#types);
      });
      // Asked again next time if it failed (it fails only when the process ended).
      this.#loading.catch(() => (this.#loading = null));
    }
    return this.#loading;
  }

  /**
   * A matcher for `until`: a predicate as it is, an action type checked against describe's.
   * @param {unknown} until @param {string | undefined} store @param {string | undefined} instance
   * @param {string | (() => string)} where  the call, for errors (a function: built only then)
   * @param {Map<string, Set<string>> | null} types  each store's action types (for an action type)
   * @returns {(line: Line) => boolean}
   */
  #matcher(until, store, instance, where, types) {
    if (typeof until === 'function') return /** @type {(line: Line) => boolean} */ (until);
    const at = () => (typeof where === 'function' ? where() : where);
    if (typeof until !== 'string') {
      throw new TypeError(`${at()}: until must be an action type (a string) or a predicate on lines, not ${describeValue(until)}`);
    }
    if (this.#ticks) {
      throw new TypeError(`${at()}: under --emit ticks, state lines do not name their actions, so the action type ${JSON.stringify(until)} would never match; pass a predicate on lines`);
    }
    if (!types) throw new Error('the action types are not known');
    // Checked once per store, instance and type: a client mostly waits for a few, many times.
    const known = this.#matchers.get(store)?.get(instance)?.get(until);
    if (known) return known;
    const stores = store === undefined ? [...types.keys()] : [store];
    if (!stores.some((name) => types.get(name)?.has(until))) {
      const candidates = stores.flatMap((name) => [...(types.get(name) ?? [])]);
      const elsewhere = [...types].filter(([name, actions]) => !stores.includes(name) && actions.has(until)).map(([name]) => name);
      const hint = elsewhere.length > 0 ? `; it is an action of ${elsewhere.join(', ')}` : didYouMean(until, candidates);
      const scope = store === undefined ? 'any store' : `store ${JSON.stringify(store)}`;
      throw new UnknownActionError(until, store, `${at()}: no action type ${JSON.stringify(until)} in ${scope}${hint}`);
    }
    /** @type {((line: Line) => boolean) & {actionType?: string}} */
    const match = (line) => line.type === 'action' && line.action.type === until && (store === undefined || (line.store === store && line.instance === instance));
    // What the wait is found by: only action lines of this type are offered to it.
    match.actionType = until;
    // Bounded: the types a program waits for are few, but a string can be anything.
    if (this.#matchersKept++ >= 1024) {
      this.#matchers.clear();
      this.#matchersKept = 1;
    }
    const instances = this.#matchers.get(store) ?? new Map();
    this.#matchers.set(store, instances);
    instances.set(instance, (instances.get(instance) ?? new Map()).set(until, match));
    return match;
  }

  /** @param {Until} until */
  #describeUntil(until) {
    return typeof until === 'string' ? `action type ${JSON.stringify(until)}` : `predicate ${until.name || '(anonymous)'}`;
  }

  /** @param {string} what @param {number} ms */
  #timeoutError(what, ms) {
    const last = [];
    for (let number = Math.max(this.#first, this.#received - 5); number < this.#received; number++) last.push(this.#text(number));
    const shown = last.length > 0 ? last.map((text) => `\n  ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`).join('') : ' none';
    return new TimeoutError(`${what}: nothing matched in ${ms} ms; the last ${last.length} lines received:${shown}`, last.map((text) => JSON.parse(text)));
  }

  /**
   * @param {string} cmd @param {Record<string, unknown>} fields @param {number} [timeout]
   * @param {boolean} [internal]  the client's own question: its answer is not kept in the backlog
   */
  async #command(cmd, fields, timeout, internal = false) {
    const answer = ANSWERS[/** @type {keyof typeof ANSWERS} */ (cmd)];
    if (this.#gate && cmd !== 'describe') await this.#gate;
    const call = this.#request({ cmd, ...fields }, (line) => line.type === answer);
    call.internal = internal;
    return this.#wait(call, call, timeout, () => `${cmd} waiting for its ${answer} line`);
  }

  /**
   * @param {Record<string, unknown>} message @param {(line: Line) => boolean} done
   * @param {((line: Line) => boolean) | null} [until]
   * @param {boolean} [own]  `until` matches only lines carrying this call's id
   * @returns {Call}
   */
  #request(message, done, until = null, own = false) {
    if (this.#failure) throw this.#failure;
    const type = /** @type {{actionType?: string}} */ (until ?? {}).actionType ?? null;
    /** @type {Call} */
    const call = { id: this.#write(message), done, until, ownUntil: own, type, own: false, matched: null, lines: [], error: null, finished: false, wake: null, internal: false, seeds: null };
    this.#calls.set(call.id, call);
    // A send's own `until` is offered the lines of its id, found with the call (#receive).
    if (until && !own) this.#watching.add(call);
    return call;
  }

  /**
   * `#request` of a plain action (a type, to a store's default instance), written from the text
   * kept for it: most sends repeat a few plain actions.
   * @param {string} store @param {string} action @returns {Call}
   */
  #plainRequest(store, action) {
    if (this.#failure) throw this.#failure;
    let prefix = this.#plain.get(store)?.get(action);
    if (prefix === undefined) {
      // Bounded: the types a program sends are few, but a string can be anything.
      if (this.#plainKept++ >= 1024) {
        this.#plain.clear();
        this.#plainKept = 1;
      }
      prefix = `${JSON.stringify({ store, action }).slice(0, -1)},"id":`;
      const types = this.#plain.get(store) ?? new Map();
      this.#plain.set(store, types.set(action, prefix));
    }
    const id = ++this.#lastId;
    this.#output(`${prefix}${id}}\n`);
    /** @type {Call} */
    const call = { id, done: isOwnLine, until: null, ownUntil: false, type: null, own: false, matched: null, lines: [], error: null, finished: false, wake: null, internal: false, seeds: null };
    this.#calls.set(id, call);
    return call;
  }

  /**
   * `#wait` for a plain action, waiting for the action type `until` among its own lines too
   * unless null: the call's end settles the promise itself, with no async function around it (a
   * promise and two turns of the microtask queue less a send).
   * @param {string} store @param {string} action @param {string | null} until
   * @returns {Promise<Line[]>}
   */
  #plainSend(store, action, until) {
    let match = null;
    if (until !== null) {
      // #matcher's own lookup first: what it needs for an error is built only when it checks.
      match = this.#matchers.get(store)?.get(undefined)?.get(until) ?? null;
      if (match === null) {
        try {
          match = this.#matcher(until, store, undefined, () => `send(${JSON.stringify(store)}, …)`, this.#types);
        } catch (error) {
          return Promise.reject(error);
        }
      }
    }
    const call = this.#plainRequest(store, action);
    if (match !== null) {
      // As #request sets a send's own `until`: its lines end it, its own line alone does not.
      call.done = never;
      call.until = match;
      call.ownUntil = true;
      call.type = /** @type {{actionType?: string}} */ (match).actionType ?? null;
    }
    return new Promise((resolve, reject) => {
      const timeout = this.timeout;
      const cancel = this.#deadline(timeout, () => {
        this.#calls.delete(call.id);
        const waiting = until === null ? '' : ` waiting for ${this.#describeUntil(until)} after it`;
        reject(this.#timeoutError(`send(${JSON.stringify(store)}, ${JSON.stringify(action)})${waiting}`, timeout));
      });
      call.wake = () => {
        cancel();
        if (call.error) reject(call.error);
        else resolve(call.lines);
      };
    });
  }

  /** @param {Record<string, unknown>} message @returns {number} the id it was sent with */
  #write(message) {
    // Encoded first: a message that cannot be (a BigInt, a cycle) takes no id, so the ids stay
    // the numbers of the lines written.
    const text = `${JSON.stringify({ ...message, id: this.#lastId + 1 })}\n`;
    this.#output(text);
    return ++this.#lastId;
  }

  /**
   * Writes a line, or while the calls one chunk of output finished run, queues it to be written
   * with theirs: one system call for them all, not one each.
   * @param {string} text
   */
  #output(text) {
    if (this.#outbox === null) this.#child.stdin.write(text);
    else this.#outbox += text;
  }

  /** Writes the lines queued, in the order queued, and the next ones at once. */
  #flush() {
    const text = this.#outbox;
    this.#outbox = null;
    if (text) this.#child.stdin.write(text);
  }

  /**
   * The lines of `answer` once `waited` finished; rejects with the error either met.
   * @param {Call} waited @param {Call} answer @param {number | undefined} timeout @param {() => string} what
   */
  async #wait(waited, answer, timeout = this.timeout, what) {
    /** @type {() => void} */
    let cancel = () => {};
    try {
      if (!waited.finished) {
        await new Promise((resolve, reject) => {
          waited.wake = /** @type {() => void} */ (resolve);
          cancel = this.#deadline(timeout, () => reject(this.#timeoutError(what(), timeout)));
        });
      }
    } finally {
      cancel();
      this.#calls.delete(waited.id);
      this.#calls.delete(answer.id);
      this.#watching.delete(waited);
      this.#watching.delete(answer);
    }
    const error = answer.error ?? waited.error;
    if (error) throw error;
    const { lines, matched } = answer;
    return matched && !lines.includes(matched) ? [...lines, matched] : lines;
  }

  /**
   * Follows one output line: `chunk.slice(start, end)`.
   * @param {string} chunk @param {number} start @param {number} end
   */
  #receive(chunk, start, end) {
    /** @type {Line} */
    let line;
    try {
      line = JSON.parse(chunk.slice(start, end));
      if (line.type === 'action' || line.type === 'state') this.#patch(line);
    } catch (error) {
      // A line that cannot be followed leaves the mirror untrustworthy: fail every call with it.
      this.#end(/** @type {Error} */ (error));
      return;
    }
    if (line.type === 'snapshot' || line.type === 'stopped' || line.type === 'forgotten') this.#mirrorInstance(line);
    if (line.type === 'describe' && this.#calls.get(line.id)?.internal) {
      // The client's own question (the action types): not one of the user's lines, nor ~20 KB of backlog.
      const call = /** @type {Call} */ (this.#calls.get(line.id));
      call.lines.push(line);
      this.#finish(call);
      return;
    }
    const number = this.#keep(chunk, start, end);
    if (line.id !== undefined) this.#answer(line.id, line);
    else for (const id of idsOf(line)) this.#answer(/** @type {number} */ (id), line);
    if (this.#watching.size > 0 || this.#waits.size > 0 || this.#readers.size > 0) this.#notify(line, number);
    this.emit('line', line);
    if (line.type === 'exit') {
      this.#exitLine = line;
      this.#end(null);
    }
  }

  /**
   * Gives a line to the call whose id it carries, if that one still waits.
   * @param {number} id @param {Line} line
   */
  #answer(id, line) {
    const call = this.#calls.get(id);
    if (!call) return;
    call.lines.push(line);
    if (line.type === 'error') call.error = new ComposableActorError(line);
    else if (call.until) {
      call.own ||= isOwnLine(line);
      if (call.ownUntil && !call.matched) {
        try {
          if (call.until(line)) call.matched = line;
        } catch (error) {
          // Only the call whose predicate threw fails.
          call.error = error;
        }
      }
    }
    if (call.error || call.done(line) || (call.own && call.matched)) this.#finish(call);
  }

  /**
   * Applies an action or state line's patch to its instance's mirror.
   * @param {Line} line
   */
  #patch(line) {
    const key = mirrorKey(line.store, line.instance);
    let state = this.#mirror.get(key);
    // A named instance's first line: it was just activated, from the store's initial state.
    // (Not under durable storage: the process reads an instance back from storage, and the default
    // instance's first snapshot is its stored state, not the initial one.)
    if (state === undefined && line.instance !== undefined && this.#initial.has(line.store) && !this.#durable) state = structuredClone(this.#initial.get(line.store));
    if (state !== undefined) this.#mirror.set(key, applyPatch(state, line.patch));
  }

  /**
   * Seeds an instance's mirror from a snapshot, or drops it once stopped or forgotten.
   * @param {Line} line
   */
  #mirrorInstance(line) {
    const key = mirrorKey(line.store, line.instance);
    if (line.type === 'stopped' || line.type === 'forgotten') {
      // Freed by the process (and, forgotten, deleted from storage): a later line naming the key
      // starts it afresh.
      this.#mirror.delete(key);
    } else if (!this.#mirror.has(key)) {
      // start() snapshots every store to seed the mirror; a later snapshot must match the
      // mirror, not silently replace it. A copy: the state `snapshot` resolves to must stay the
      // state it was, not the mirror as patches change it.
      this.#mirror.set(key, structuredClone(line.state));
      if (line.instance === undefined) this.#initial.set(line.store, structuredClone(line.state));
    }
  }

  /**
   * Shows a line to the calls watching every line: `until`, `waitFor`, `events()`. (Apart from
   * #receive, which runs for every line, so that it stays small enough to be optimized early.)
   * @param {Line} line @param {number} number
   */
  #notify(line, number) {
    if (this.#watching.size > 0) this.#offer(line);
    if (this.#waits.size > 0) {
      for (const wait of this.#waits.candidates(line)) {
        try {
          if (!wait.match(line)) continue;
          wait.found(line, number);
        } catch (error) {
          wait.fail(error);
        }
        this.#waits.delete(wait);
      }
    }
    for (const wake of this.#readers) wake();
  }

  /**
   * Offers a line to the sends whose `until` takes any id.
   * @param {Line} line
   */
  #offer(line) {
    for (const call of this.#watching.candidates(line)) {
      try {
        if (!call.until?.(line)) continue;
        call.matched = line;
      } catch (error) {
        // Only the call whose predicate threw fails.
        call.error = error;
      }
      this.#watching.delete(call);
      if (call.error || call.own) this.#finish(call);
    }
  }

  /**
   * Line `number` (counted from 0 since ready) of the backlog, parsed afresh.
   * @param {number} number @returns {Line}
   */
  #line(number) {
    return JSON.parse(this.#text(number));
  }

  /**
   * The text of line `number` of the backlog.
   * @param {number} number @returns {string}
   */
  #text(number) {
    const slot = number % this.#starts.length;
    return this.#bytes.toString('utf8', this.#starts[slot], this.#ends[slot]);
  }

  /**
   * Appends a line to the backlog, dropping the oldest line past the limit (its slot is reused).
   * @param {string} chunk @param {number} start @param {number} end  where its text is
   * @returns {number} its number
   */
  #keep(chunk, start, end) {
    const number = this.#received++;
    if (number - this.#first === this.#starts.length) {
      if (this.#starts.length < this.#limit) this.#grow();
      else this.#first++;
    }
    // At most 3 bytes of UTF-8 for each UTF-16 unit.
    const most = 3 * (end - start);
    if (this.#head + most > this.#bytes.length) this.#compact(most);
    const slot = number % this.#starts.length;
    this.#starts[slot] = this.#head;
    this.#head += this.#bytes.write(chunk.slice(start, end), this.#head);
    this.#ends[slot] = this.#head;
    return number;
  }

  /** Doubles the backlog's ring, up to the limit, keeping its lines. */
  #grow() {
    const size = Math.min(this.#limit, Math.max(64, this.#starts.length * 2));
    const starts = new Int32Array(size);
    const ends = new Int32Array(size);
    for (let number = this.#first; number < this.#received - 1; number++) {
      const from = number % this.#starts.length;
      const to = number % size;
      starts[to] = this.#starts[from];
      ends[to] = this.#ends[from];
    }
    this.#starts = starts;
    this.#ends = ends;
  }

  /**
   * Moves the bytes of the lines kept to the start of #bytes, in a buffer twice their size and
   * `room` (reused when that is not far from its size): memory follows the lines kept, and a
   * line's bytes are moved a bounded number of times on average.
   * @param {number} room  bytes the next line may take
   */
  #compact(room) {
    const last = this.#received - 1; // the line being kept
    const base = this.#first < last ? this.#starts[this.#first % this.#starts.length] : this.#head;
    const live = this.#head - base;
    const size = Math.max(1 << 16, 2 * (live + room));
    const bytes = size <= this.#bytes.length && this.#bytes.length <= 4 * size ? this.#bytes : Buffer.allocUnsafeSlow(size);
    this.#bytes.copy(bytes, 0, base, this.#head);
    for (let number = this.#first; number < last; number++) {
      const slot = number % this.#starts.length;
      this.#starts[slot] -= base;
      this.#ends[slot] -= base;
    }
    this.#bytes = bytes;
    this.#head = live;
  }

  /**
   * Fails every pending call and every later one.
   * @param {Error | null} failure
   */
  #end(failure) {
    if (this.#failure) return;
    this.#failure = failure ?? new ProcessExitedError(this.#exitLine);
    for (const call of this.#calls.values()) {
      call.error = this.#failure;
      this.#finish(call);
    }
    for (const wait of this.#waits.clear()) wait.fail(this.#failure);
    for (const wake of this.#readers) wake();
    this.emit('end');
  }

  /** @param {Call} call */
  #finish(call) {
    call.finished = true;
    if (call.seeds !== null) this.#seeding.delete(call.seeds);
    this.#calls.delete(call.id);
    this.#watching.delete(call);
    if (call.wake) {
      this.#woken++;
      call.wake();
    }
  }
}
