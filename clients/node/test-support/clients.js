// Clients on the real binary for the tests, each with a throw-away data folder, all closed after
// every test of the file that asked for them (so a failing test leaves no process behind).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'node:test';
import { Client } from '../index.js';

/**
 * Registers the clean-up in the calling test file.
 * @returns {{start: (args?: string[], options?: import('../index.js').Options) => Promise<Client>, dataDir: string}}
 *   `start` starts a client; `dataDir` is the data folder of the last one started.
 */
export function testClients() {
  /** @type {Client[]} */
  const clients = [];
  const started = {
    dataDir: '',
    /** @param {string[]} args @param {import('../index.js').Options} [options] */
    async start(args = [], options = {}) {
      started.dataDir = mkdtempSync(join(tmpdir(), 'composable-actor-node-'));
      const client = await Client.start({ args: ['--data-dir', started.dataDir, ...args], ...options });
      clients.push(client);
      return client;
    },
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  return started;
}
