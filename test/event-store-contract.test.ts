// The EventStore contract's reading cases (support/event-store-contract.ts) against every
// engine of support/event-stores.ts.

import { describeReadContract } from "./support/event-store-contract.js";
import { EVENT_STORES } from "./support/event-stores.js";

for (const engine of EVENT_STORES) describeReadContract(engine);
