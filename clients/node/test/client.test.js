// The client against the real binary ($COMPOSABLE_ACTOR_BIN or the release build).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, ComposableActorError, ENV_BINARY, ProcessExitedError, TimeoutError, findBinary } from '../index.js';
import { testClients } from '../test-support/clients.js';

// A hang is a failure, not a stuck CI run.
const LIMIT = { timeout: 30_000 };

const clients = testClients();
const start = clients.start;

// A zombie keeps its /proc entry until reaped.
/** @param {number | undefined} pid */
const isGone = (pid) => !existsSync(`/proc/${pid}`);

test('start seeds the mirror from a snapshot of every store', LIMIT, async () => {
  const actor = await start();
  assert.equal(actor.ready.protocol, 1);
  assert.ok(actor.stores.includes('primes'));
  for (const store of actor.stores) assert.deepEqual(actor.state(store), await actor.snapshot(store));
  assert.equal(actor.state('primes').count, 0);
});

test('send resolves to its own action line', LIMIT, async () => {
  const actor = await start();
  const [line] = await actor.send('primes', 'counter.incrTapped');
  assert.equal(line.type, 'action');
  assert.equal(line.source, 'host');
  assert.deepEqual(line.patch, [{ op: 'replace', path: '/count', value: 1 }]);
  const lines = await actor.send('primes', 'counter.countChanged', { value: 5 });
  assert.deepEqual(lines.map((l) => l.action), [{ type: 'counter.countChanged', value: 5 }]);
  await actor.send('primes', { type: 'counter.countChanged', value: 6 });
  assert.equal(actor.state('primes').count, 6);
});

test('until waits for the effect line', LIMIT, async () => {
  const actor = await start();
  await actor.send('primes', 'counter.countChanged', { value: 1000 });
  const lines = await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' });
  assert.deepEqual(lines.map((l) => l.source), ['host', 'effect']);
  assert.equal(new Set(lines.map((l) => l.id)).size, 1);
  assert.deepEqual(actor.state('primes').alertNthPrime, { n: 1000, prime: 7919 });
  const saved = await actor.send('primes', 'favoritePrimes.saveButtonTapped', {}, { until: (l) => l.source === 'effect' });
  assert.equal(saved.at(-1)?.action.type, 'favoritePrimes.savedFavoritePrimes');
  assert.deepEqual(JSON.parse(readFileSync(join(clients.dataDir, 'favorite-primes.json'), 'utf8')), []);
});

