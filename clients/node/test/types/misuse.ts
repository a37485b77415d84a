// Must NOT compile (check.sh expects tsc to reject it): a number where a store name goes.
import { Client } from 'composable-actor';

const actor = await Client.start();
await actor.send(7, 'counter.incrTapped');
