#!/usr/bin/env node
// PrimeTime through the Node client: nth primes, favourites saved and loaded back.
//
//     node Examples/clients/primes.mjs [path/to/composable-actor]
//
// Without a path the client uses $COMPOSABLE_ACTOR_BIN, then .build/release/composable-actor.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '../../clients/node/index.js';

// A throw-away data directory, so the example never touches your saved favourites.
const data = mkdtempSync(join(tmpdir(), 'primes-example-'));
const actor = await Client.start({ binary: process.argv[2], args: ['--data-dir', data] });
try {
  for (const n of [7, 13, 100]) {
    await actor.send('primes', 'counter.countChanged', { value: n });
    await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' });
    console.log(`prime number ${n} is ${actor.state('primes').alertNthPrime.prime}`);
    if (actor.state('primes').isPrime) await actor.send('primes', 'primeModal.saveFavoritePrimeTapped');
  }
  await actor.send('primes', 'favoritePrimes.saveButtonTapped', {}, { until: 'favoritePrimes.savedFavoritePrimes' });
  await actor.send('primes', 'favoritePrimes.deleteFavoritePrimes', { indices: [0] });
  console.log('favourites after deleting the first:', actor.state('primes').favoritePrimes);
  await actor.send('primes', 'favoritePrimes.loadButtonTapped', {}, { until: 'favoritePrimes.loadedFavoritePrimes' });
  const state = actor.state('primes');
  console.log('favourites loaded back:', state.favoritePrimes, `(${state.activityFeed.length} in the feed)`);
  if (!isDeepStrictEqual(state, await actor.snapshot('primes'))) throw new Error('the local mirror drifted from the process');
} finally {
  await actor.close();
  rmSync(data, { recursive: true, force: true });
}
