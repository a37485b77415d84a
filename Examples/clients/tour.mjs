#!/usr/bin/env node
// The four stores through the Node client: primes, randomTodo, votes and websocket.
//
//     node Examples/clients/tour.mjs [--binary PATH] [--http-url URL] [--ws-url URL]
//
// --http-url is a fixture server (Tests/servers/fixture_server.py: the todos and votes APIs) and
// --ws-url a WebSocket echo server (Tests/servers/ws_servers.py, which needs PyPI's `websockets`);
// the example starts on 127.0.0.1 (with python3) each one it is not given. The binary is --binary,
// else $COMPOSABLE_ACTOR_BIN, else composable-actor on PATH, else .build/release/composable-actor.
//
// The process runs with `--clock virtual`: time moves only when the example advances it, so the
// 3 s refresh and the 0.2 s loading throttle happen exactly when it says.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { Client } from '../../clients/node/index.js';
import { startPeer } from '../../clients/node/test-support/peers.js';

const { values: options } = parseArgs({
  options: { binary: { type: 'string' }, 'http-url': { type: 'string' }, 'ws-url': { type: 'string' } },
});
/** @type {(() => Promise<void>)[]} */
const stops = [];
/**
 * The URL given, else that of a server of Tests/servers started for this run.
 * @param {string | undefined} given @param {'fixture_server.py' | 'ws_servers.py'} script
 */
async function serverURL(given, script) {
  if (given) return given;
  const peer = await startPeer(script);
  stops.push(peer.stop);
  return peer.url;
}

/** @param {Client} actor */
async function primes(actor) {
  for (const n of [7, 13, 100]) {
    await actor.send('primes', 'counter.countChanged', { value: n });
    // The prime is computed on the thread pool; settle waits until that is done.
    await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { settle: true });
    console.log(`primes: prime number ${n} is ${actor.state('primes').alertNthPrime.prime}`);
    if (actor.state('primes').isPrime) await actor.send('primes', 'primeModal.saveFavoritePrimeTapped');
  }
  await actor.send('primes', 'favoritePrimes.saveButtonTapped', {}, { settle: true });
  await actor.send('primes', 'favoritePrimes.deleteFavoritePrimes', { indices: [0] });
  console.log('primes: favourites after deleting the first:', actor.state('primes').favoritePrimes);
  await actor.send('primes', 'favoritePrimes.loadButtonTapped', {}, { settle: true });
  console.log('primes: favourites loaded back:', actor.state('primes').favoritePrimes);
}

/** @param {Client} actor */
async function randomTodo(actor) {
  await actor.send('randomTodo', 'viewDidAppear'); // a fetch every 3 s, the first 3 s from now
  for (let i = 0; i < 2; i++) {
    const [{ now }] = await actor.advance(3000); // the timer fires and its fetch starts
    // The fetch is network I/O, which advance does not wait for: wait for its result. Its line
    // carries viewDidAppear's id (the timer's effect started there); waitFor matches any id,
    // and each waitFor looks on from where the last one matched.
    await actor.waitFor('fetchResult.success', { store: 'randomTodo' });
    const { idText, titleText } = actor.state('randomTodo');
    console.log(`randomTodo: at ${now} ms, ${idText} '${titleText}'`);
  }
  await actor.send('randomTodo', 'clickButton', {}, { until: 'fetchResult.success' }); // stops the timer too
  const { idText, titleText, isAutoRefreshing } = actor.state('randomTodo');
  console.log(`randomTodo: on click, ${idText} '${titleText}', auto refresh ${isAutoRefreshing}`);
}

/**
 * The votes store's last running load finished.
 * @param {import('../../clients/node/index.js').Line} line
 */
const loaded = (line) => line.patch?.some((/** @type {any} */ op) => op.path === '/runningTasks' && op.value === 0);

/** @param {Client} actor */
async function votes(actor) {
  await actor.send('votes', 'onAppear', {}, { until: loaded }); // three loads in parallel
  let state = actor.state('votes');
  console.log(`votes: ${state.categories.length} categories, top vote '${state.popularItems[0].title}', ` +
    `${state.voteItems.length} votes, loading ${state.isLoading}`);
  await actor.advance(200); // isLoading changes at most once per 0.2 s: let the last change through
  console.log('votes: after 0.2 s, loading', actor.state('votes').isLoading);
  await actor.send('votes', 'loadNextPage', {}, { until: loaded });
  state = actor.state('votes');
  console.log(`votes: page ${state.page}, ${state.voteItems.length} votes, more to load ${state.hasNext}`);
  await actor.send('votes', 'categorySelected', { value: 'tech' }, { until: loaded });
  await actor.advance(200);
  const titles = actor.state('votes').voteItems.map((/** @type {any} */ vote) => vote.title);
  console.log(`votes: ${titles.length} in tech, first`, titles.slice(0, 3));
}

/** @param {Client} actor */
async function websocket(actor) {
  await actor.send('websocket', 'connectButtonTapped', {}, { until: 'webSocket.didOpen' });
  // The server's welcome came right after didOpen, maybe before this line: the backlog has it.
  const welcome = await actor.waitFor('receivedSocketMessage.success', { store: 'websocket' });
  console.log('websocket: welcome', welcome.action.value.text);
  for (const text of ['Hello', 'from Node']) {
    await actor.send('websocket', 'messageToSendChanged', { value: text });
    // The echo is network I/O again, and its line carries connectButtonTapped's id (the socket's
    // effect started there), not sendButtonTapped's: anyId lets until match it all the same.
    const lines = await actor.send('websocket', 'sendButtonTapped', {}, {
      until: (line) => line.action?.type === 'receivedSocketMessage.success' && line.action.value.text === text,
      anyId: true,
    });
    console.log(`websocket: echo of '${text}' with the id of the connect: ${lines.at(-1)?.id === welcome.id}`);
  }
  console.log('websocket: received', actor.state('websocket').receivedMessages);
  await actor.send('websocket', 'connectButtonTapped'); // connected, the button disconnects
  console.log('websocket:', actor.state('websocket').connectivityState);
}

// A throw-away data directory, so the example never touches your saved favourites.
const data = mkdtempSync(join(tmpdir(), 'tour-example-'));
try {
  const httpURL = await serverURL(options['http-url'], 'fixture_server.py');
  const wsURL = await serverURL(options['ws-url'], 'ws_servers.py');
  const actor = await Client.start({
    binary: options.binary,
    args: ['--clock', 'virtual', '--data-dir', data, '--seed', '1',
      '--todos-url', httpURL, '--votes-url', httpURL, '--websocket-url', `${wsURL}/echo`],
  });
  try {
    await primes(actor);
    await randomTodo(actor);
    await votes(actor);
    await websocket(actor);
    for (const store of actor.stores) {
      if (!isDeepStrictEqual(actor.state(store), await actor.snapshot(store))) throw new Error(`the local mirror of ${store} drifted`);
    }
  } finally {
    await actor.close();
  }
} finally {
  await Promise.all(stops.map((stop) => stop()));
  rmSync(data, { recursive: true, force: true });
}
