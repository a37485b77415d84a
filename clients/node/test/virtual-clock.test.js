// advance / settle request handling, against a FAKE process.
//
// FAKE: the binary does not have `--clock virtual`, `advance` or `settle` yet, so this file is
// also a stand-in process (run with --fake-actor) that speaks only what those verbs need,
// following the protocol decided for them. Everything else is tested against the real binary in
// client.test.js; real-binary tests of these verbs replace this fake when the commands land.
//
// The fake's one store, `timer`: `start` makes an effect tick every 100 virtual ms (the tick
// lines echo the id of `start`), `ping` queues a `pong` effect that only `settle` lets through.
import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, ComposableActorError } from '../index.js';

// A hang is a failure, not a stuck CI run.
const LIMIT = { timeout: 30_000 };

/** @param {string} clock */
function fakeProcess(clock) {
  let seq = 0;
  let now = 0;
  let number = 0;
  const state = { ticks: 0, pongs: 0 };
  /** @type {unknown} */
  let timerId = null;
  /** @type {unknown[]} */
  const pongs = [];
  const write = (/** @type {object} */ line) => process.stdout.write(`${JSON.stringify(line)}\n`);
  /** @param {string} source @param {unknown} id @param {string} type @param {'ticks' | 'pongs'} [field] */
  const act = (source, id, type, field) => {
    const patch = field ? [{ op: 'replace', path: `/${field}`, value: ++state[field] }] : [];
    write({ type: 'action', store: 'timer', seq: ++seq, id, source, action: { type }, patch });
  };
  write({ type: 'ready', protocol: 1, stores: ['timer'], version: 'fake' });
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (text) => {
    number++;
    const message = JSON.parse(text);
    const { id, cmd } = message;
    if (cmd === 'quit') {
      write({ type: 'exit', reason: 'quit', cancelledEffects: 0 });
      lines.close();
    } else if (cmd === 'snapshot') {
      write({ type: 'snapshot', store: 'timer', seq, id, state });
    } else if ((cmd === 'advance' || cmd === 'settle') && clock !== 'virtual') {
      write({ type: 'error', code: 'clock_not_virtual', line: number, id, message: `${cmd} needs --clock virtual` });
    } else if (cmd === 'advance') {
      if (timerId !== null) {
        for (let t = Math.floor(now / 100); t < Math.floor((now + message.ms) / 100); t++) act('effect', timerId, 'tick', 'ticks');
      }
      now += message.ms;
      write({ type: 'advanced', ms: message.ms, now, id });
    } else if (cmd === 'settle') {
      while (pongs.length) act('effect', pongs.shift(), 'pong', 'pongs');
      write({ type: 'settled', id });
    } else if (message.action === 'start') {
      timerId = id;
      act('host', id, 'start');
    } else {
      pongs.push(id);
      act('host', id, 'ping');
    }
  });
}

/** @param {string} [clock] */
const fake = (clock = 'virtual') =>
  Client.start({ binary: process.execPath, args: [fileURLToPath(import.meta.url), '--fake-actor', clock] });

if (process.argv[2] === '--fake-actor') {
  fakeProcess(process.argv[3]);
} else {
  test('advance resolves to its lines and effects reach the mirror', LIMIT, async () => {
    const actor = await fake();
    try {
      const events = actor.events();
      const [started] = await actor.send('timer', 'start');
      const [advanced] = await actor.advance(250);
      assert.deepEqual(advanced, { type: 'advanced', ms: 250, now: 250, id: advanced.id });
      assert.deepEqual(actor.state('timer'), { ticks: 2, pongs: 0 });
      assert.equal((await actor.advance(50)).at(-1)?.now, 300);
      assert.deepEqual(actor.state('timer'), await actor.snapshot('timer'));
      await actor.close();
      const ticks = [];
      for await (const line of events) if (line.action?.type === 'tick') ticks.push(line);
      assert.deepEqual(ticks.map((line) => line.id), [started.id, started.id, started.id]);
    } finally {
      await actor.close();
    }
  });

  test('settle, and send with settle', LIMIT, async () => {
    const actor = await fake();
    try {
      const [ping] = await actor.send('timer', 'ping');
      assert.equal((await actor.settle()).at(-1)?.type, 'settled');
      const lines = await actor.send('timer', 'ping', {}, { settle: true });
      assert.deepEqual(lines.map((line) => line.action.type), ['ping', 'pong']);
      assert.ok(lines.every((line) => line.id === lines[0].id && line.id !== ping.id));
      assert.deepEqual(actor.state('timer'), { ticks: 0, pongs: 2 });
      await assert.rejects(actor.send('timer', 'ping', {}, { settle: true, until: 'pong' }), TypeError);
    } finally {
      await actor.close();
    }
  });

  test('the live clock refuses both verbs', LIMIT, async () => {
    const actor = await fake('live');
    try {
      for (const verb of [() => actor.advance(10), () => actor.settle(), () => actor.send('timer', 'ping', {}, { settle: true })]) {
        await assert.rejects(verb(), (error) => {
          assert.ok(error instanceof ComposableActorError);
          assert.equal(error.code, 'clock_not_virtual');
          assert.equal(error.id, error.line);
          return true;
        });
      }
    } finally {
      await actor.close();
    }
  });
}
