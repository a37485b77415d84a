// The primes store with the generated Examples/clients/types/stores.d.ts: a program tsc checks,
// not one to run.
//
//     tsc --strict --noEmit --target es2020 Examples/clients/typed_primes.ts
//
// `stores.d.ts` is what `composable-actor types --language typescript` writes (`make types`).
// The Node client (clients/node) takes any store name and action; `TypedClient` is the view of
// it this program uses, whose types pick each store's actions and state by the store's name.
import type {
  PrimesHostAction,
  PrimesState,
  StoreHostActions,
  StoreName,
  StoreStates,
} from './types/stores';

/** The Node client's `send` and `state`, typed by store. */
export interface TypedClient {
  send<S extends StoreName>(
    store: S,
    action: StoreHostActions[S],
    payload?: Record<string, never>,
    options?: { settle?: boolean },
  ): Promise<unknown[]>;
  state<S extends StoreName>(store: S): StoreStates[S];
}

/** The n-th prime, as the primes store computes it. */
export async function nthPrime(actor: TypedClient, n: number): Promise<number> {
  const countChanged: PrimesHostAction = { type: 'counter.countChanged', value: n };
  await actor.send('primes', countChanged);
  // The prime is computed on the thread pool; settle waits until that is done.
  await actor.send('primes', { type: 'counter.nthPrimeButtonTapped' }, {}, { settle: true });
  const state: PrimesState = actor.state('primes');
  const alert = state.alertNthPrime; // PrimesStateAlertNthPrime | null: tsc asks for the check
  if (alert === null) throw new Error(`no prime number ${n}: ${state.alertNthPrimeFailure?.message}`);
  return alert.prime;
}

/** Saves the count as a favourite when it is a prime and not one already. */
export async function saveIfPrime(actor: TypedClient): Promise<number[]> {
  const state = actor.state('primes');
  if (state.isPrime && !state.isFavorite) {
    await actor.send('primes', { type: 'primeModal.saveFavoritePrimeTapped' });
  }
  return actor.state('primes').favoritePrimes;
}
