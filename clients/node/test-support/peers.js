// Runs the test peers of Tests/servers (Python scripts) on 127.0.0.1, as Tests/servers/peers.py
// does for the Python tests: Node has no WebSocket server of its own, and npm is not reachable.
// (Outside test/, because `node --test test/` runs every file under a test folder.)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVERS = fileURLToPath(new URL('../../../Tests/servers/', import.meta.url));

/**
 * @typedef {object} Peer
 * @property {number} port
 * @property {string} url  `http://127.0.0.1:N` or `ws://127.0.0.1:N`
 * @property {() => Promise<void>} stop  closes its stdin, which ends it
 */

/**
 * Starts a script of Tests/servers on a free port and resolves once it printed its ready line.
 * @param {'fixture_server.py' | 'ws_servers.py'} script
 * @param {{timeout?: number}} [options]  milliseconds to wait for the ready line
 * @returns {Promise<Peer>}
 */
export async function startPeer(script, options = {}) {
  const { timeout = 20_000 } = options;
  const child = spawn(process.env.PYTHON ?? 'python3', [SERVERS + script, '--port', '0'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Kept for the error when it fails to start, then passed on.
  let stderr = '';
  const keep = (/** @type {string} */ chunk) => (stderr += chunk);
  child.stderr.setEncoding('utf8').on('data', keep);
  const exited = new Promise((resolve) => child.once('close', resolve));
  const lines = createInterface({ input: child.stdout });
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  try {
    const first = await new Promise((resolve, reject) => {
      lines.once('line', resolve);
      child.once('error', reject);
      exited.then(() => reject(new Error(`${script} ended before its ready line:\n${stderr}`)));
      timer = setTimeout(() => reject(new Error(`${script} printed no ready line in ${timeout} ms:\n${stderr}`)), timeout);
    });
    const { port, url } = JSON.parse(first);
    const stop = async () => {
      child.stdin.end();
      const late = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(late);
    };
    return { port, url, stop };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(timer);
    lines.close();
    child.stdout.resume(); // nothing more is expected there, but a full pipe must not block it
    child.stderr.off('data', keep).pipe(process.stderr);
  }
}
