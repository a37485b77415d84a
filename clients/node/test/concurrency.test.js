// Who sees which line when many callers share one client, what a reader that falls
// behind gets, how a crash is reported, and mirrors of instances read back from storage. Each test
// failed before its fix, against the real binary.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Client, MissedLinesError, ProcessExitedError } from '../index.js';
import { testClients } from '../test-support/clients.js';

// A hang is a failure, not a stuck CI run.
const LIMIT = { timeout: 30_000 };

const clients = testClients();
const start = clients.start;

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('an events iterator starts where the backlog is when first iterated', LIMIT, async () => {
  const actor = await start([], { backlog: 50 });
  const lines = actor.events();
  for (let i = 0; i < 300; i++) await actor.send('primes', 'counter.incrTapped');
  const first = await lines.next();
  // Node's iterator never queued lines (this one passed before too): taking its place at the first
  // next() means an iterator made early is not behind, so it gets no MissedLinesError.
  assert.equal(first.value?.type, 'action');
  assert.equal(first.value?.patch[0].value, 251);
});

test('a reader that falls behind gets MissedLinesError, then goes on with the oldest line kept', LIMIT, async () => {
  const actor = await start([], { backlog: 20 });
  const lines = actor.events({ store: 'primes' });
  await lines.next();
  for (let i = 0; i < 100; i++) await actor.send('primes', 'counter.incrTapped');
  await assert.rejects(lines.next(), (error) => error instanceof MissedLinesError && error.missed > 0 && error.store === 'primes');
  assert.equal((await lines.next()).value?.type, 'action');
  const state = await actor.snapshot('primes');
  for await (const line of lines) {
    if (line.type !== 'snapshot') continue;
    assert.deepEqual(line.state, state);
    assert.equal(state.count, 100);
    break;
  }
});

test('concurrent waitFor calls each see every line from where they started', LIMIT, async () => {
  const actor = await start();
  const a = async () => {
    const [own] = await actor.send('primes', 'counter.incrTapped');
    await sleep(50); // b's waitFor matches a later line meanwhile
    return actor.waitFor((line) => line.id === own.id, { timeout: 2000 });
  };
  const b = async () => {
    const [own] = await actor.send('primes', 'counter.incrTapped');
    return actor.waitFor((line) => line.id === own.id, { timeout: 2000 });
  };
  const [first, second] = await Promise.all([a(), b()]);
  assert.notEqual(first.id, second.id);
  // In one flow, the cursor still moves past what it matched.
  await actor.send('primes', 'counter.decrTapped');
  assert.equal((await actor.waitFor('counter.decrTapped')).patch[0].value, 1);
  await assert.rejects(actor.waitFor('counter.decrTapped', { timeout: 200 }), /nothing matched/);
});

test('until matches only the lines its own action caused, unless anyId', LIMIT, async () => {
  const actor = await start();
  const answers = await Promise.all(Array.from({ length: 20 }, () => actor.send('primes', 'counter.incrTapped', {}, { until: 'counter.incrTapped' })));
  for (const lines of answers) assert.equal(new Set(lines.map((line) => line.id)).size, 1, JSON.stringify(lines));
  await actor.send('primes', 'counter.countChanged', { value: 300_000_000 });
  const [tapped] = await actor.send('primes', 'counter.nthPrimeButtonTapped');
  const lines = await actor.send('primes', 'counter.incrTapped', {}, { until: 'counter.nthPrimeResponse', anyId: true });
  assert.equal(lines.at(-1)?.id, tapped.id);
});

test('the describe the client asks for itself is not one of the lines', LIMIT, async () => {
  const actor = await start();
  await Promise.all(Array.from({ length: 10 }, () => actor.send('primes', 'counter.incrTapped', {}, { until: 'counter.incrTapped' })));
  const seen = [];
  for await (const line of actor.events()) {
    seen.push(line.type);
    if (seen.length === actor.stores.length + 10) break;
  }
  assert.ok(!seen.includes('describe'), seen.join());
});

