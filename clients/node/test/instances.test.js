// Instances through the client against the real binary: `{ instance }` on send, waitFor, state,
// snapshot and events, a mirror per instance, `instances` paging, `stop`, and under --state-dir
// `forget` and the stored instances `instances` lists.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ComposableActorError, TimeoutError, UnknownInstanceError } from '../index.js';
import { testClients } from '../test-support/clients.js';

// A hang is a failure, not a stuck CI run.
const LIMIT = { timeout: 30_000 };

const { start } = testClients();
/** A folder for --state-dir that outlives the processes started on it. */
const stateFolder = () => join(mkdtempSync(join(tmpdir(), 'composable-actor-node-')), 'state');

/** @param {import('../index.js').Line[]} lines  the `instances` lines among them, as [active, passivated] */
const pagesOf = (lines) => lines.filter((line) => line.type === 'instances').map((line) => [line.active, line.passivated]);

/** @param {import('../index.js').Client} actor @returns {Promise<import('../index.js').Line[]>} every line until now */
async function linesOf(actor) {
  const closed = actor.close();
  const lines = [];
  for await (const line of actor.events()) lines.push(line);
  await closed;
  return lines;
}

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

test('instances lists the stored keys with those in memory, in one byte order', LIMIT, async () => {
  const stateDir = stateFolder();
  const actor = await start(['--state-dir', stateDir]);
  // 'Zoë' < 'user-…' < 'émile' < '\u{ff5e}' (U+FF5E) < '\u{1f600}' (past U+FFFF) in UTF-8's byte
  // order; in UTF-16's, the emoji's surrogate D83D would come before FF5E.
  const stored = ['user-1', 'user-3', 'user-5', 'Zoë', 'émile', '\u{ff5e}', '\u{1f600}'];
  for (const instance of stored) await actor.send('primes', 'counter.incrTapped', {}, { instance });
  await actor.close();
  // A new process on the folder: every key is stored, none is in memory.
  const again = await start(['--state-dir', stateDir]);
  assert.deepEqual(await again.instances('primes'), ['Zoë', 'user-1', 'user-3', 'user-5', 'émile', '\u{ff5e}', '\u{1f600}']);
  // Two new keys, and a stored one read back: the pages mix both kinds, in one order.
  for (const instance of ['user-2', 'user-4', 'user-3', '\u{1f600}']) await again.snapshot('primes', { instance });
  assert.deepEqual(await again.instances('primes', { page: 3 }), ['Zoë', 'user-1', 'user-2', 'user-3', 'user-4', 'user-5', 'émile', '\u{ff5e}', '\u{1f600}']);
  assert.deepEqual(pagesOf(await linesOf(again)), [
    [[], ['Zoë', 'user-1', 'user-3', 'user-5', 'émile', '\u{ff5e}', '\u{1f600}']],
    [['user-2'], ['Zoë', 'user-1']], [['user-3', 'user-4'], ['user-5']], [['\u{1f600}'], ['émile', '\u{ff5e}']]]);
});

test('forget deletes an instance stored by an earlier process, or in memory, and its mirror', LIMIT, async () => {
  const stateDir = stateFolder();
  const actor = await start(['--state-dir', stateDir]);
  for (const instance of ['alice', 'bob']) await actor.send('primes', 'counter.incrTapped', {}, { instance });
  await actor.close();
  const again = await start(['--state-dir', stateDir]);
  // Stored, not in memory: forget deletes it all the same, and its key starts afresh.
  assert.equal(await again.forget('primes', 'bob'), 0);
  assert.deepEqual(await again.instances('primes'), ['alice']);
  assert.equal((await again.snapshot('primes', { instance: 'bob' })).count, 0);
  assert.equal((await again.snapshot('primes', { instance: 'alice' })).count, 1); // still stored
  // In memory, with an effect running: cancelled, and its mirror goes.
  await again.send('primes', 'counter.countChanged', { value: 1_000_000_000 }, { instance: 'carol' });
  await again.send('primes', 'counter.nthPrimeButtonTapped', {}, { instance: 'carol' }); // runs for a long while
  assert.equal(await again.forget('primes', 'carol'), 1);
  assert.throws(() => again.state('primes', { instance: 'carol' }), UnknownInstanceError);
  await again.send('primes', 'counter.incrTapped', {}, { instance: 'carol' });
  assert.equal(count(again, 'carol'), 1);
  assert.deepEqual(again.state('primes', { instance: 'carol' }), await again.snapshot('primes', { instance: 'carol' }));
  // The next process finds nothing of bob (a snapshot changed nothing to store) or carol.
  await again.forget('primes', 'carol');
  await again.close();
  const third = await start(['--state-dir', stateDir]);
  assert.deepEqual(await third.instances('primes'), ['alice']);
  await assert.rejects(third.forget('primes', 'carol'), (error) => {
    assert.ok(error instanceof ComposableActorError);
    assert.deepEqual([error.code, error.store, error.instance], ['unknown_instance', 'primes', 'carol']);
    return true;
  });
});

test('forget without --state-dir is an invalid command, and changes nothing', LIMIT, async () => {
  const actor = await start();
  await actor.send('primes', 'counter.incrTapped', {}, { instance: 'alice' });
  await assert.rejects(actor.forget('primes', 'alice'), (error) => {
    assert.ok(error instanceof ComposableActorError);
    assert.deepEqual([error.code, error.instance], ['invalid_command', 'alice']);
    assert.match(error.message, /stop/);
    return true;
  });
  assert.deepEqual(await actor.instances('primes'), ['alice']);
  assert.equal(count(actor, 'alice'), 1);
});

test('arguments are checked before anything is written', LIMIT, async () => {
  const actor = await start();
  await assert.rejects(actor.send('primes', 'counter.incrTapped', {}, { instance: 7 }), /instance must be a key/);
  await assert.rejects(actor.waitFor('counter.incrTapped', { instance: 'alice' }), /needs its store/);
  await assert.rejects(actor.instances('primes', { page: 0 }), /page must be a positive whole number/);
  // stop and forget end a named instance: the default one is not theirs to end.
  await assert.rejects(actor.stop('primes', /** @type {any} */ (undefined)), /stop: instance must be a key/);
  await assert.rejects(actor.forget('primes', /** @type {any} */ (undefined)), /forget: instance must be a key/);
  await assert.rejects(actor.forget('primes', 'alice', /** @type {any} */ ({ instance: 'x' })), /forget: unknown option "instance"/);
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
