// `analytics aggregates rebuild [--website ID]`: recomputes the pre-aggregated statistics
// from the raw events (the source of truth), for one website or all. Beside a running
// server that holds the embedded store, the rebuild runs in the server, between its writes.

import { openEventStoreBesideServer } from "../storage/open-storage.js";
import { configFrom, parseCommand, UsageError } from "./command-options.js";
import { requireWebsite } from "./require-website.js";

export async function aggregatesRebuildCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, { website: { type: "string" } });
  const website = values.website;
  if (website !== undefined && (!/^\d{1,15}$/.test(String(website)) || Number(website) < 1)) {
    throw new UsageError("--website must be a website id.");
  }
  const config = configFrom(values);
  if (website !== undefined) await requireWebsite(config, Number(website), "nothing was rebuilt");
  const events = await openEventStoreBesideServer(config, { existing: true });
  try {
    await events.migrate();
    const started = Date.now();
    await events.rebuildAggregates(website === undefined ? undefined : Number(website));
    const scope = website === undefined ? "every website" : `website ${website}`;
    const count = await events.countEvents(website === undefined ? undefined : Number(website));
    console.log(`Rebuilt the aggregates of ${scope} from ${count} events in ${Date.now() - started} ms.`);
    return 0;
  } finally {
    await events.close();
  }
}
