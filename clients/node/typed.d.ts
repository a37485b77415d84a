// The types of typed.js, written by hand: they take each store's types from the `Stores` of
// the module `composable-actor types --language typescript` writes.
//
//     import { Client } from 'composable-actor';
//     import { typed } from 'composable-actor/typed';
//     import type { Stores } from './stores';           // the generated module
//     const primes = typed<Stores>(await Client.start()).store('primes');
//     await primes.send({ type: 'counter.countChanged', value: 7 });
//     primes.state().count;                             // number
//
// The line types follow schemas/output.schema.json.

/** What the generated `Stores` holds for each store. */
export interface StoreTypes {
  action: { type: string };
  hostAction: { type: string };
  state: unknown;
}

/** RFC 6902 operations: `op`, `path`, and `value` or `from`. */
export type Patch = { op: string; path: string; value?: unknown; from?: string }[];

/** One reduced action and the patch it produced. */
export interface ActionLine<N extends string, A> {
  type: 'action';
  store: N;
  instance?: string;
  seq: number;
  id?: string | number;
  source: 'host' | 'effect';
  effect?: number;
  action: A;
  patch: Patch;
}

/** With --emit ticks: the actions one store reduced in one loop iteration, one patch. */
export interface StateLine<N extends string> {
  type: 'state';
  store: N;
  instance?: string;
  seq: number;
  actions: number;
  ids?: (string | number)[];
  patch: Patch;
}

/** The whole state after the action numbered `seq`. */
export interface SnapshotLine<N extends string, S> {
  type: 'snapshot';
  store: N;
  instance?: string;
  seq: number;
  id?: string | number;
  state: S;
}

/** With run --trace effects: a moment in the life of one effect. */
export interface EffectLine<N extends string> {
  type: 'effect';
  store: N;
  instance?: string;
  effect: number;
  event: 'started' | 'sleeping' | 'finished' | 'cancelled' | 'failed';
  cause: number;
  operator: 'run' | 'merge' | 'concatenate' | 'throttle' | 'cancellable';
  cancelID?: string;
  by?: { reason: string; seq?: number };
  error?: string;
  until?: number;
  t: number;
}

/** An input line refused (it changed nothing), or an effect's failure; `code` says which. */
export interface ErrorLine {
  type: 'error';
  code: string;
  message: string;
  line?: number;
  store?: string;
  instance?: string;
  action?: Record<string, unknown>;
  owner?: string;
  id?: string | number;
}

export interface SettledLine {
  type: 'settled';
  id?: string | number;
}

export interface AdvancedLine {
  type: 'advanced';
  ms: number;
  now: number;
  id?: string | number;
}

/** The last line. */
export interface ExitLine {
  type: 'exit';
  reason: 'eof' | 'quit' | 'signal';
  signal?: string;
  cancelledEffects: number;
}

/** A line a store's view reads: narrow it by its `type`. */
export type StoreLine<N extends string, T extends StoreTypes> =
  | ActionLine<N, T['action']>
  | StateLine<N>
  | SnapshotLine<N, T['state']>
  | EffectLine<N>
  | ErrorLine
  | SettledLine
  | AdvancedLine
  | ExitLine;

/** The options of the client's `send`. */
export interface TypedSendOptions<N extends string, T extends StoreTypes> {
  instance?: string;
  until?: string | ((line: StoreLine<N, T>) => boolean);
  settle?: boolean;
  anyId?: boolean;
  timeout?: number;
}

/** One store of a client, typed. */
export interface TypedStore<N extends string, T extends StoreTypes> {
  readonly name: N;
  /** The client's `send` of a whole action: one a host sends this store. */
  send(action: T['hostAction'], options?: TypedSendOptions<N, T>): Promise<StoreLine<N, T>[]>;
  /** The client's `state`: the local mirror. */
  state(options?: { instance?: string }): T['state'];
  snapshot(options?: { instance?: string; timeout?: number }): Promise<T['state']>;
  waitFor(
    until: string | ((line: StoreLine<N, T>) => boolean),
    options?: { instance?: string; timeout?: number },
  ): Promise<StoreLine<N, T>>;
  events(options?: { instance?: string }): AsyncGenerator<StoreLine<N, T>>;
}

/** A client's stores, typed by the generated `Stores`. */
export interface TypedClient<Stores> {
  /** The client, untyped. */
  readonly client: UntypedClient;
  /** The view of one store; a name the binary has no store of throws `UnknownStoreError`. */
  store<N extends keyof Stores & string>(
    name: N,
  ): TypedStore<N, Stores[N] extends StoreTypes ? Stores[N] : never>;
}

/** The part of the Node client's `Client` a typed view calls. */
export interface UntypedClient {
  readonly stores: string[];
  send(store: string, action: { type: string }, payload?: undefined, options?: object): Promise<unknown[]>;
  state(store: string, options?: { instance?: string }): unknown;
  snapshot(store: string, options?: object): Promise<unknown>;
  waitFor(until: never, options?: object): Promise<unknown>;
  events(options?: object): AsyncGenerator<unknown>;
}

/** The typed view of `client`'s stores, whose types `Stores` gives: the generated one. */
export function typed<Stores>(client: UntypedClient): TypedClient<Stores>;
