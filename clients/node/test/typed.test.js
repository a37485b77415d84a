// The typed view of typed.js against the binary: it calls the client it was made from (whose
// untyped use is unchanged), with the store's name filled in. Its types are checked in
// Tests/e2e/test_types.py, through the module `composable-actor types` generates.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnknownStoreError } from '../index.js';
import { typed } from '../typed.js';
import { testClients } from '../test-support/clients.js';

const LIMIT = { timeout: 30_000 };
const clients = testClients();

test('a store view sends whole actions and reads the state of its store', LIMIT, async () => {
  const actor = await clients.start();
  const view = typed(actor);
  assert.equal(view.client, actor);
  const primes = view.store('primes');
  const lines = await primes.send({ type: 'counter.countChanged', value: 7 });
  assert.deepEqual(lines.map((line) => line.action), [{ type: 'counter.countChanged', value: 7 }]);
  const answer = await primes.send({ type: 'counter.nthPrimeButtonTapped' }, { until: 'counter.nthPrimeResponse' });
  assert.deepEqual(answer.at(-1)?.action, { type: 'counter.nthPrimeResponse', value: 17 });
  assert.deepEqual(primes.state().alertNthPrime, { n: 7, prime: 17 });
  assert.deepEqual(await primes.snapshot(), primes.state());
  // The client stays usable untyped beside its view.
  await actor.send('primes', 'counter.incrTapped');
  assert.equal(primes.state().count, 8);
  assert.deepEqual((await primes.waitFor('counter.incrTapped')).action, { type: 'counter.incrTapped' });
  const first = (await primes.events().next()).value;
  assert.equal(first.store, 'primes');
});

test('a store the binary has not is refused with the client error', LIMIT, async () => {
  const actor = await clients.start();
  assert.throws(() => typed(actor).store('prime'), UnknownStoreError);
});
