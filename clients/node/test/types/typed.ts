// A TypeScript program using the packed module's typed view with the generated stores.d.ts.
import { Client } from 'composable-actor';
import { typed } from 'composable-actor/typed';
import type { Stores } from './stores.js';

export async function nthPrime(n: number): Promise<number | undefined> {
  const actor = await Client.start();
  try {
    const primes = typed<Stores>(actor).store('primes');
    await primes.send({ type: 'counter.countChanged', value: n });
    const lines = await primes.send({ type: 'counter.nthPrimeButtonTapped' }, { until: 'counter.nthPrimeResponse' });
    const answers = lines.flatMap((line) =>
      line.type === 'action' && line.action.type === 'counter.nthPrimeResponse' ? [line.action.value] : []);
    return answers[0] ?? primes.state().alertNthPrime?.prime;
  } finally {
    await actor.close();
  }
}
