// Failures stay with the call that caused them; wrong arguments are clear errors; a client nobody
// closed neither holds the script open nor outlives it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '../index.js';
import { testClients } from '../test-support/clients.js';

// A hang is a failure, not a stuck CI run.
const LIMIT = { timeout: 30_000 };

const clients = testClients();
const start = clients.start;
const INDEX = fileURLToPath(new URL('../index.js', import.meta.url));

/** @param {unknown} message */
const thrower = (message) => () => {
  throw new Error(String(message));
};

test('a predicate that throws rejects its own call only', LIMIT, async () => {
  const actor = await start();
  let cleanedUp = false;
  try {
    await actor.send('primes', 'counter.incrTapped', {}, { until: thrower('boom in until') });
    assert.fail('resolved');
  } catch (error) {
    assert.match(String(error), /boom in until/);
  } finally {
    cleanedUp = true;
  }
  assert.ok(cleanedUp);
  // Another call in flight at the same time is not disturbed.
  await actor.send('primes', 'counter.countChanged', { value: 1000 });
  const [failed, answered] = await Promise.allSettled([
    actor.waitFor(thrower('boom in waitFor')),
    actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' }),
  ]);
  assert.equal(failed.status, 'rejected');
  assert.match(String(failed.status === 'rejected' && failed.reason), /boom in waitFor/);
  assert.equal(answered.status === 'fulfilled' && answered.value.at(-1)?.action.value, 7919);
  // A predicate that throws on a line still to come, too.
  const later = actor.waitFor((line) => {
    if (line.action?.type === 'counter.decrTapped') throw new Error('boom later');
    return false;
  });
  await actor.send('primes', 'counter.decrTapped');
  await assert.rejects(later, /boom later/);
  assert.equal((await actor.send('primes', 'counter.incrTapped'))[0].patch[0].value, 1000);
  assert.deepEqual(actor.state('primes'), await actor.snapshot('primes'));
});

test('a throwing predicate does not crash the script; finally runs', LIMIT, async () => {
  const script = `const { Client } = await import(${JSON.stringify(INDEX)});
    const actor = await Client.start({ args: ['--data-dir', ${JSON.stringify(mkdtempSync(join(tmpdir(), 'ca-')))}] });
    try {
      await actor.send('primes', 'counter.incrTapped', {}, { until: () => { throw new Error('boom'); } });
    } catch (error) {
      console.log('caught', error.message);
    } finally {
      console.log('finally');
    }
    console.log('count', (await actor.send('primes', 'counter.incrTapped'))[0].patch[0].value);
    console.log('closed', await actor.close());`;
  const { status, stdout, stderr } = await run(script, 10_000);
  assert.equal(status, 0, stderr);
  assert.deepEqual(stdout.trim().split('\n'), ['caught boom', 'finally', 'count 2', 'closed 0']);
});

test('wrong arguments are clear errors', LIMIT, async () => {
  const actor = await start();
  await assert.rejects(actor.send('primes', 'counter.countChanged', /** @type {any} */ (7)), (error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /payload must be an object .*\{ value: 7 \}/);
    return true;
  });
  await assert.rejects(actor.send('primes', 'counter.countChanged', /** @type {any} */ ('7')), /\{ value: "7" \}/);
  await assert.rejects(actor.send(/** @type {any} */ (7), 'counter.incrTapped'), /store must be a store name \(a string\), not number 7/);
  await assert.rejects(actor.send('primes', /** @type {any} */ ({ value: 1 })), /action must be an action type/);
  await assert.rejects(actor.send('primes', 'counter.incrTapped', {}, /** @type {any} */ ({ untill: 'counter.incrTapped' })), (error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /unknown option "untill"; did you mean "until"\?/);
    return true;
  });
  await assert.rejects(actor.send('primes', 'counter.incrTapped', {}, { until: /** @type {any} */ (5) }), /until must be an action type/);
  await assert.rejects(actor.waitFor('counter.incrTapped', /** @type {any} */ ({ stor: 'primes' })), /unknown option "stor"/);
  await assert.rejects(actor.waitFor('counter.incrTapped', { timeout: /** @type {any} */ ('1s') }), /timeout must be a number/);
  // Nothing of that was sent.
  assert.equal((await actor.snapshot('primes')).count, 0);
  await assert.rejects(Client.start({ args: /** @type {any} */ ('--clock virtual') }), (error) => {
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /args must be an array of strings, e\.g\. \["--clock","virtual"\], not a string/);
    return true;
  });
  await assert.rejects(Client.start(/** @type {any} */ ({ timout: 5 })), /unknown option "timout"; did you mean "timeout"\?/);
  await assert.rejects(Client.start({ backlog: 0 }), /backlog must be a positive whole number/);
});

