// Instances through the client against the real binary: `{ instance }` on send, waitFor, state,
// snapshot and events, a mirror per instance, `instances` paging and `stop`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ComposableActorError, TimeoutError, UnknownInstanceError } from '../index.js';
import { testClients } from '../test-support/clients.js';

// A hang is a failure, not a stuck CI run.
const LIMIT = { timeout: 30_000 };

const { start } = testClients();

/** @param {import('../index.js').Client} actor @param {string} [instance] */
const count = (actor, instance) => actor.state('primes', instance === undefined ? {} : { instance }).count;

test('each instance has its own mirror and the default keeps its own', LIMIT, async () => {
  const actor = await start();
  for (const instance of ['alice', 'alice', 'bob', undefined]) await actor.send('primes', 'counter.incrTapped', {}, { instance });
  const [line] = await actor.send('primes', 'counter.countChanged', { value: 5 }, { instance: 'bob' });
  assert.equal(line.instance, 'bob');
  // The default's own line has no "instance" member, as before instances.
  assert.equal('instance' in (await actor.send('primes', 'primeModal.saveFavoritePrimeTapped'))[0], false);
  // Before the mirror was kept per instance, alice's and bob's patches landed on the default's.
  assert.deepEqual([count(actor), count(actor, 'alice'), count(actor, 'bob')], [1, 2, 5]);
  for (const instance of [undefined, 'alice', 'bob']) {
    assert.deepEqual(actor.state('primes', { instance }), await actor.snapshot('primes', { instance }));
  }
});

test('an instance activated by a snapshot starts from the initial state', LIMIT, async () => {
  const actor = await start();
  await actor.send('primes', 'counter.countChanged', { value: 9 });
  const fresh = await actor.snapshot('primes', { instance: 'carol' });
  assert.equal(fresh.count, 0);
  assert.deepEqual(actor.state('primes', { instance: 'carol' }), fresh);
  await actor.send('primes', 'counter.incrTapped', {}, { instance: 'carol' });
  assert.deepEqual(actor.state('primes', { instance: 'carol' }), await actor.snapshot('primes', { instance: 'carol' }));
  assert.equal(count(actor), 9);
  // The snapshot that seeded carol's mirror is not the mirror: it still shows the state it was.
  assert.equal(fresh.count, 0);
});

test('until and waitFor match the lines of their own instance', LIMIT, async () => {
  const actor = await start();
  await actor.send('primes', 'counter.countChanged', { value: 6 }, { instance: 'alice' });
  await actor.send('primes', 'counter.countChanged', { value: 7 }, { instance: 'bob' });
  const lines = await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { instance: 'bob', until: 'counter.nthPrimeResponse' });
  assert.deepEqual(lines.map((l) => [l.instance, l.action.type]), [['bob', 'counter.nthPrimeButtonTapped'], ['bob', 'counter.nthPrimeResponse']]);
  assert.deepEqual(actor.state('primes', { instance: 'bob' }).alertNthPrime, { n: 7, prime: 17 });
  assert.equal(actor.state('primes', { instance: 'alice' }).alertNthPrime, null);
  await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { instance: 'alice' });
  const line = await actor.waitFor('counter.nthPrimeResponse', { store: 'primes', instance: 'alice' });
  assert.deepEqual([line.instance, line.action.value], ['alice', 13]);
  // The default instance sent no request: none of the named instances' responses is its own.
  await assert.rejects(actor.waitFor('counter.nthPrimeResponse', { store: 'primes', timeout: 300 }), TimeoutError);
});

test('events with a store yield the lines of that instance only', LIMIT, async () => {
  const actor = await start();
  for (const instance of ['alice', undefined, 'bob', 'alice']) await actor.send('primes', 'counter.incrTapped', {}, { instance });
  await actor.send('primes', 'counter.decrTapped', {}, { instance: 'bob' });
  await actor.send('primes', 'counter.decrTapped');
  const closed = actor.close();
  /** @param {AsyncIterable<import('../index.js').Line>} lines */
  const collect = async (lines) => {
    const seen = [];
    for await (const line of lines) seen.push([line.type, line.instance, line.action?.type]);
    return seen;
  };
  assert.deepEqual(await collect(actor.events({ store: 'primes', instance: 'alice' })), [
    ['action', 'alice', 'counter.incrTapped'], ['action', 'alice', 'counter.incrTapped']]);
  // The default's: its start-up snapshot and its own lines, none of alice's or bob's; the exit
  // line names no store.
  assert.deepEqual(await collect(actor.events({ store: 'primes' })), [
    ['snapshot', undefined, undefined], ['action', undefined, 'counter.incrTapped'], ['action', undefined, 'counter.decrTapped']]);
  assert.throws(() => actor.events({ instance: 'alice' }), /needs its store/);
  await closed;
});

