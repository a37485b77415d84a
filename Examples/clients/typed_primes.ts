// The primes store with the generated Examples/clients/types/stores.d.ts: a program tsc checks,
// not one to run.
//
//     tsc --strict --noEmit --target es2020 --moduleResolution node Examples/clients/typed_primes.ts
//
// `stores.d.ts` is what `composable-actor types --language typescript` writes (`make types`).
// `typed<Stores>(client)` of the Node client (clients/node/typed.js) is the view of a client
// whose `store('primes')` takes only the actions a host sends the primes store, returns its
// state, and types the lines it gets back, narrowed by their `type`.
import { typed, type UntypedClient } from '../../clients/node/typed.js';
import type { PrimesAction, Stores } from './types/stores';

/** The n-th prime, as the primes store computes it. */
export async function nthPrime(client: UntypedClient, n: number): Promise<number> {
  const primes = typed<Stores>(client).store('primes');
  await primes.send({ type: 'counter.countChanged', value: n });
  // The prime is computed on the thread pool; settle waits until that is done.
  await primes.send({ type: 'counter.nthPrimeButtonTapped' }, { settle: true });
  const state = primes.state();
  const alert = state.alertNthPrime; // PrimesStateAlertNthPrime | null: tsc asks for the check
  if (alert === null) throw new Error(`no prime number ${n}: ${state.alertNthPrimeFailure?.message}`);
  return alert.prime;
}

/** Saves the count as a favourite when it is a prime and not one already. */
export async function saveIfPrime(client: UntypedClient): Promise<number[]> {
  const primes = typed<Stores>(client).store('primes');
  const state = primes.state();
  if (state.isPrime && !state.isFavorite) {
    await primes.send({ type: 'primeModal.saveFavoritePrimeTapped' });
  }
  return primes.state().favoritePrimes;
}

/** The actions one increment reduced: the lines narrowed to action lines by their `type`. */
export async function increment(client: UntypedClient): Promise<PrimesAction[]> {
  const lines = await typed<Stores>(client).store('primes').send({ type: 'counter.incrTapped' });
  return lines.flatMap((line) => (line.type === 'action' ? [line.action] : []));
}
