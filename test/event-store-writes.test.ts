// The EventStore contract's writing cases (support/event-store-contract.ts) against every
// engine of support/event-stores.ts: failed batches, delete, zones and their changes, rebuild.

import { describeWriteContract } from "./support/event-store-contract.js";
import { EVENT_STORES } from "./support/event-stores.js";

for (const engine of EVENT_STORES) describeWriteContract(engine);
