// No lost lines: the backlog, waitFor's cursor, until on any id, and the checks of action types
// and store names, against the real binary.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TimeoutError, UnknownActionError, UnknownStoreError, editDistance } from '../index.js';
import { testClients } from '../test-support/clients.js';

// A hang is a failure, not a stuck CI run.
const LIMIT = { timeout: 30_000 };

/** @typedef {import('../index.js').Line} Line */

const clients = testClients();
const start = clients.start;

/** @param {Line} line */
const kind = (line) => (line.type === 'action' ? line.action.type : line.type);

test('editDistance counts insertions, deletions and substitutions', () => {
  assert.equal(editDistance('', ''), 0);
  assert.equal(editDistance('abc', ''), 3);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('counter.nthPrimeRespone', 'counter.nthPrimeResponse'), 1);
});

test('waitFor finds a line that came before it was called', LIMIT, async () => {
  const actor = await start();
  await actor.send('primes', 'counter.countChanged', { value: 10 });
  await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' });
  // Long answered: the backlog still has it.
  const line = await actor.waitFor('counter.nthPrimeResponse', { timeout: 1000 });
  assert.equal(line.action.value, 29);
});

test('waitFor waits for a line still to come, whatever its id', LIMIT, async () => {
  const actor = await start();
  await actor.send('primes', 'counter.countChanged', { value: 1000 });
  const waiting = actor.waitFor('counter.nthPrimeResponse', { store: 'primes' });
  const [tapped] = await actor.send('primes', 'counter.nthPrimeButtonTapped');
  const response = await waiting;
  assert.deepEqual([response.action.value, response.id, response.source], [7919, tapped.id, 'effect']);
});

test('waitFor does not see a line again that an earlier waitFor matched or passed', LIMIT, async () => {
  const actor = await start();
  for (const value of [1, 2, 3]) await actor.send('primes', 'counter.countChanged', { value });
  assert.equal((await actor.waitFor('counter.countChanged')).action.value, 1);
  assert.equal((await actor.waitFor('counter.countChanged')).action.value, 2);
  // 1 and 2 are behind the cursor now, 3 is still ahead.
  /** @param {Line} line */
  const isOne = (line) => line.action?.value === 1;
  await assert.rejects(actor.waitFor(isOne, { timeout: 200 }), TimeoutError);
  assert.equal((await actor.waitFor((line) => line.action?.value === 3)).action.value, 3);
  await assert.rejects(actor.waitFor('counter.countChanged', { timeout: 200 }), TimeoutError);
  await actor.send('primes', 'counter.countChanged', { value: 4 });
  assert.equal((await actor.waitFor('counter.countChanged')).action.value, 4);
});

test('waitFor with a store matches that store only', LIMIT, async () => {
  const actor = await start(['--clock', 'virtual']);
  // `isLoading` is only a votes action: waiting for it elsewhere is an error at once.
  await assert.rejects(actor.waitFor('isLoading', { store: 'primes' }), (error) => {
    assert.ok(error instanceof UnknownActionError);
    assert.match(error.message, /no action type "isLoading" in store "primes"; it is an action of votes/);
    return true;
  });
  await actor.send('randomTodo', 'viewDidAppear');
  await actor.send('primes', 'counter.incrTapped');
  const line = await actor.waitFor((line) => line.type === 'action', {});
  assert.equal(line.store, 'randomTodo');
  assert.equal((await actor.waitFor('counter.incrTapped', { store: 'primes' })).store, 'primes');
});

test('send until matches a line with another id, and ends the answer with it', LIMIT, async () => {
  const actor = await start(['--clock', 'virtual']);
  const [appeared] = await actor.send('randomTodo', 'viewDidAppear');
  // The timer's tick echoes viewDidAppear's id, not this send's.
  const advancing = actor.advance(3000);
  const lines = await actor.send('primes', 'counter.incrTapped', {}, { until: (line) => line.action?.type === 'timerTicked', anyId: true });
  await advancing;
  assert.deepEqual(lines.map(kind), ['counter.incrTapped', 'timerTicked']);
  assert.equal(lines[1].id, appeared.id);
  assert.notEqual(lines[0].id, appeared.id);
});

test('send until does not match lines from before the action was written', LIMIT, async () => {
  const actor = await start();
  await actor.send('primes', 'counter.incrTapped');
  await assert.rejects(actor.send('primes', 'counter.decrTapped', {}, { until: 'counter.incrTapped', anyId: true, timeout: 300 }), TimeoutError);
});

