// Drive composable-actor from Node: spawn it, send actions, follow every output line.
//
// Ids are the input line numbers (every line the client writes takes the next one), so an error
// the process could not attach an id to (`line_too_long`) still finds its call through `line`.

import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { applyPatch } from './patch.js';

export { applyPatch, jsonEqual, JsonPatchError } from './patch.js';

export const ENV_BINARY = 'COMPOSABLE_ACTOR_BIN';
const BUILD_BINARY = fileURLToPath(new URL('../../.build/release/composable-actor', import.meta.url));

/** @typedef {Record<string, any>} Line  one parsed output line */
/** @typedef {string | ((line: Line) => boolean)} Until  an action type, or a predicate on lines */
/**
 * @typedef {object} Options
 * @property {string} [binary]  path of the binary; else $COMPOSABLE_ACTOR_BIN, else the release build
 * @property {string[]} [args]  command-line arguments, e.g. ['--clock', 'virtual']
 * @property {number} [timeout]  default milliseconds a call waits for its answer (10,000)
 * @property {Record<string, string>} [env]  added to this process's environment
 */
/**
 * @typedef {object} Call  one written line still waiting; `lines` collects every line echoing its id
 * @property {number} id
 * @property {(line: Line) => boolean} done
 * @property {Line[]} lines
 * @property {Error | null} error
 * @property {boolean} finished
 * @property {(() => void) | null} wake
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
  }
}

/** The process ended (an `exit` line, or its stdout closed) before the call was answered. */
export class ProcessExitedError extends Error {
  name = 'ProcessExitedError';
  /** @param {Line | null} exitLine */
  constructor(exitLine) {
    super(`composable-actor exited ${exitLine ? `with reason ${JSON.stringify(exitLine.reason)}` : 'without an exit line'}`);
    this.exitLine = exitLine;
    /** @type {string | undefined} */ this.reason = exitLine?.reason;
  }
}

/** No answer in time. */
export class TimeoutError extends Error {
  name = 'TimeoutError';
}

/**
 * The explicit path, else $COMPOSABLE_ACTOR_BIN, else the repository's release build.
 * @param {string} [binary]
 */
export function findBinary(binary) {
  const path = binary || process.env[ENV_BINARY] || BUILD_BINARY;
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) {
    throw new Error(`no composable-actor binary at ${path}: pass its path, set ${ENV_BINARY}, or build it`);
  }
  return path;
}

// Children still running when this process exits get SIGTERM: they cancel their effects, write
// their exit line and end, rather than outlive their host.
/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

const ANSWERS = { snapshot: 'snapshot', describe: 'describe', advance: 'advanced', settle: 'settled' };
const never = () => false;
/** @param {Line} line  the host's own line: `action`, or under --emit ticks the `state` line naming it */
const isOwnLine = (line) => line.type === 'action' || line.type === 'state';

/** @param {Until} until @returns {(line: Line) => boolean} */
function matcher(until) {
  return typeof until === 'function' ? until : (line) => line.type === 'action' && line.action.type === until;
}

