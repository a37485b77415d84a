// advance and settle (`--clock virtual`) through the client, against the real binary.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ComposableActorError } from '../index.js';
import { testClients } from '../test-support/clients.js';
import { startPeer } from '../test-support/peers.js';

// A hang is a failure, not a stuck CI run.
const LIMIT = { timeout: 30_000 };
const VIRTUAL = ['--clock', 'virtual'];

/** @typedef {import('../index.js').Line} Line */

const clients = testClients();
const start = clients.start;

/** @type {import('../test-support/peers.js').Peer} */
let http;
before(async () => {
  http = await startPeer('fixture_server.py');
});
after(async () => {
  await http.stop();
});

/** @param {Line} line */
const kind = (line) => (line.type === 'action' ? line.action.type : line.type);

/**
 * Lines from an `events()` iterator up to and including the first that matches.
 * @param {AsyncGenerator<Line>} events @param {(line: Line) => boolean} predicate
 */
async function takeUntil(events, predicate) {
  const taken = [];
  for (;;) {
    const next = await events.next();
    if (next.done) throw new Error(`the events ended before a match: ${JSON.stringify(taken.map(kind))}`);
    taken.push(next.value);
    if (predicate(next.value)) return taken;
  }
}

test('advance resolves to its own line; the mirror already has the timer\'s effects', LIMIT, async () => {
  const actor = await start([...VIRTUAL, '--todos-url', http.url, '--seed', '1']);
  const events = actor.events();
  // The backlog starts with the snapshots start() took to seed the mirror.
  assert.deepEqual((await takeUntil(events, (line) => line.store === actor.stores.at(-1))).map(kind), actor.stores.map(() => 'snapshot'));
  const [appeared] = await actor.send('randomTodo', 'viewDidAppear');
  assert.deepEqual(await actor.advance(2999), [{ type: 'advanced', ms: 2999, now: 2999, id: appeared.id + 1 }]);
  assert.equal(actor.state('randomTodo').isFetching, false);

  // The tick at 3 s echoes the id of the action that started the timer, not the advance's, so
  // advance resolves to its own line only; the tick was written (and mirrored) before it.
  assert.deepEqual(await actor.advance(1), [{ type: 'advanced', ms: 1, now: 3000, id: appeared.id + 2 }]);
  const seen = await takeUntil(events, (line) => line.now === 3000);
  // The fetch the tick started is network I/O, which advance does not wait for: its result
  // comes later (in practice always after the advanced line, but nothing promises that).
  const isResult = (/** @type {Line} */ line) => kind(line).startsWith('fetchResult.');
  assert.deepEqual(seen.filter((line) => !isResult(line)).map(kind), ['viewDidAppear', 'advanced', 'timerTicked', 'advanced']);
  const tick = seen[2];
  assert.deepEqual([tick.id, tick.source, tick.seq], [appeared.id, 'effect', appeared.seq + 1]);
  assert.deepEqual(tick.patch, [{ op: 'replace', path: '/isFetching', value: true }]);

  const fetched = seen.find(isResult) ?? (await takeUntil(events, isResult)).at(-1);
  assert.equal(fetched?.action.type, 'fetchResult.success');
  const todo = fetched?.action.value;
  const state = actor.state('randomTodo');
  assert.deepEqual([state.todo, state.idText, state.titleText, state.isFetching], [todo, `#${todo.id}`, todo.title, false]);
  assert.deepEqual(state, await actor.snapshot('randomTodo'));

  // Stopped, the timer never fires again however far time moves.
  await actor.send('randomTodo', 'stopRandomText');
  assert.equal((await actor.advance(30_000)).at(-1)?.now, 33_000);
  const rest = await takeUntil(events, (line) => line.now === 33_000);
  assert.deepEqual(rest.map(kind), ['snapshot', 'stopRandomText', 'advanced']);
  assert.deepEqual(actor.state('randomTodo'), await actor.snapshot('randomTodo'));
});

test('send with settle waits for the thread pool', LIMIT, async () => {
  const actor = await start(VIRTUAL);
  await actor.send('primes', 'counter.countChanged', { value: 1000 });
  const lines = await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { settle: true });
  assert.deepEqual(lines.map((line) => [line.source, kind(line)]), [
    ['host', 'counter.nthPrimeButtonTapped'],
    ['effect', 'counter.nthPrimeResponse'],
  ]);
  assert.equal(lines[1].action.value, 7919);
  assert.equal(lines[1].id, lines[0].id);
  assert.deepEqual(actor.state('primes').alertNthPrime, { n: 1000, prime: 7919 });
  assert.deepEqual(actor.state('primes'), await actor.snapshot('primes'));

  // Reducers read the virtual time; file I/O runs on the thread pool too.
  await actor.advance(1500);
  await actor.send('primes', 'counter.countChanged', { value: 7919 });
  await actor.send('primes', 'primeModal.saveFavoritePrimeTapped');
  assert.deepEqual(actor.state('primes').activityFeed, [{ timestamp: 1500, type: 'addedFavoritePrime', prime: 7919 }]);
  const saved = await actor.send('primes', 'favoritePrimes.saveButtonTapped', {}, { settle: true });
  assert.deepEqual(saved.map(kind), ['favoritePrimes.saveButtonTapped', 'favoritePrimes.savedFavoritePrimes']);
  assert.deepEqual(JSON.parse(readFileSync(join(clients.dataDir, 'favorite-primes.json'), 'utf8')), [7919]);
  assert.deepEqual(await actor.settle(), [{ type: 'settled', id: saved[0].id + 2 }]);
  assert.deepEqual(actor.state('primes'), await actor.snapshot('primes'));
});

test('the live clock refuses both verbs with a typed error', LIMIT, async () => {
  const actor = await start();
  let line = actor.stores.length; // ids are input line numbers, after one snapshot per store
  for (const [name, verb, lines] of /** @type {const} */ ([
    ['advance', () => actor.advance(10), 1],
    ['settle', () => actor.settle(), 1],
    // The action itself is reduced; the settle written after it is refused.
    ['send settle', () => actor.send('primes', 'counter.incrTapped', {}, { settle: true }), 2],
  ])) {
    line += lines;
    await assert.rejects(verb(), (error) => {
      assert.ok(error instanceof ComposableActorError, name);
      assert.deepEqual([error.code, error.line, error.id], ['clock_not_virtual', line, line], name);
      assert.ok(error.message.length > 0);
      return true;
    });
  }
  assert.equal(actor.state('primes').count, 1);
  assert.deepEqual(actor.state('primes'), await actor.snapshot('primes'));
});

test('overlapping sends and settles each get their own lines', LIMIT, async () => {
  const actor = await start(VIRTUAL);
  await actor.send('primes', 'counter.countChanged', { value: 1000 });
  const [prime, settled, advanced] = await Promise.all([
    actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { settle: true }),
    actor.settle(),
    actor.advance(250),
  ]);
  assert.deepEqual(prime.map(kind), ['counter.nthPrimeButtonTapped', 'counter.nthPrimeResponse']);
  assert.deepEqual(settled.map(kind), ['settled']);
  assert.deepEqual(advanced.map((line) => [line.type, line.now]), [['advanced', 250]]);
  assert.deepEqual(actor.state('primes'), await actor.snapshot('primes'));
});