test('a mistyped action type is an error at once, with a suggestion, and nothing is sent', LIMIT, async () => {
  const actor = await start();
  const started = Date.now();
  await assert.rejects(actor.send('primes', 'counter.incrTapped', {}, { until: 'counter.nthPrimeRespone' }), (error) => {
    assert.ok(error instanceof UnknownActionError);
    assert.equal(error.type, 'counter.nthPrimeRespone');
    assert.match(error.message, /no action type "counter.nthPrimeRespone" in store "primes"; did you mean "counter.nthPrimeResponse"\?/);
    return true;
  });
  await assert.rejects(actor.waitFor('webSocket.didOpne'), /did you mean "webSocket.didOpen"\?/);
  await assert.rejects(actor.waitFor('somethingElseEntirely'), (error) => {
    assert.ok(error instanceof UnknownActionError);
    assert.doesNotMatch(error.message, /did you mean/);
    return true;
  });
  assert.ok(Date.now() - started < 2000, 'rejected at once, not at the timeout');
  assert.equal(actor.state('primes').count, 0);
  assert.equal((await actor.snapshot('primes')).count, 0);
  // A correct type still works after the errors.
  await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' });
});

test('sends keep their order while the action types are fetched', LIMIT, async () => {
  const actor = await start();
  // The first send with an action type fetches describe before it writes; the sends after it
  // must still be written after it.
  const [first, second, third] = await Promise.all([
    actor.send('primes', 'counter.countChanged', { value: 1 }, { until: 'counter.countChanged' }),
    actor.send('primes', 'counter.countChanged', { value: 2 }),
    actor.snapshot('primes'),
  ]);
  assert.ok(first[0].seq < second[0].seq);
  assert.equal(third.count, 2);
});

test('unknown store names are refused with the known ones and a suggestion', LIMIT, async () => {
  const actor = await start();
  /** @param {unknown} error */
  const check = (error) => {
    assert.ok(error instanceof UnknownStoreError);
    assert.equal(error.store, 'primez');
    assert.match(error.message, /no store named "primez"; did you mean "primes"\?; the stores are primes, randomTodo, votes, websocket/);
    return true;
  };
  assert.throws(() => actor.state('primez'), check);
  await assert.rejects(actor.send('primez', 'counter.incrTapped'), check);
  await assert.rejects(actor.waitFor('counter.incrTapped', { store: 'primez' }), check);
  await assert.rejects(actor.snapshot('primez'), check);
  assert.equal((await actor.send('primes', 'counter.incrTapped'))[0].patch[0].value, 1);
});