test('the mirror matches fresh snapshots after many concurrent actions', LIMIT, async () => {
  const actor = await start();
  let seed = 7;
  const random = (/** @type {number} */ n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  for (let round = 0; round < 8; round++) {
    const sends = [];
    for (let i = 0; i < 50; i++) {
      const choice = random(7);
      if (choice === 0) sends.push(actor.send('primes', 'counter.countChanged', { value: random(60) - 3 }));
      else if (choice === 1) sends.push(actor.send('primes', 'primeModal.saveFavoritePrimeTapped'));
      else if (choice === 2) sends.push(actor.send('primes', 'primeModal.removeFavoritePrimeTapped'));
      else if (choice === 3) sends.push(actor.send('primes', 'favoritePrimes.deleteFavoritePrimes', { indices: [random(3)] }));
      else sends.push(actor.send('primes', random(2) ? 'counter.incrTapped' : 'counter.decrTapped'));
    }
    await Promise.all(sends);
    // Awaited alone: with effects in flight, lines after the snapshot's could reach the mirror
    // before the comparison runs.
    await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' });
    assert.deepEqual(actor.state('primes'), await actor.snapshot('primes'));
  }
  assert.ok(actor.state('primes').activityFeed.length > 0);
});

test('ticks mode: the state line naming the id answers, merged patches keep the mirror exact', LIMIT, async () => {
  const actor = await start(['--emit', 'ticks']);
  await actor.send('primes', 'counter.countChanged', { value: 2 });
  // Stopped, the process finds all the lines waiting at once, so its ticks merge many actions.
  process.kill(/** @type {number} */ (actor.pid), 'SIGSTOP');
  const sends = [];
  for (let i = 0; i < 30; i++) {
    for (const action of ['primeModal.saveFavoritePrimeTapped', 'counter.incrTapped', 'counter.incrTapped']) {
      sends.push(actor.send('primes', action));
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  process.kill(/** @type {number} */ (actor.pid), 'SIGCONT');
  const answers = await Promise.all(sends);
  assert.ok(answers.every(([line]) => line.type === 'state'));
  assert.ok(answers.some(([line]) => line.ids.length > 1));
  assert.deepEqual(actor.state('primes'), await actor.snapshot('primes'));
});

test('a refused line rejects with a typed error and the process goes on', LIMIT, async () => {
  const actor = await start();
  for (const [store, action, payload, code] of /** @type {const} */ ([
    ['primes', 'counter.nope', {}, 'unknown_action'],
    ['primes', 'counter.countChanged', { value: 'seven' }, 'invalid_action'],
  ])) {
    await assert.rejects(actor.send(store, action, payload), (error) => {
      assert.ok(error instanceof ComposableActorError);
      assert.equal(error.code, code);
      assert.ok(error.message.length > 0);
      assert.equal(error.id, error.line); // ids are input line numbers
      return true;
    });
  }
  assert.equal((await actor.send('primes', 'counter.incrTapped'))[0].patch[0].value, 1);
});

test('an error without an id finds its call by line number', LIMIT, async () => {
  const actor = await start(['--max-line-bytes', '200']);
  await assert.rejects(actor.send('primes', 'counter.countChanged', { value: 'x'.repeat(300) }), (error) => {
    assert.ok(error instanceof ComposableActorError);
    assert.equal(error.code, 'line_too_long');
    assert.equal(error.id, undefined);
    assert.equal(error.line, actor.stores.length + 1);
    return true;
  });
});

test('events yield every line, then end', LIMIT, async () => {
  const actor = await start();
  const events = actor.events();
  /** @type {string[]} */
  const emitted = [];
  actor.on('line', (line) => emitted.push(line.type));
  await actor.send('primes', 'counter.incrTapped');
  await assert.rejects(actor.send('primes', 'counter.nope'));
  await actor.close();
  const seen = [];
  for await (const line of events) seen.push(line);
  // From the backlog's start: the snapshots start() seeded the mirror with come first.
  const seeds = actor.stores.map(() => 'snapshot');
  assert.deepEqual(seen.map((l) => l.type), [...seeds, 'action', 'error', 'exit']);
  assert.deepEqual(emitted, ['action', 'error', 'exit']);
  assert.equal(seen.at(-1)?.reason, 'quit');
  // Another iterator, even after the end, replays the same backlog.
  const again = [];
  for await (const line of actor.events()) again.push(line);
  assert.deepEqual(again, seen);
});

test('a timeout leaves the client usable', LIMIT, async () => {
  const actor = await start();
  await assert.rejects(actor.send('primes', 'counter.incrTapped', {}, { until: 'counter.nthPrimeResponse', anyId: true, timeout: 200 }), TimeoutError);
  assert.equal((await actor.send('primes', 'counter.incrTapped'))[0].patch[0].value, 2);
});

test('pending calls end when the process exits', LIMIT, async () => {
  const actor = await start();
  await actor.send('primes', 'counter.countChanged', { value: 1_000_000_000 }); // about 2 s of CPU
  setTimeout(() => process.kill(/** @type {number} */ (actor.pid), 'SIGTERM'), 200);
  await assert.rejects(actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' }), (error) => {
    assert.ok(error instanceof ProcessExitedError);
    assert.equal(error.reason, 'signal');
    return true;
  });
  await assert.rejects(actor.snapshot('primes'), ProcessExitedError);
  assert.equal(await actor.close(), 143);
});

test('close quits, reaps, and is idempotent', LIMIT, async () => {
  const actor = await start();
  await actor.send('primes', 'counter.countChanged', { value: 1_000_000_000 });
  await actor.send('primes', 'counter.nthPrimeButtonTapped'); // an effect still running
  assert.equal(await actor.close(), 0);
  assert.ok(isGone(actor.pid));
  assert.equal(await actor.close(), 0);
  await assert.rejects(actor.send('primes', 'counter.incrTapped'), ProcessExitedError);
});

test('process exit ends a client nobody closed', LIMIT, () => {
  const index = fileURLToPath(new URL('../index.js', import.meta.url));
  // Left alone, the process would wait up to --linger for its effect after stdin closes.
  const script = `const { Client } = await import(${JSON.stringify(index)});
    const actor = await Client.start({ args: ['--data-dir', ${JSON.stringify(mkdtempSync(join(tmpdir(), 'ca-')))}, '--linger', '30'] });
    await actor.send('primes', 'counter.countChanged', { value: 1_000_000_000 });
    await actor.send('primes', 'counter.nthPrimeButtonTapped');
    console.log(actor.pid);
    process.exit(3);`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(result.status, 3, result.stderr);
  const pid = Number(result.stdout.trim());
  assert.ok(pid > 0);
  // SIGTERM makes it cancel, write its exit line and end at once (the prime would take seconds).
  // Orphaned, it is init's to reap, so a zombie counts as ended here.
  const ended = () => {
    try {
      return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
    } catch {
      return true;
    }
  };
  const deadline = Date.now() + 1000;
  while (!ended() && Date.now() < deadline) spawnSync('sleep', ['0.05']);
  assert.ok(ended(), `composable-actor ${pid} outlived its host`);
});

test('the exit handler sends SIGTERM to clients still running', LIMIT, () => {
  // The binary also ends by itself once its stdout closes with the host, so the handler is
  // checked on its own: Node emits 'exit' on its way out, and the handler must act on it.
  const index = fileURLToPath(new URL('../index.js', import.meta.url));
  const script = `const { Client } = await import(${JSON.stringify(index)});
    const actor = await Client.start({ args: ['--data-dir', ${JSON.stringify(mkdtempSync(join(tmpdir(), 'ca-')))}] });
    const events = actor.events();
    process.emit('exit', 0);
    setTimeout(() => actor.close(), 2000); // without the handler: reason "quit"
    for await (const line of events) if (line.type === 'exit') console.log(line.reason);`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(result.stdout.trim(), 'signal', result.stderr);
});

test('the binary comes from the option, then the environment', LIMIT, async () => {
  const binary = findBinary();
  const saved = process.env[ENV_BINARY];
  process.env[ENV_BINARY] = join(tmpdir(), 'missing-composable-actor');
  try {
    assert.throws(() => findBinary(), new RegExp(ENV_BINARY));
    await assert.rejects(Client.start(), /no composable-actor binary/);
    const actor = await start([], { binary });
    assert.ok(actor.stores.length > 0);
  } finally {
    if (saved === undefined) delete process.env[ENV_BINARY];
    else process.env[ENV_BINARY] = saved;
  }
});

test('advance and settle are refused under the live clock', LIMIT, async () => {
  const actor = await start();
  // virtual-clock.test.js drives both verbs under --clock virtual.
  for (const verb of [() => actor.advance(10), () => actor.settle()]) {
    await assert.rejects(verb(), (error) => {
      assert.ok(error instanceof ComposableActorError);
      assert.equal(error.code, 'clock_not_virtual');
      assert.equal(error.id, error.line);
      return true;
    });
  }
});

test('state is a copy; describe lists the stores', LIMIT, async () => {
  const actor = await start();
  actor.state('primes').count = 99;
  assert.equal(actor.state('primes').count, 0);
  assert.throws(() => actor.state('nowhere'));
  const description = await actor.describe();
  assert.deepEqual(description.stores.map((/** @type {{name: string}} */ s) => s.name), actor.stores);
});

test('a message that cannot be encoded takes no id', LIMIT, async () => {
  const actor = await start();
  await assert.rejects(actor.send('primes', 'counter.countChanged', { value: 10n }), TypeError);
  // Ids are the numbers of the lines written: the start-up snapshots, then this one.
  const [line] = await actor.send('primes', 'counter.incrTapped');
  assert.equal(line.id, actor.stores.length + 1);
});
