#!/usr/bin/env node
// The todos store driven from Node, through the framework's Node client, unchanged: the same
// client that drives composable-actor drives a team's own binary.
//
//     node client.mjs --binary PATH
//
// Runs with `--clock virtual` and a throw-away data folder; adds, toggles and moves todos, types a
// filter and advances past its 300 ms debounce, and checks the state after each step and that the
// client's mirror equals the process's snapshot. Exits 1 when a state is not the one expected.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { Client } from '../../clients/node/index.js';

const { values: options } = parseArgs({ options: { binary: { type: 'string' } } });
const STORE = 'todos';
let failures = 0;

/** @param {string} what @param {unknown} actual @param {unknown} expected */
function check(what, actual, expected) {
  if (isDeepStrictEqual(actual, expected)) {
    console.log(`ok    ${what}: ${JSON.stringify(actual)}`);
  } else {
    failures += 1;
    console.log(`FAIL  ${what}:\n      expected ${JSON.stringify(expected)}\n      actual   ${JSON.stringify(actual)}`);
  }
}

const data = mkdtempSync(join(tmpdir(), 'todos-node-'));
try {
  const actor = await Client.start({ binary: options.binary, args: ['--clock', 'virtual', '--data-dir', data] });
  try {
    check('the stores', actor.stores, [STORE]);
    for (const title of ['Buy milk', 'Walk the dog', 'Mix the paint']) {
      await actor.send(STORE, 'add', { title });
    }
    await actor.send(STORE, 'todos.element', { id: 2, action: { type: 'toggled' } });
    await actor.send(STORE, 'move', { from: 2, to: 0 });
    check('the todos', actor.state(STORE).todos, [
      { id: 3, title: 'Mix the paint', done: false },
      { id: 1, title: 'Buy milk', done: false },
      { id: 2, title: 'Walk the dog', done: true },
    ]);
    await actor.send(STORE, 'filterChanged', { text: 'mi' });
    check('visible before the debounce', actor.state(STORE).visibleIDs, [3, 1, 2]);
    await actor.advance(300);
    check('visible after 300 ms', actor.state(STORE).visibleIDs, [3, 1]);
    check('the mirror equals the snapshot', actor.state(STORE), await actor.snapshot(STORE));
  } finally {
    await actor.close();
  }
} finally {
  rmSync(data, { recursive: true, force: true });
}
if (failures > 0) process.exit(1);
console.log('every check passed');