test('a timeout says what was awaited and shows the last lines', LIMIT, async () => {
  const actor = await start();
  await actor.describe(); // else the describe line fetched to check the action type is the last
  await actor.send('primes', 'counter.incrTapped');
  await actor.send('websocket', 'messageToSendChanged', { value: 'x'.repeat(500) });
  await assert.rejects(actor.waitFor('counter.nthPrimeResponse', { store: 'primes', timeout: 150 }), (error) => {
    assert.ok(error instanceof TimeoutError);
    assert.match(error.message, /^waitFor action type "counter.nthPrimeResponse" in store "primes": nothing matched in 150 ms; the last 5 lines received:/);
    assert.equal(error.lastLines.length, 5);
    assert.deepEqual(error.lastLines.slice(-2).map(kind), ['counter.incrTapped', 'messageToSendChanged']);
    const shown = error.message.split('\n').slice(1);
    assert.equal(shown.length, 5);
    assert.ok(shown.every((line) => line.length <= 205), 'each line shortened');
    assert.match(shown.at(-1) ?? '', /"messageToSendChanged","value":"xxx.*…$/);
    return true;
  });
  /** @param {Line} line */
  function isHuge(line) {
    return line.action?.value > 1000;
  }
  await assert.rejects(actor.send('primes', 'counter.decrTapped', {}, { until: isHuge, timeout: 150 }), (error) => {
    assert.ok(error instanceof TimeoutError);
    assert.match(error.message, /^send\("primes", "counter.decrTapped"\) waiting for predicate isHuge after it: nothing matched in 150 ms/);
    assert.match(error.message, /"counter.decrTapped"/);
    return true;
  });
});

test('the backlog keeps the newest lines up to its bound', LIMIT, async () => {
  const actor = await start([], { backlog: 3 });
  await actor.waitFor('counter.countChanged', { timeout: 1 }).catch(() => {}); // fetches describe now
  for (let value = 1; value <= 2000; value++) await actor.send('primes', 'counter.countChanged', { value });
  const kept = [];
  const events = actor.events();
  for (let i = 0; i < 3; i++) kept.push((await events.next()).value);
  assert.deepEqual(kept.map((line) => line.action.value), [1998, 1999, 2000]);
  // Dropped lines are gone for waitFor too.
  await assert.rejects(actor.waitFor((line) => line.action?.value === 1, { timeout: 100 }), TimeoutError);
  assert.equal((await actor.waitFor('counter.countChanged')).action.value, 1998);
});

test('events() starts at the backlog start, so a line from before the call is there', LIMIT, async () => {
  const actor = await start();
  const [incremented] = await actor.send('primes', 'counter.incrTapped');
  const seen = [];
  for await (const line of actor.events()) {
    seen.push(line);
    if (line.type === 'action') break;
  }
  assert.deepEqual(seen.at(-1), incremented);
  assert.deepEqual(seen.slice(0, -1).map(kind), actor.stores.map(() => 'snapshot'));
});

test('traced effects come among the events, after the action that started them', LIMIT, async () => {
  const actor = await start(['--trace', 'effects']);
  await actor.send('primes', 'counter.countChanged', { value: 6 });
  const [tapped] = await actor.send('primes', 'counter.nthPrimeButtonTapped');
  const seen = [];
  for await (const line of actor.events()) {
    if (line.type === 'snapshot') continue;
    seen.push(line);
    if (line.type === 'effect' && line.event === 'finished') break;
  }
  assert.deepEqual(seen.map(kind), [
    'counter.countChanged', 'counter.nthPrimeButtonTapped', 'effect', 'counter.nthPrimeResponse', 'effect',
  ]);
  const [started, finished] = seen.filter((line) => line.type === 'effect');
  assert.deepEqual([started.event, started.cause, finished.cause], ['started', tapped.seq, tapped.seq]);
  assert.equal(started.effect, finished.effect);
});

test('under --emit ticks an action type is refused: no line names one', LIMIT, async () => {
  const actor = await start(['--emit', 'ticks']);
  await assert.rejects(actor.waitFor('counter.incrTapped'), /under --emit ticks/);
  await assert.rejects(actor.send('primes', 'counter.incrTapped', {}, { until: 'counter.incrTapped' }), /pass a predicate/);
  const lines = await actor.send('primes', 'counter.incrTapped', {}, { until: (line) => line.type === 'state' });
  assert.equal(lines.length, 1);
  assert.equal(lines[0].type, 'state');
});

test('an infinite timeout waits', LIMIT, async () => {
  // (Node fires a timer longer than 2^31 - 1 ms at once.)
  const actor = await start([], { timeout: Infinity });
  await actor.send('primes', 'counter.countChanged', { value: 2_000_000 });
  const waiting = actor.waitFor('counter.nthPrimeResponse', { timeout: 2 ** 40 });
  const lines = await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' });
  assert.equal(lines.at(-1)?.action.value, 32_452_843);
  assert.equal((await waiting).action.value, 32_452_843);
});

test('timeouts of different lengths at once each fire on time', LIMIT, async () => {
  const actor = await start();
  const began = Date.now();
  /** @param {Line} line */
  const never = (line) => line.type === 'never';
  const long = actor.waitFor(never, { timeout: 1500 }).catch((error) => [error, Date.now() - began]);
  const short = actor.waitFor(never, { timeout: 100 }).catch((error) => [error, Date.now() - began]);
  const middle = actor.send('primes', 'counter.incrTapped', {}, { until: never, timeout: 600 }).catch((error) => [error, Date.now() - began]);
  const answered = await actor.send('primes', 'counter.decrTapped', {}, { timeout: 50 });
  assert.equal(answered[0].action.type, 'counter.decrTapped');
  const results = await Promise.all([short, middle, long]);
  for (const [i, expected] of [100, 600, 1500].entries()) {
    const [error, ms] = /** @type {[unknown, number]} */ (results[i]);
    assert.ok(error instanceof TimeoutError);
    assert.ok(ms >= expected - 5 && ms < expected + 400, `a ${expected} ms timeout fired after ${ms} ms`);
  }
});

test('lines longer than a read of stdout come back whole from the backlog, and the lines around them', LIMIT, async () => {
  // The backlog keeps the chunks read and where each line is in them; a line longer than a read
  // spans several, and the ring that holds them grows (to 64, then to its bound) and wraps.
  const actor = await start([], { backlog: 100 });
  const long = 'x'.repeat(150_000);
  for (let i = 0; i < 3; i++) {
    await actor.send('primes', 'counter.incrTapped');
    await actor.send('websocket', 'messageToSendChanged', { value: `${long}${i}` });
  }
  for (let i = 0; i < 3; i++) {
    assert.equal((await actor.waitFor('counter.incrTapped')).patch[0].value, i + 1);
    assert.equal((await actor.waitFor('messageToSendChanged')).action.value, `${long}${i}`);
  }
  await Promise.all(Array.from({ length: 150 }, () => actor.send('primes', 'counter.incrTapped')));
  const kept = [];
  const lines = actor.events();
  for (let i = 0; i < 100; i++) kept.push((await lines.next()).value);
  assert.deepEqual(kept.map((line) => line.patch[0].value), Array.from({ length: 100 }, (_, i) => 54 + i));
});