/** @param {string} text @returns {Line} */
function parseReady(text) {
  try {
    const line = JSON.parse(text);
    if (line.type === 'ready') return line;
  } catch {}
  throw new Error(`expected a ready line first, got ${text.slice(0, 200)}`);
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
 * Emits `line` for every output line after `ready`, and `end` once the output ends.
 */
export class Client extends EventEmitter {
  /** @type {import('node:child_process').ChildProcessWithoutNullStreams} */ #child;
  /** @type {Promise<number | null>} */ #exited;
  /** @type {Map<number, Call>} */ #calls = new Map();
  /** @type {Map<string, unknown>} */ #mirror = new Map();
  #lastId = 0;
  /** @type {Error | null} */ #failure = null;
  /** @type {Line | null} */ #exitLine = null;
  /** @type {number} */ timeout;
  /** @type {Line} */ ready = {};

  /** @param {Options} [options] */
  static async start(options = {}) {
    const client = new Client(options);
    try {
      await client.#start();
    } catch (error) {
      // A process that did not start right is of no use: no quit, no grace period.
      client.#child.kill('SIGKILL');
      await client.#exited;
      throw error;
    }
    return client;
  }

  /** @param {Options} options  use `Client.start` */
  constructor({ binary, args = [], timeout = 10_000, env } = {}) {
    super();
    this.timeout = timeout;
    this.#child = spawn(findBinary(binary), args, {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: env && { ...process.env, ...env },
    });
    running.add(this.#child);
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
    const lines = createInterface({ input: this.#child.stdout, crlfDelay: Infinity });
    const first = await new Promise((resolve, reject) => {
      // Follows on from inside the first line's handler, so no later line can slip past.
      lines.once('line', (text) => {
        lines.on('line', (line) => this.#receive(line));
        resolve(text);
      });
      lines.once('close', () => reject(this.#failure ?? new ProcessExitedError(null)));
      this.#child.once('error', reject);
      setTimeout(() => reject(new TimeoutError(`no ready line in ${this.timeout} ms`)), this.timeout).unref();
    });
    lines.once('close', () => this.#end(null));
    this.ready = parseReady(first);
    for (const store of this.stores) await this.snapshot(store);
  }

  /** @returns {string[]} */
  get stores() {
    return this.ready.stores ?? [];
  }

  get pid() {
    return this.#child.pid;
  }

  /** @returns {number | null}  the exit status once the process has ended */
  get exitCode() {
    return this.#child.exitCode;
  }

  /**
   * Sends an action and resolves to the lines that echo its id, its own line first.
   *
   * Without `until` or `settle` that is its own line only. `until` (an action type, or a predicate
   * on lines) also waits for the first line of its effects that matches; `settle` waits until the
   * process is idle under the virtual clock. Many sends may be in flight at once.
   *
   * @param {string} store
   * @param {string | {type: string, [field: string]: unknown}} action  a type, or a whole action
   * @param {Record<string, unknown>} [payload]  fields beside `type`
   * @param {{until?: Until, settle?: boolean, timeout?: number}} [options]
   * @returns {Promise<Line[]>}
   */
  async send(store, action, payload = {}, { until, settle = false, timeout } = {}) {
    if (until !== undefined && settle) throw new TypeError('pass until or settle, not both');
    const fields = Object.keys(payload).length > 0;
    const message = typeof action === 'string' ? (fields ? { type: action, ...payload } : action) : { ...action, ...payload };
    const call = this.#request({ store, action: message }, until !== undefined ? matcher(until) : settle ? never : isOwnLine);
    if (!settle) return this.#wait(call, call, timeout);
    return this.#wait(this.#request({ cmd: 'settle' }, (line) => line.type === 'settled'), call, timeout);
  }

  /**
   * The local mirror of the store's state (a copy), current with every line read.
   * @param {string} store
   */
  state(store) {
    if (!this.#mirror.has(store)) throw new Error(`no store named ${JSON.stringify(store)}`);
    return structuredClone(this.#mirror.get(store));
  }

  /** The store's state as the process has it now. @param {string} store @param {{timeout?: number}} [options] */
  async snapshot(store, { timeout } = {}) {
    return (await this.#command('snapshot', { store }, timeout)).at(-1)?.state;
  }

  /** @param {{timeout?: number}} [options] @returns {Promise<Line>} */
  async describe({ timeout } = {}) {
    return /** @type {Line} */ ((await this.#command('describe', {}, timeout)).at(-1));
  }

  /**
   * Moves virtual time by `ms`; resolves to the lines echoing this command, `advanced` last.
   * @param {number} ms @param {{timeout?: number}} [options]
   */
  async advance(ms, { timeout } = {}) {
    return this.#command('advance', { ms }, timeout);
  }

  /**
   * Waits until no effect can progress without time or I/O; resolves to lines ending with `settled`.
   * @param {{timeout?: number}} [options]
   */
  async settle({ timeout } = {}) {
    return this.#command('settle', {}, timeout);
  }

  /**
   * Every output line from now on, the exit line last.
   * @returns {AsyncGenerator<Line>}
   */
  events() {
    /** @type {Line[]} */
    const queue = [];
    let ended = this.#failure !== null;
    /** @type {(() => void) | null} */
    let wake = null;
    const push = (/** @type {Line} */ line) => {
      queue.push(line);
      wake?.();
    };
    const end = () => {
      ended = true;
      wake?.();
    };
    // Subscribe now, not at the first next(): lines that arrive in between must not be lost.
    // (By hand, because events.on() only learnt to end on an event in Node 20, and Debian 12
    // ships Node 18.)
    if (!ended) this.on('line', push).once('end', end);
    const client = this;
    return (async function* () {
      try {
        for (;;) {
          while (queue.length > 0) yield /** @type {Line} */ (queue.shift());
          if (ended) return;
          await new Promise((resolve) => (wake = resolve));
          wake = null;
        }
      } finally {
        client.off('line', push).off('end', end);
      }
    })();
  }

  /**
   * Asks the process to quit, then terminates or kills it if it lingers; resolves to its exit status.
   * @param {{timeout?: number}} [options]
   */
  async close({ timeout = 2000 } = {}) {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      if (!this.#failure) this.#write({ cmd: 'quit' });
      this.#child.stdin.end();
      // Stdout is still being read, so the process cannot block on it while it quits.
      if (!(await this.#exits(timeout))) {
        this.#child.kill('SIGTERM');
        if (!(await this.#exits(1000))) this.#child.kill('SIGKILL');
      }
    }
    return this.#exited;
  }

  /** Whether the process ends within `ms`. @param {number} ms @returns {Promise<boolean>} */
  #exits(ms) {
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, ms, false)));
    return Promise.race([this.#exited.then(() => true), late]).finally(() => clearTimeout(timer));
  }

  /** @param {string} cmd @param {Record<string, unknown>} fields @param {number} [timeout] */
  async #command(cmd, fields, timeout) {
    const answer = ANSWERS[/** @type {keyof typeof ANSWERS} */ (cmd)];
    const call = this.#request({ cmd, ...fields }, (line) => line.type === answer);
    return this.#wait(call, call, timeout);
  }

  /** @param {Record<string, unknown>} message @param {(line: Line) => boolean} done @returns {Call} */
  #request(message, done) {
    if (this.#failure) throw this.#failure;
    const call = { id: this.#write(message), done, lines: [], error: null, finished: false, wake: null };
    this.#calls.set(call.id, call);
    return call;
  }

  /** @param {Record<string, unknown>} message @returns {number} the id it was sent with */
  #write(message) {
    const id = ++this.#lastId;
    this.#child.stdin.write(`${JSON.stringify({ ...message, id })}\n`);
    return id;
  }

  /**
   * The lines of `answer` once `waited` finished; rejects with the error either met.
   * @param {Call} waited @param {Call} answer @param {number} [timeout]
   */
  async #wait(waited, answer, timeout = this.timeout) {
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    try {
      if (!waited.finished) {
        await new Promise((resolve, reject) => {
          waited.wake = resolve;
          timer = setTimeout(() => reject(new TimeoutError(`no answer from composable-actor in ${timeout} ms`)), timeout);
        });
      }
    } finally {
      clearTimeout(timer);
      this.#calls.delete(waited.id);
      this.#calls.delete(answer.id);
    }
    const error = answer.error ?? waited.error;
    if (error) throw error;
    return answer.lines;
  }

  /** @param {string} text */
  #receive(text) {
    /** @type {Line} */
    let line;
    try {
      line = JSON.parse(text);
      if ((line.type === 'action' || line.type === 'state') && this.#mirror.has(line.store)) {
        this.#mirror.set(line.store, applyPatch(this.#mirror.get(line.store), line.patch));
      }
    } catch (error) {
      // A line that cannot be followed leaves the mirror untrustworthy: fail every call with it.
      this.#end(/** @type {Error} */ (error));
      return;
    }
    if (line.type === 'snapshot' && !this.#mirror.has(line.store)) {
      // start() snapshots every store to seed the mirror; a later snapshot must match the
      // mirror, not silently replace it.
      this.#mirror.set(line.store, line.state);
    }
    for (const id of idsOf(line)) {
      const call = this.#calls.get(/** @type {number} */ (id));
      if (!call) continue;
      call.lines.push(line);
      if (line.type === 'error') call.error = new ComposableActorError(line);
      if (call.error || call.done(line)) this.#finish(call);
    }
    this.emit('line', line);
    if (line.type === 'exit') {
      this.#exitLine = line;
      this.#end(null);
    }
  }

  /** Fails every pending call and every later one. @param {Error | null} failure */
  #end(failure) {
    if (this.#failure) return;
    this.#failure = failure ?? new ProcessExitedError(this.#exitLine);
    for (const call of this.#calls.values()) {
      call.error = this.#failure;
      this.#finish(call);
    }
    this.emit('end');
  }

  /** @param {Call} call */
  #finish(call) {
    call.finished = true;
    this.#calls.delete(call.id);
    call.wake?.();
  }
}
