// Finding the binary: the option, then $COMPOSABLE_ACTOR_BIN, then PATH, then the build folder.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, ENV_BINARY, findBinary } from '../index.js';

const LIMIT = { timeout: 30_000 };
const REAL = findBinary(); // the tests' binary ($COMPOSABLE_ACTOR_BIN)
const BUILD = fileURLToPath(new URL('../../../.build/release/composable-actor', import.meta.url));

/** @type {Record<string, string | undefined>} */
let saved = {};
beforeEach(() => {
  saved = { [ENV_BINARY]: process.env[ENV_BINARY], PATH: process.env.PATH };
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** A fresh folder holding `composable-actor`: a link to the real binary, or a file not executable. @param {'link' | 'not executable'} kind */
function folderWith(kind) {
  const folder = mkdtempSync(join(tmpdir(), 'ca-path-'));
  const path = join(folder, 'composable-actor');
  if (kind === 'link') symlinkSync(REAL, path);
  else {
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, 0o644);
  }
  return { folder, path };
}

test('PATH is searched when neither the option nor the variable is given', LIMIT, async () => {
  const skipped = folderWith('not executable');
  const found = folderWith('link');
  delete process.env[ENV_BINARY];
  process.env.PATH = [join(tmpdir(), 'no-such-folder'), '', skipped.folder, found.folder].join(':');
  assert.equal(findBinary(), found.path);
  const actor = await Client.start({ args: ['--data-dir', mkdtempSync(join(tmpdir(), 'ca-'))] });
  try {
    assert.ok(actor.stores.includes('primes'));
  } finally {
    await actor.close();
  }
});

test('the option comes first, then the variable, then PATH', LIMIT, () => {
  const onPath = folderWith('link');
  const inVariable = folderWith('link');
  const given = folderWith('link');
  process.env.PATH = onPath.folder;
  process.env[ENV_BINARY] = inVariable.path;
  assert.equal(findBinary(given.path), given.path);
  assert.equal(findBinary(), inVariable.path);
  delete process.env[ENV_BINARY];
  assert.equal(findBinary(), onPath.path);
});

test('an option or variable naming no executable is an error, not a fall-back', LIMIT, () => {
  const onPath = folderWith('link');
  const bad = folderWith('not executable');
  process.env.PATH = onPath.folder;
  assert.throws(() => findBinary(bad.path), /no composable-actor binary at .* \(the binary option\): not an executable file/);
  process.env[ENV_BINARY] = join(tmpdir(), 'missing-composable-actor');
  assert.throws(() => findBinary(), new RegExp(`no composable-actor binary at .*missing-composable-actor \\(\\$${ENV_BINARY}\\)`));
});

test('when nothing is found the error lists every place looked', LIMIT, async (t) => {
  const bad = folderWith('not executable');
  const empty = mkdtempSync(join(tmpdir(), 'ca-path-'));
  delete process.env[ENV_BINARY];
  process.env.PATH = `${bad.folder}:${empty}`;
  /** @param {unknown} error */
  const check = (error) => {
    assert.ok(error instanceof Error);
    const message = error.message;
    assert.match(message, /^no composable-actor binary found/);
    for (const place of [`$${ENV_BINARY} (not set)`, bad.path, join(empty, 'composable-actor'), `${BUILD} (the build folder)`]) {
      assert.ok(message.includes(`\n  ${place}`), `${place} missing from:\n${message}`);
    }
    return true;
  };
  // Only when the repository has no release build: else that is found, as it should be. (check.sh
  // checks the build folder in a packed install.)
  let built = false;
  try {
    built = findBinary() === BUILD;
  } catch {}
  if (built) return t.skip('the repository has a release build');
  assert.throws(() => findBinary(), check);
  await assert.rejects(Client.start(), check);
});
