// A TypeScript program using the packed client, compiled by check.sh with `tsc --strict` against
// the package's own declarations (its package.json `exports` → index.d.ts). The @ts-expect-error
// lines must be errors: tsc fails if one of them type-checks.
import {
  Client,
  ComposableActorError,
  TimeoutError,
  UnknownActionError,
  UnknownInstanceError,
  UnknownStoreError,
  applyPatch,
  findBinary,
  type Line,
  type Options,
} from 'composable-actor';
import { jsonEqual } from 'composable-actor/patch';

const options: Options = { args: ['--clock', 'virtual'], timeout: 5000, backlog: 100 };
const binary: string = findBinary();
const actor: Client = await Client.start({ ...options, binary });
try {
  const stores: string[] = actor.stores;
  const lines: Line[] = await actor.send('primes', 'counter.countChanged', { value: 7 });
  const seq: number = lines[0].seq;
  await actor.send('primes', { type: 'counter.incrTapped' }, {}, { settle: true });
  const isResponse = (line: Line): boolean => line.action?.type === 'counter.nthPrimeResponse';
  await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: isResponse, timeout: 2000 });
  const response: Line = await actor.waitFor('counter.nthPrimeResponse', { store: 'primes', timeout: 1000 });
  const advanced: Line[] = await actor.advance(10);
  for await (const line of actor.events()) {
    const kind: string = line.type;
    if (kind === 'settled' || line.store === 'primes') break;
  }
  // Instances: a key beside the store on send, waitFor, state and snapshot.
  await actor.send('primes', 'counter.incrTapped', {}, { instance: 'user-42' });
  await actor.waitFor('counter.incrTapped', { store: 'primes', instance: 'user-42' });
  const keys: string[] = await actor.instances('primes', { page: 100 });
  const count: number = actor.state('primes', { instance: 'user-42' }).count;
  const snapshot: unknown = await actor.snapshot('primes', { instance: 'user-42', timeout: 1000 });
  const cancelled: number = await actor.stop('primes', 'user-42');
  const forgotten: number = await actor.forget('primes', 'user-42', { timeout: 1000 });
  console.log(keys, count, snapshot, cancelled, forgotten);
  const patched: unknown = applyPatch({ a: 1 }, [{ op: 'replace', path: '/a', value: 2 }]);
  console.log(stores, seq, response.action.value, advanced.length, jsonEqual(patched, { a: 2 }), actor.state('primes').count);

  // @ts-expect-error  a store is a name, not a number
  await actor.send(7, 'counter.incrTapped');
  // @ts-expect-error  the payload is an object of fields
  await actor.send('primes', 'counter.countChanged', 7);
  // @ts-expect-error  until is an action type or a predicate
  await actor.waitFor(42);
  // @ts-expect-error  no such option
  await actor.send('primes', 'counter.incrTapped', {}, { untill: 'x' });
  // @ts-expect-error  an instance is a key, not a number
  await actor.send('primes', 'counter.incrTapped', {}, { instance: 42 });
  // @ts-expect-error  stop names the instance
  await actor.stop('primes');
  // @ts-expect-error  forget names the instance
  await actor.forget('primes');
  // @ts-expect-error  args is an array
  await Client.start({ args: '--clock virtual' });
} catch (error) {
  if (error instanceof ComposableActorError) console.log(error.code, error.line, error.store, error.instance);
  else if (error instanceof UnknownInstanceError) console.log(error.store, error.instance);
  else if (error instanceof TimeoutError) console.log(error.lastLines.length);
  else if (error instanceof UnknownActionError || error instanceof UnknownStoreError) console.log(error.message);
  throw error;
} finally {
  const status: number | null = await actor.close();
  console.log(status);
}