test('instances pages through every key in byte order', LIMIT, async () => {
  const actor = await start();
  const keys = [...Array.from({ length: 25 }, (_, n) => `user-${String(n).padStart(2, '0')}`), 'Zoë', 'émile'];
  for (const instance of [...keys].reverse()) await actor.snapshot('primes', { instance });
  // UTF-16 order is UTF-8's byte order for these keys (none is beyond the BMP).
  assert.deepEqual(await actor.instances('primes', { page: 10 }), [...keys].sort());
  const pages = [];
  for await (const line of actor.events()) {
    if (line.type === 'instances') pages.push([line.active.length, line.count, 'next' in line]);
    if (pages.length === 3) break;
  }
  assert.deepEqual(pages, [[10, 27, true], [10, 27, true], [7, 27, false]]);
  assert.deepEqual(await actor.instances('votes'), []);
});

test('stop cancels the instance\'s effects, frees it and drops its mirror', LIMIT, async () => {
  const actor = await start();
  await actor.send('primes', 'counter.incrTapped', {}, { instance: 'alice' });
  await actor.send('primes', 'counter.countChanged', { value: 1_000_000_000 }, { instance: 'bob' });
  await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { instance: 'bob' }); // runs for a long while
  assert.equal(await actor.stop('primes', 'bob'), 1);
  assert.equal(await actor.stop('primes', 'alice'), 0);
  assert.deepEqual(await actor.instances('primes'), []);
  assert.throws(() => actor.state('primes', { instance: 'bob' }), UnknownInstanceError);
  // A later line naming the key starts it afresh, from the initial state.
  await actor.send('primes', 'counter.incrTapped', {}, { instance: 'alice' });
  assert.equal(count(actor, 'alice'), 1);
  assert.deepEqual(actor.state('primes', { instance: 'alice' }), await actor.snapshot('primes', { instance: 'alice' }));
});

test('refused lines name their instance, and nothing else changes', LIMIT, async () => {
  const actor = await start(['--max-instances', '1']);
  await assert.rejects(actor.stop('primes', 'nobody'), (error) => {
    assert.ok(error instanceof ComposableActorError);
    assert.deepEqual([error.code, error.store, error.instance], ['unknown_instance', 'primes', 'nobody']);
    return true;
  });
  await actor.send('primes', 'counter.incrTapped', {}, { instance: 'alice' });
  await assert.rejects(actor.send('primes', 'counter.incrTapped', {}, { instance: 'bob' }), { code: 'instance_limit', instance: 'bob' });
  await assert.rejects(actor.send('primes', 'counter.incrTapped', {}, { instance: '' }), { code: 'invalid_message' });
  assert.deepEqual(await actor.instances('primes'), ['alice']);
  assert.deepEqual([count(actor), count(actor, 'alice')], [0, 1]);
});

test('arguments are checked before anything is written', LIMIT, async () => {
  const actor = await start();
  await assert.rejects(actor.send('primes', 'counter.incrTapped', {}, { instance: 7 }), /instance must be a key/);
  await assert.rejects(actor.waitFor('counter.incrTapped', { instance: 'alice' }), /needs its store/);
  await assert.rejects(actor.instances('primes', { page: 0 }), /page must be a positive whole number/);
  assert.throws(() => actor.state('primes', { instance: 'nobody' }), /no instance "nobody" of store "primes" is active/);
  assert.deepEqual(await actor.instances('primes'), []);
});

test('under --emit ticks the state lines follow each instance', LIMIT, async () => {
  const actor = await start(['--emit', 'ticks']);
  for (const instance of ['alice', undefined, 'alice', 'bob']) await actor.send('primes', 'counter.incrTapped', {}, { instance });
  assert.deepEqual([count(actor), count(actor, 'alice'), count(actor, 'bob')], [1, 2, 1]);
  for (const instance of [undefined, 'alice', 'bob']) {
    assert.deepEqual(actor.state('primes', { instance }), await actor.snapshot('primes', { instance }));
  }
});

test('concurrent sends keep many instances apart', LIMIT, async () => {
  const actor = await start();
  const keys = Array.from({ length: 40 }, (_, n) => `user-${n}`);
  await Promise.all(keys.flatMap((instance, n) => Array.from({ length: n }, () => actor.send('primes', 'counter.incrTapped', {}, { instance }))));
  await actor.snapshot('primes', { instance: 'user-0' });
  assert.deepEqual(keys.map((instance) => count(actor, instance)), keys.map((_, n) => n));
  assert.equal(count(actor), 0);
  assert.deepEqual(await actor.instances('primes', { page: 7 }), [...keys].sort());
});
