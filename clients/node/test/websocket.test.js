// The websocket store through the client, against the local echo server
// (Tests/servers/ws_servers.py, run with python3: Node has no WebSocket server of its own).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { testClients } from '../test-support/clients.js';
import { startPeer } from '../test-support/peers.js';

// A hang is a failure, not a stuck CI run.
const LIMIT = { timeout: 30_000 };
const WELCOME = 'Welcome to the echo server';

/** @typedef {import('../index.js').Line} Line */

const clients = testClients();
const start = clients.start;

/** @type {import('../test-support/peers.js').Peer} */
let ws;
before(async () => {
  ws = await startPeer('ws_servers.py');
});
after(async () => {
  await ws.stop();
});

/**
 * The first line from an `events()` iterator that matches.
 * @param {AsyncGenerator<Line>} events @param {(line: Line) => boolean} predicate @returns {Promise<Line>}
 */
async function next(events, predicate) {
  for (;;) {
    const { value, done } = await events.next();
    if (done) throw new Error('the events ended before a match');
    if (predicate(value)) return value;
  }
}

/** Matches the line of a text message the socket received. @param {string} text */
const received = (text) => (/** @type {Line} */ line) =>
  line.type === 'action' && line.action.type === 'receivedSocketMessage.success' && line.action.value.text === text;

test('connect, send, receive the echo, disconnect', LIMIT, async () => {
  // The virtual clock keeps the store's 10 s ping out of the way (and settle is available).
  const actor = await start(['--clock', 'virtual', '--websocket-url', `${ws.url}/echo`]);
  const events = actor.events();
  const opened = await actor.send('websocket', 'connectButtonTapped', {}, { until: 'webSocket.didOpen' });
  assert.deepEqual(opened.map((line) => line.action.type), ['connectButtonTapped', 'webSocket.didOpen']);
  assert.equal(actor.state('websocket').connectivityState, 'connected');

  await actor.send('websocket', 'messageToSendChanged', { value: 'Hello' });
  assert.equal(actor.state('websocket').messageToSend, 'Hello');
  const sent = await actor.send('websocket', 'sendButtonTapped', {}, { until: 'sendResponse' });
  assert.deepEqual(sent[0].patch, [{ op: 'replace', path: '/messageToSend', value: '' }]);
  assert.deepEqual(sent.at(-1)?.action, { type: 'sendResponse', didSucceed: true });

  // Received messages echo the connect's id: its effect is the one that receives.
  const echo = await next(events, received('Hello'));
  assert.deepEqual([echo.id, echo.source], [opened[0].id, 'effect']);
  assert.deepEqual(actor.state('websocket').receivedMessages, [WELCOME, 'Hello']);
  assert.deepEqual(actor.state('websocket'), await actor.snapshot('websocket'));

  const [disconnected] = await actor.send('websocket', 'connectButtonTapped');
  assert.deepEqual(disconnected.patch, [{ op: 'replace', path: '/connectivityState', value: 'disconnected' }]);
  await actor.settle();
  assert.deepEqual(actor.state('websocket'), await actor.snapshot('websocket'));
  // Disconnecting cancelled the socket's effects: none is left for quit to cancel.
  assert.equal(await actor.close(), 0);
  const exit = await next(events, (line) => line.type === 'exit');
  assert.equal(exit.cancelledEffects, 0);
});

test('advancing the virtual clock sends the pings', LIMIT, async () => {
  // /pings answers every ping with a text message that counts them.
  const actor = await start(['--clock', 'virtual', '--websocket-url', `${ws.url}/pings`]);
  const events = actor.events();
  await actor.send('websocket', 'connectButtonTapped', {}, { until: 'webSocket.didOpen' });
  await actor.advance(10_000); // the --ping-interval
  const reply = await next(events, (line) => line.action?.type === 'receivedSocketMessage.success');
  assert.equal(JSON.parse(reply.action.value.text).pingReceived, 1);
  assert.deepEqual(actor.state('websocket').receivedMessages.map((/** @type {string} */ text) => JSON.parse(text).pingReceived), [1]);
});

test('send until sees the echo, which carries the connect\'s id; waitFor finds the welcome', LIMIT, async () => {
  const actor = await start(['--clock', 'virtual', '--websocket-url', `${ws.url}/echo`]);
  const opened = await actor.send('websocket', 'connectButtonTapped', {}, { until: 'webSocket.didOpen' });
  // The welcome came after didOpen, before this call: the backlog still has it.
  const welcome = await actor.waitFor(received(WELCOME), { timeout: 5000 });
  assert.equal(welcome.id, opened[0].id);

  await actor.send('websocket', 'messageToSendChanged', { value: 'Hello' });
  const sent = await actor.send('websocket', 'sendButtonTapped', {}, { until: received('Hello'), anyId: true, timeout: 5000 });
  const echo = /** @type {Line} */ (sent.at(-1));
  assert.equal(sent[0].action.type, 'sendButtonTapped');
  assert.deepEqual([echo.id, echo.source, echo.action.value.text], [opened[0].id, 'effect', 'Hello']);
  assert.ok(sent.slice(0, -1).every((line) => line.id === sent[0].id), 'its own lines, then the echo');
  assert.deepEqual(actor.state('websocket').receivedMessages, [WELCOME, 'Hello']);
  // The same with the action type: the echo is the next receivedSocketMessage.success.
  await actor.send('websocket', 'messageToSendChanged', { value: 'again' });
  const again = await actor.send('websocket', 'sendButtonTapped', {}, { until: 'receivedSocketMessage.success', anyId: true, timeout: 5000 });
  assert.equal(again.at(-1)?.action.value.text, 'again');
  await actor.send('websocket', 'connectButtonTapped');
});