/**
 * Runs a module script in another Node; resolves to how it ended (killed after `ms`).
 * @param {string} script @param {number} ms
 * @returns {Promise<{status: number | null, stdout: string, stderr: string, ms: number}>}
 */
function run(script, ms) {
  return new Promise((resolve) => {
    const began = Date.now();
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, ms: Date.now() - began });
    });
  });
}

/** Whether the process has ended (a zombie counts: orphaned, it is init's to reap). @param {number} pid */
function ended(pid) {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return !existsSync(`/proc/${pid}`);
  }
}

/** @param {number} pid @param {number} ms */
async function endsWithin(pid, ms) {
  const deadline = Date.now() + ms;
  while (!ended(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return ended(pid);
}

test('a script that forgets close() ends by itself, and so does its child', LIMIT, async () => {
  // An effect still running, an events() iterator never finished, a waitFor answered: none of
  // them may hold the script. --linger 30 would keep the child alive 30 s after stdin closes.
  const script = `const { Client } = await import(${JSON.stringify(INDEX)});
    const actor = await Client.start({ args: ['--data-dir', ${JSON.stringify(mkdtempSync(join(tmpdir(), 'ca-')))}, '--linger', '30'] });
    const events = actor.events();
    await events.next();
    await actor.send('primes', 'counter.countChanged', { value: 1000 });
    const [line] = await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' });
    await actor.waitFor('counter.nthPrimeResponse');
    await actor.send('primes', 'counter.countChanged', { value: 1_000_000_000 });
    await actor.send('primes', 'counter.nthPrimeButtonTapped');
    console.log(actor.pid);`;
  const { status, stdout, stderr, ms } = await run(script, 10_000);
  assert.equal(status, 0, `the script did not end by itself (${ms} ms): ${stderr}`);
  assert.ok(ms < 5000, `the script took ${ms} ms to end`);
  const pid = Number(stdout.trim());
  assert.ok(pid > 0, stdout);
  assert.ok(await endsWithin(pid, 2000), `composable-actor ${pid} outlived the script`);
});

test('a script awaiting an answer is kept alive until it comes', LIMIT, async () => {
  // The client unreferences its pipes while idle, so it must reference them while a call waits:
  // else Node would end the script mid-await.
  const script = `const { Client } = await import(${JSON.stringify(INDEX)});
    const actor = await Client.start({ args: ['--data-dir', ${JSON.stringify(mkdtempSync(join(tmpdir(), 'ca-')))}] });
    await actor.send('primes', 'counter.countChanged', { value: 3_000_000 });
    const lines = await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' });
    console.log(lines.at(-1).action.value);
    await actor.waitFor('counter.nthPrimeResponse'); // that one, from the backlog
    const waiting = actor.waitFor('counter.nthPrimeResponse', { timeout: Infinity }); // no timer holds Node here
    await actor.send('primes', 'counter.countChanged', { value: 3_000_001 });
    await actor.send('primes', 'counter.nthPrimeButtonTapped');
    console.log((await waiting).action.value);`;
  const { status, stdout, stderr } = await run(script, 15_000);
  assert.equal(status, 0, stderr);
  assert.deepEqual(stdout.trim().split('\n'), ['49979687', '49979693']);
});
