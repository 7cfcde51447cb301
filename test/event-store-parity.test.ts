// The same random events in every available engine (support/event-store-contract.ts): each
// gives the answers the catalog defines, and all give the same.

import { describeSameRandomEvents } from "./support/event-store-contract.js";

describeSameRandomEvents();
