// The part of Node's API the client, its test support and Examples/clients/tour.mjs use, with the
// signatures of @types/node (which a TypeScript project using the client has; here npm is not
// reachable and Debian ships no @types/node). Only for check.sh's tsc runs: not shipped.

declare namespace NodeJS {
  interface Timeout {
    ref(): this;
    unref(): this;
    hasRef(): boolean;
  }
  interface Immediate {
    ref(): this;
    unref(): this;
    hasRef(): boolean;
  }
  interface ProcessEnv {
    [name: string]: string | undefined;
  }
  interface ReadableStream {
    setEncoding(encoding: 'utf8'): this;
    on(event: 'data', listener: (chunk: string) => void): this;
    off(event: 'data', listener: (chunk: string) => void): this;
    once(event: 'close' | 'end', listener: () => void): this;
    pipe<T extends WritableStream>(destination: T): T;
    resume(): this;
    ref?(): this;
    unref?(): this;
  }
  interface WritableStream {
    write(chunk: string): boolean;
    end(): this;
    on(event: 'error', listener: (error: Error) => void): this;
    ref?(): this;
    unref?(): this;
  }
  interface Process {
    env: ProcessEnv;
    execPath: string;
    stderr: WritableStream;
    once(event: 'exit', listener: (code: number) => void): this;
    emit(event: 'exit', code: number): boolean;
    kill(pid: number, signal?: string | number): true;
    exit(code?: number): never;
  }
}

declare var process: NodeJS.Process;
declare var console: { log(...data: unknown[]): void; error(...data: unknown[]): void };
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): NodeJS.Timeout;
declare function clearTimeout(timeout: NodeJS.Timeout | undefined): void;
declare function setImmediate<A extends unknown[]>(callback: (...args: A) => void, ...args: A): NodeJS.Immediate;
declare function structuredClone<T>(value: T): T;
declare class Buffer extends Uint8Array {
  static alloc(size: number): Buffer;
  static allocUnsafeSlow(size: number): Buffer;
  write(string: string, offset?: number): number;
  toString(encoding?: 'utf8', start?: number, end?: number): string;
  copy(target: Uint8Array, targetStart?: number, sourceStart?: number, sourceEnd?: number): number;
}
declare var performance: { now(): number };
declare class URL {
  constructor(input: string, base?: string | URL);
  href: string;
}
interface ImportMeta {
  url: string;
}

declare module 'node:events' {
  class EventEmitter {
    on(event: string | symbol, listener: (...args: any[]) => void): this;
    once(event: string | symbol, listener: (...args: any[]) => void): this;
    off(event: string | symbol, listener: (...args: any[]) => void): this;
    emit(event: string | symbol, ...args: any[]): boolean;
  }
}

declare module 'node:async_hooks' {
  class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    enterWith(store: T): void;
    run<R>(store: T, callback: () => R): R;
  }
}

declare module 'node:child_process' {
  import { EventEmitter } from 'node:events';
  interface SpawnOptions {
    stdio?: ('pipe' | 'inherit' | 'ignore')[];
    env?: NodeJS.ProcessEnv;
  }
  class ChildProcess extends EventEmitter {
    readonly pid?: number | undefined;
    readonly exitCode: number | null;
    readonly signalCode: string | null;
    kill(signal?: string | number): boolean;
    ref(): void;
    unref(): void;
  }
  interface ChildProcessWithoutNullStreams extends ChildProcess {
    stdin: NodeJS.WritableStream;
    stdout: NodeJS.ReadableStream;
    stderr: NodeJS.ReadableStream;
  }
  function spawn(command: string, args: readonly string[], options: SpawnOptions): ChildProcessWithoutNullStreams;
}

declare module 'node:fs' {
  interface Stats {
    isFile(): boolean;
  }
  const constants: { X_OK: number };
  function statSync(path: string): Stats;
  function accessSync(path: string, mode?: number): void;
  function mkdtempSync(prefix: string): string;
  function rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
}

declare module 'node:os' {
  function tmpdir(): string;
}

declare module 'node:path' {
  const delimiter: ';' | ':';
  function join(...paths: string[]): string;
}

declare module 'node:readline' {
  import { EventEmitter } from 'node:events';
  interface Interface extends EventEmitter {
    close(): void;
  }
  function createInterface(options: { input: NodeJS.ReadableStream; crlfDelay?: number }): Interface;
}

declare module 'node:url' {
  function fileURLToPath(url: string | URL): string;
}

declare module 'node:util' {
  function isDeepStrictEqual(a: unknown, b: unknown): boolean;
  function parseArgs<T extends Record<string, { type: 'string' | 'boolean' }>>(config: {
    options: T;
  }): { values: { [K in keyof T]?: T[K]['type'] extends 'string' ? string : boolean } };
}