test('a killed process is named in the error, and a running iterator throws it', LIMIT, async () => {
  const actor = await start();
  const lines = actor.events();
  await lines.next();
  const reading = (async () => {
    for await (const _ of lines);
  })();
  const waiting = actor.waitFor('counter.nthPrimeResponse', { timeout: 10_000 });
  process.kill(/** @type {number} */ (actor.pid), 'SIGKILL');
  await assert.rejects(waiting, (error) => error instanceof ProcessExitedError && error.signal === 'SIGKILL' && /killed by SIGKILL/.test(error.message));
  await assert.rejects(reading, ProcessExitedError);
});

test('a bad argument says why the process ended', LIMIT, async () => {
  await assert.rejects(Client.start({ args: ['run', '--no-such-flag'] }), (error) => {
    assert.ok(error instanceof ProcessExitedError);
    assert.equal(error.exitCode, 64);
    assert.match(error.message, /--no-such-flag/);
    return true;
  });
});

test('mirrors of instances read back from storage', LIMIT, async () => {
  const folder = mkdtempSync(join(tmpdir(), 'composable-actor-node-state-'));
  const args = ['--state-dir', join(folder, 'state')];
  const first = await start(args);
  await first.send('primes', 'counter.countChanged', { value: 7 });
  await first.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' });
  for (let i = 0; i < 3; i++) await first.send('primes', 'counter.incrTapped', {}, { instance: 'alice' });
  await first.close();
  const actor = await start(args);
  // Alice is read back from storage (count 3); before, her first patch did not apply.
  await actor.send('primes', 'counter.incrTapped', {}, { instance: 'alice' });
  assert.equal(actor.state('primes', { instance: 'alice' }).count, 4);
  // Bob is new: his mirror is not the default instance's stored state (with its alert).
  await actor.send('primes', 'counter.incrTapped', {}, { instance: 'bob' });
  assert.deepEqual(actor.state('primes', { instance: 'bob' }), await actor.snapshot('primes', { instance: 'bob' }));
  assert.equal(actor.state('primes', { instance: 'bob' }).alertNthPrime, null);
});

test('waits found by id and by action type give each caller its own lines', LIMIT, async () => {
  // Waits are found by their call's id and by the action type they wait for, not by offering
  // every line to every wait: each caller still gets exactly the lines it got before.
  const actor = await start();
  const kinds = ['counter.incrTapped', 'counter.decrTapped'];
  const taps = await Promise.all(Array.from({ length: 100 }, (_, n) => actor.send('primes', kinds[n % 2], {}, { until: kinds[n % 2] })));
  taps.forEach((lines, n) => {
    assert.deepEqual(lines.map((line) => line.action.type), [kinds[n % 2]]);
  });
  // anyId waits and a predicate wait pending together: each ends on the first later line it takes.
  let done = 0;
  const decrements = Array.from({ length: 10 }, () =>
    actor.send('primes', 'counter.incrTapped', {}, { until: 'counter.decrTapped', anyId: true }).then((lines) => {
      done++;
      return lines;
    }),
  );
  await sleep(200);
  assert.equal(done, 0); // only increments came
  // From this flow's cursor, the backlog's start: the count tells the new line apart.
  const byPredicate = actor.waitFor((line) => line.type === 'action' && line.action.type === 'counter.decrTapped' && line.patch[0].value === 9);
  const [decremented] = await actor.send('primes', 'counter.decrTapped');
  for (const lines of await Promise.all(decrements)) {
    assert.equal(lines[0].action.type, 'counter.incrTapped');
    assert.deepEqual(lines.at(-1), decremented);
  }
  assert.deepEqual(await byPredicate, decremented);
  // waitFor by type from five calls at once, each from this flow's cursor: the same next line.
  const waiting = Array.from({ length: 5 }, () => actor.waitFor('counter.countChanged', { store: 'primes' }));
  await sleep(50);
  const [changed] = await actor.send('primes', 'counter.countChanged', { value: 5 });
  for (const line of await Promise.all(waiting)) assert.deepEqual(line, changed);
  // Waits that time out leave nothing to be offered later lines: the next lines still answer.
  await assert.rejects(actor.send('primes', 'counter.incrTapped', {}, { until: 'counter.nthPrimeResponse', anyId: true, timeout: 100 }), /nothing matched/);
  await assert.rejects(actor.waitFor(() => false, { timeout: 100 }), /nothing matched/);
  assert.equal((await actor.send('primes', 'counter.incrTapped', {}, { until: 'counter.incrTapped' })).length, 1);
});
