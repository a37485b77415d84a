// The typed view of a client's stores: `typed.d.ts` gives it its types from the module
// `composable-actor types --language typescript` writes; at run time it is a thin wrapper that
// calls the client, which stays usable untyped.
import { UnknownStoreError } from './index.js';

/** @param {import('./index.js').Client} client */
export function typed(client) {
  return {
    client,
    /** @param {string} name */
    store(name) {
      if (!client.stores.includes(name)) throw new UnknownStoreError(name, client.stores);
      return {
        name,
        /** @param {{type: string}} action @param {import('./index.js').SendOptions} [options] */
        send: (action, options) => client.send(name, action, undefined, options),
        /** @param {{instance?: string}} [options] */
        state: (options) => client.state(name, options),
        /** @param {import('./index.js').InstanceOptions} [options] */
        snapshot: (options) => client.snapshot(name, options),
        /** @param {import('./index.js').Until} until @param {{instance?: string, timeout?: number}} [options] */
        waitFor: (until, options) => client.waitFor(until, { ...options, store: name }),
        /** @param {{instance?: string}} [options] */
        events: (options) => client.events({ ...options, store: name }),
      };
    },
  };
}
